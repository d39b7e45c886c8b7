package jsonx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/citegate/citegate/parse/icu"
)

// Digest returns "sha256:" followed by the lowercase hex SHA-256 of the
// canonical JSON of v, the reference's inputs_digest: compact JSON in which
// every object's keys are sorted in ICU collation order (JavaScript
// localeCompare) at every depth, arrays keep their order, and numbers are
// printed as JSON.stringify prints them.
//
// v may be anything Marshal accepts (structs, maps, slices, json.RawMessage);
// it is marshalled, decoded and re-encoded, so a struct and a map with the same
// keys and values have the same digest. Keys that collate equal but differ
// (canonically equivalent Unicode) are ordered by bytes, so the digest is
// deterministic even though JavaScript would order them by insertion.
func Digest(v any) (string, error) {
	b, err := Marshal(v)
	if err != nil {
		return "", err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("jsonx: digest: %w", err)
	}
	var buf bytes.Buffer
	c := canon{buf: &buf, orders: map[string][]string{}}
	if err := c.write(doc); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// canon writes canonical JSON. Digested documents repeat the same object
// shape thousands of times (one per URL), so the collation order of each key
// set is computed once.
type canon struct {
	buf    *bytes.Buffer
	orders map[string][]string
}

// keyOrder returns the object's keys in canonical order.
func (c *canon) keyOrder(v map[string]any) []string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys) // tie-break for keys that collate equal
	id := strings.Join(keys, "\x00")
	if order, ok := c.orders[id]; ok {
		return order
	}
	icu.Sort(keys)
	c.orders[id] = keys
	return keys
}

// write appends the canonical JSON of a value decoded with UseNumber.
func (c *canon) write(v any) error {
	buf := c.buf
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("jsonx: digest: number %q: %w", v, err)
		}
		// JSON.parse turns an out-of-range literal into ±Infinity, which
		// JSON.stringify prints as null; underflow becomes 0 in both.
		buf.Write(appendNumber(nil, f))
	case string:
		if plainString(v) {
			buf.WriteByte('"')
			buf.WriteString(v)
			buf.WriteByte('"')
			break
		}
		s, err := Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(s)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := c.write(e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		buf.WriteByte('{')
		for i, k := range c.keyOrder(v) {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := c.write(k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := c.write(v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("jsonx: digest: unexpected decoded type %T", v)
	}
	return nil
}

// plainString reports whether s encodes as itself between quotes: valid
// UTF-8 with nothing JSON must escape.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
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
