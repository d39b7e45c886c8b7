package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citegate/citegate/parse/icu"
)

// Digest returns "sha256:" followed by the lowercase hex SHA-256 of the
// canonical JSON of v, the reference's inputs_digest: compact JSON in which
// every object's keys are sorted in ICU collation order (JavaScript
// localeCompare) at every depth, arrays keep their order, and numbers are
// printed as JSON.stringify prints them.
//
// v may be anything Marshal accepts (structs, maps, slices, json.RawMessage);
// a struct and a map with the same keys and values have the same digest. Keys
// that collate equal but differ (canonically equivalent Unicode) are ordered
// by bytes, so the digest is deterministic even though JavaScript would order
// them by insertion. The canonical JSON is streamed into the hash (stream.go),
// never held whole.
func Digest(v any) (string, error) {
	return streamDigest(v)
}

// canon rewrites JSON text into canonical form without decoding it into
// maps (digested documents hold tens of thousands of objects). Digested
// documents repeat the same object shape once per URL, so the collation order
// of each key set is computed once.
type canon struct {
	orders map[string][]string
}

// keyOrder returns keys in canonical order: collation order, bytes as the
// tie-break for keys that collate equal.
func (c *canon) keyOrder(keys []string) []string {
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	// Length-prefixed, so distinct key sets never share an id.
	var id strings.Builder
	for _, k := range sorted {
		id.WriteString(strconv.Itoa(len(k)))
		id.WriteByte(':')
		id.WriteString(k)
	}
	if order, ok := c.orders[id.String()]; ok {
		return order
	}
	icu.Sort(sorted)
	c.orders[id.String()] = sorted
	return sorted
}

type member struct {
	key   string
	value []byte
}

// value appends the canonical form of the JSON value at the start of b to
// dst and returns the rest of b.
func (c *canon) value(dst, b []byte) ([]byte, []byte, error) {
	b = skipSpace(b)
	if len(b) == 0 {
		return dst, b, errors.New("unexpected end of JSON")
	}
	switch b[0] {
	case '{':
		var members []member
		b = skipSpace(b[1:])
		for len(b) > 0 && b[0] != '}' {
			key, rest, err := stringToken(b)
			if err != nil {
				return dst, b, err
			}
			rest = skipSpace(rest)
			if len(rest) == 0 || rest[0] != ':' {
				return dst, b, errors.New("missing colon")
			}
			start := skipSpace(rest[1:])
			end, err := skipValue(start)
			if err != nil {
				return dst, b, err
			}
			members = append(members, member{key, start[:len(start)-len(end)]})
			b = skipSpace(end)
			if len(b) > 0 && b[0] == ',' {
				b = skipSpace(b[1:])
			}
		}
		if len(b) == 0 {
			return dst, b, errors.New("unterminated object")
		}
		keys := make([]string, 0, len(members))
		for _, m := range members {
			if !slices.Contains(keys, m.key) {
				keys = append(keys, m.key)
			}
		}
		dst = append(dst, '{')
		for i, k := range c.keyOrder(keys) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			// A repeated key keeps its last value, as JSON.parse does.
			var raw []byte
			for _, m := range members {
				if m.key == k {
					raw = m.value
				}
			}
			var err error
			if dst, _, err = c.value(dst, raw); err != nil {
				return dst, b, err
			}
		}
		return append(dst, '}'), b[1:], nil
	case '[':
		dst = append(dst, '[')
		b = skipSpace(b[1:])
		for i := 0; len(b) > 0 && b[0] != ']'; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, b, err = c.value(dst, b); err != nil {
				return dst, b, err
			}
			b = skipSpace(b)
			if len(b) > 0 && b[0] == ',' {
				b = skipSpace(b[1:])
			}
		}
		if len(b) == 0 {
			return dst, b, errors.New("unterminated array")
		}
		return append(dst, ']'), b[1:], nil
	case '"':
		s, rest, err := stringToken(b)
		if err != nil {
			return dst, b, err
		}
		return AppendString(dst, s), rest, nil
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(b) >= len(lit) && string(b[:len(lit)]) == lit {
				return append(dst, lit...), b[len(lit):], nil
			}
		}
		return dst, b, errors.New("invalid literal")
	default:
		end, err := skipValue(b)
		if err != nil {
			return dst, b, err
		}
		num := b[:len(b)-len(end)]
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return dst, b, fmt.Errorf("number %q: %w", num, err)
		}
		// JSON.parse turns an out-of-range literal into ±Infinity, which
		// JSON.stringify prints as null; underflow becomes 0 in both.
		return appendNumber(dst, f), end, nil
	}
}

// stringToken decodes the JSON string at the start of b.
func stringToken(b []byte) (string, []byte, error) {
	end, err := skipValue(b)
	if err != nil || len(b) == 0 || b[0] != '"' {
		return "", b, errors.New("expected string")
	}
	tok := b[:len(b)-len(end)]
	inner := tok[1 : len(tok)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), end, nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", b, err
	}
	return s, end, nil
}

// skipValue returns what follows the JSON value at the start of b.
func skipValue(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return b, errors.New("unexpected end of JSON")
	}
	switch b[0] {
	case '"':
		for i := 1; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return b[i+1:], nil
			}
		}
		return b, errors.New("unterminated string")
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				rest, err := skipValue(b[i:])
				if err != nil {
					return b, err
				}
				i = len(b) - len(rest) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return b[i+1:], nil
				}
			}
		}
		return b, errors.New("unterminated container")
	default:
		i := 0
		for i < len(b) && (isNumberByte(b[i]) || (b[i] >= 'a' && b[i] <= 'z')) {
			i++
		}
		if i == 0 {
			return b, fmt.Errorf("unexpected %q", b[0])
		}
		return b[i:], nil
	}
}

func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// appendNumber appends f as JavaScript's Number.prototype.toString (and so
// JSON.stringify) prints it: shortest round-trip digits, plain notation for
// 1e-6 <= |f| < 1e21, exponent notation without leading zeros otherwise, 0 for
// negative zero and null for non-finite values.
func appendNumber(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return append(b, "null"...)
	case f == 0:
		return append(b, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Go pads one-digit exponents (e-07); JavaScript does not (e-7).
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Round6 returns x rounded to 6 decimal places exactly as JavaScript's
// Number(x.toFixed(6)) does. toFixed picks the nearer multiple of 1e-6 to the
// exact binary value of x and, on an exact tie, the one farther from zero,
// whereas strconv.FormatFloat rounds ties to even: 1/128 (0.0078125) gives
// 0.007813 here and in JavaScript but 0.007812 with FormatFloat.
//
// As in JavaScript, values of magnitude 1e21 or more, infinities and NaN are
// returned unchanged, and a negative x that rounds to zero gives -0 (which
// Marshal prints as 0).
func Round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1e21 {
		return x
	}
	const scale = 1_000_000
	r := new(big.Rat).SetFloat64(math.Abs(x)) // exact: finite float64
	r.Mul(r, big.NewRat(scale, 1))
	// n = floor(r + 1/2): the nearer integer, the larger one on a tie.
	r.Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	// The nearest float64 to n/1e6, which is what Number("<n/1e6>") yields.
	f, _ := new(big.Rat).SetFrac(n, big.NewInt(scale)).Float64()
	if x < 0 {
		return -f
	}
	return f
}
