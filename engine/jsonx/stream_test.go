package jsonx

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// canonDigest is the original whole-buffer digest — Marshal, then canonical
// form, then hash — kept as the oracle the streaming Digest must equal.
func canonDigest(v any) (string, error) {
	b, err := Marshal(v)
	if err != nil {
		return "", err
	}
	c := canon{orders: map[string][]string{}}
	out, _, err := c.value(nil, b)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(out)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

type inner struct {
	Z      string            `json:"z"`
	A      *int              `json:"a,omitempty"`
	M      map[string]any    `json:"m,omitempty"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Bytes  []byte            `json:"bytes,omitempty"`
	Named  map[string]string `json:"Named"`
	hidden string
}

type embedding struct {
	inner
	Extra int `json:"extra"`
}

type options struct {
	N    int64     `json:"n,string"`
	T    time.Time `json:"t"`
	F32  float32   `json:"f32"`
	Bad  string    `json:"b\x01ad"`
	Skip string    `json:"-"`
	Dash string    `json:"-,"` //nolint:staticcheck // "-," names a field "-", which the walker must reproduce
}

func TestStreamDigestMatchesCanon(t *testing.T) {
	one := 1
	long := strings.Repeat("é<>&\u2028x", 20000) // crosses the flush size
	values := []any{
		nil, true, 0, math.Copysign(0, -1), 1e21, 1e-7, 123456789012345678, uint64(math.MaxUint64), float32(0.1),
		"plain", "bad \xff utf-8 \xe2\x82", "ctl \x00\x1f \"q\" \\", long,
		[]any{1, "a", nil, []int{}, map[string]int{"b": 1, "a": 2}},
		map[string]any{"aB": 1, "a1": 2, "Ab": 3, "a_b": 4, "ab": 5, "\xffbad": 6},
		map[int]string{2: "b", 10: "a"},
		inner{Z: "z", A: &one, M: map[string]any{"k": []string{"v"}}, Raw: json.RawMessage(` { "y" : 1 , "x" : [ 2 ] } `),
			Bytes: []byte("bin"), Named: map[string]string{}},
		inner{hidden: "not encoded"},
		[]inner{{Z: long}, {Z: "second"}},
		embedding{inner{Z: "e"}, 3},
		options{N: 7, T: time.Unix(0, 0).UTC(), F32: 3.3, Bad: "x", Skip: "s", Dash: "d"},
		&inner{Z: "pointer"},
		json.RawMessage(`[1e400,-0,0.5e1,"\u00e9"]`),
		[2]string{"b", "a"},
	}
	for i, v := range values {
		want, werr := canonDigest(v)
		got, gerr := Digest(v)
		if (werr != nil) != (gerr != nil) || got != want {
			t.Errorf("value %d (%T): streaming digest %q (err %v), whole-buffer digest %q (err %v)", i, v, got, gerr, want, werr)
		}
	}
}

func FuzzStreamDigest(f *testing.F) {
	f.Add(`{"b":[1,2.5,-0,"x"],"a":{"é":null,"e":true}}`)
	f.Add(`["\u2028",1e400]`)
	f.Fuzz(func(t *testing.T, doc string) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		want, werr := canonDigest(v)
		got, gerr := Digest(v)
		if (werr != nil) != (gerr != nil) || got != want {
			t.Fatalf("%q: streaming %q (%v), whole-buffer %q (%v)", doc, got, gerr, want, werr)
		}
		// The same document as raw JSON takes the canon path inside the walker.
		raw, rerr := Digest(json.RawMessage(doc))
		if rerr == nil && werr == nil && raw != want {
			t.Fatalf("%q: raw %q, decoded %q", doc, raw, want)
		}
	})
}
