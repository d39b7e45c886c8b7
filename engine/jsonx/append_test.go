package jsonx

import (
	"math/rand/v2"
	"testing"
)

func TestAppendStringMatchesMarshal(t *testing.T) {
	cases := []string{"", "plain", `q"uote`, `back\slash`, "\b\f\n\r\t\x00\x1f\x7f", "<>&", "\u2028\u2029", "héllo wörld",
		"\xff\xfe", "a\xc3", "emoji 😀", "\ufffd", `\u2028 literal`}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab\"\\\n\x01<&/\xe2\x80\xa8\xc3\xa9\xff ")
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, Marshal = %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\u2028", "\xff", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := Marshal(s)
		if err != nil {
			t.Skip()
		}
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, Marshal = %s", s, got, want)
		}
	})
}
