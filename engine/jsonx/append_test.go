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
	// Every special byte at every position of strings long enough for the
	// eight-byte path, and long random strings.
	for _, special := range []string{`"`, `\`, "\n", "\x00", "\x1f", "\x7f", "\xe2\x80\xa8", "\xff", "\xc3\xa9", " ", "~"} {
		for pos := range 26 {
			b := []byte("abcdefghijklmnopqrstuvwxyz0123456789")
			cases = append(cases, string(b[:pos])+special+string(b[pos:]))
		}
	}
	for range 5000 {
		b := make([]byte, 8+r.IntN(40))
		for i := range b {
			b[i] = 'a' + byte(r.IntN(26))
			if r.IntN(10) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
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

func BenchmarkAppendStringURL(b *testing.B) {
	s := "https://www.example.org/research/papers/2024/item-10001?id=42#section-3"
	buf := make([]byte, 0, 256)
	b.SetBytes(int64(len(s)))
	for range b.N {
		buf = AppendString(buf[:0], s)
	}
}
