package jsonx

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/citegate/citegate/parse/icu"
)

// oracle is the obvious canonical writer — decode into maps, sort keys,
// re-encode — that the streaming transcoder replaced for speed. It stays as
// the test oracle.
func oracle(t *testing.T, buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case json.Number:
		f, _ := strconv.ParseFloat(v.String(), 64)
		buf.Write(appendNumber(nil, f))
	case string:
		s, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(s)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			oracle(t, buf, e)
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		icu.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			oracle(t, buf, k)
			buf.WriteByte(':')
			oracle(t, buf, v[k])
		}
		buf.WriteByte('}')
	}
}

func randomValue(r *rand.Rand, depth int) any {
	strs := []string{"", "a", "B", "a_b", "a-b", "é", "\u2028", "x\"y", "\\", "<&>", "u1", "u10", "\n", "\x7f"}
	switch n := r.IntN(7); {
	case depth > 3 || n == 0:
		return strs[r.IntN(len(strs))]
	case n == 1:
		return []float64{0, 1, -1.5, 1e21, 1e-7, 0.9, 123456789}[r.IntN(7)]
	case n == 2:
		return r.IntN(2) == 0
	case n == 3:
		return nil
	case n == 4:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomValue(r, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range r.IntN(5) {
			m[strs[r.IntN(len(strs))]] = randomValue(r, depth+1)
		}
		return m
	}
}

func TestCanonMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		v := randomValue(r, 0)
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		oracle(t, &want, doc)
		c := canon{orders: map[string][]string{}}
		got, _, err := c.value(nil, b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("canonical of %s\n got  %s\n want %s", b, got, want.Bytes())
		}
	}
}
