package netguard

import "testing"

func TestFormDecode(t *testing.T) {
	for in, want := range map[string]string{
		"plain":     "plain",
		"a+b":       "a b",
		"a%2Bb":     "a+b", // '+' is replaced before escapes are decoded
		"%41%42c":   "ABc",
		"%4":        "%4", // malformed escapes stay
		"%zz%":      "%zz%",
		"%E2%82%AC": "€",
		// One U+FFFD per maximal ill-formed subsequence (WHATWG UTF-8 decode).
		"%E2%82":   "\uFFFD",
		"%FF%FE":   "\uFFFD\uFFFD",
		"a\xffb":   "a\uFFFDb",
		"%C3%A9+x": "é x",
	} {
		if got := FormDecode(in); got != want {
			t.Errorf("FormDecode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPathDecodeKeepsPlus(t *testing.T) {
	if got := pathDecode("a+b%2Fc%"); got != "a+b/c%" {
		t.Errorf("pathDecode = %q", got)
	}
}

func TestFormDecodeCleanDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = FormDecode("utm_source") }); n != 0 {
		t.Errorf("FormDecode allocated %v times on a clean value", n)
	}
}
