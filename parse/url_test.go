package parse

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	werrors "github.com/nlnwa/whatwg-url/errors"
	"github.com/nlnwa/whatwg-url/url"

	"github.com/citegate/citegate/parse/icu"
)

// fixtures is the reference conformance data, copied into the repository
// (see testdata/reference/README.md) so the tests need nothing beside it.
const fixtures = "../testdata/reference/phase04"

// normalizeVerified is every row of origin.md §4.2's verified table.
var normalizeVerified = []struct{ in, want string }{
	{"https://Example.com:443/path/?b=2&a=1&utm_source=abc#frag", "https://example.com/path?a=1&b=2"},
	{"http://example.com:80/dir/?fbclid=zzz", "http://example.com/dir"},
	{"https://example.com", "https://example.com/"},
	{"https://example.com/", "https://example.com/"},
	{"https://example.com/?", "https://example.com/"},
	{"https://example.com/?&&", "https://example.com/"},
	{"https://example.com/a?q=a+b", "https://example.com/a?q=a%20b"},
	{"https://example.com/a?q=a%2Bb", "https://example.com/a?q=a%2Bb"},
	{"https://example.com/a?flag", "https://example.com/a?flag="},
	{"https://example.com/a?b=2&a=1&a=0", "https://example.com/a?a=0&a=1&b=2"},
	{"https://example.com/a?B=1&a=1", "https://example.com/a?a=1&B=1"},
	{"https://example.com/a?url=https://x.org/y", "https://example.com/a?url=https%3A%2F%2Fx.org%2Fy"},
	{"https://example.com/a?x=~!*'()", "https://example.com/a?x=~!*'()"},
	{"https://example.com/a?x=%ZZ", "https://example.com/a?x=%25ZZ"},
	{"https://example.com/A/B/", "https://example.com/A/B"},
	{"https://example.com:8443/x", "https://example.com:8443/x"},
	{"https://bücher.de/", "https://xn--bcher-kva.de/"},
	{"https://user:pw@example.com/x", "https://example.com/x"},
	{"http://[::1]:80/x", "http://[::1]/x"},
}

func TestNormalizeVerifiedTable(t *testing.T) {
	for _, tt := range normalizeVerified {
		got, err := Normalize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// normalizeDetails covers the prose of §4.2 beyond the verified table.
var normalizeDetails = []struct{ name, in, want string }{
	{"http keeps :443", "http://x.example:443/", "http://x.example:443/"},
	{"trailing dot kept", "https://example.com./a/", "https://example.com./a"},
	{"only one trailing slash removed", "https://example.com/a//", "https://example.com/a/"},
	{"existing escapes keep their case", "https://example.com/%7Efoo/%2f/", "https://example.com/%7Efoo/%2f"},
	{"tracking keys matched case-insensitively", "https://e.com/?UTM_Source=1&GCLID=2&FbClid=3&k=v", "https://e.com/?k=v"},
	{"tracking key matched after decoding", "https://e.com/?%75tm_source=1&k=v", "https://e.com/?k=v"},
	{"utm and mc_eid kept", "https://e.com/?utm=1&mc_eid=2", "https://e.com/?mc_eid=2&utm=1"},
	{"utm_ prefix needs the underscore", "https://e.com/?utmx=1", "https://e.com/?utmx=1"},
	{"duplicates kept, sorted by value", "https://e.com/?a=2&a=1&a=2", "https://e.com/?a=1&a=2&a=2"},
	{"empty key", "https://e.com/?=1&a", "https://e.com/?=1&a="},
	{"only the first = splits", "https://e.com/?a=b=c", "https://e.com/?a=b%3Dc"},
	{"space as %20", "https://e.com/?q=a%20b", "https://e.com/?q=a%20b"},
	{"UTF-8 re-encoded", "https://e.com/?q=straße", "https://e.com/?q=stra%C3%9Fe"},
	{"invalid UTF-8 byte becomes U+FFFD", "https://e.com/?q=%FF", "https://e.com/?q=%EF%BF%BD"},
	// The WHATWG decoder replaces a maximal ill-formed subsequence once;
	// Go's utf8 package would give two replacement characters here.
	{"truncated sequence is one U+FFFD", "https://e.com/?q=%E2%82", "https://e.com/?q=%EF%BF%BD"},
	{"bad continuation", "https://e.com/?q=%E2%28%A1", "https://e.com/?q=%EF%BF%BD(%EF%BF%BD"},
	{"lone percent", "https://e.com/?q=%", "https://e.com/?q=%25"},
	{"percent with one hex digit", "https://e.com/?q=%4", "https://e.com/?q=%254"},
	{"ICU order, not byte order", "https://e.com/?b=1&a_b=1&a-b=1&A=1&a1=1", "https://e.com/?A=1&a_b=1&a-b=1&a1=1&b=1"},
	{"fragment only", "https://e.com/x#frag", "https://e.com/x"},
	{"hash in query is the fragment", "https://e.com/?a=1#b=2", "https://e.com/?a=1"},
	{"uppercase scheme", "HTTPS://EXAMPLE.COM/Upper", "https://example.com/Upper"},
	{"dot segments", "https://e.com/a/./b/../c/", "https://e.com/a/c"},
	{"IPv4", "http://192.168.0.1:8080/", "http://192.168.0.1:8080/"},
}

func TestNormalizeDetails(t *testing.T) {
	for _, tt := range normalizeDetails {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		in       string
		sentinel error
		protocol string
	}{
		{"ftp://example.com/x", ErrNotHTTP, "ftp:"},
		{"mailto:a@example.com", ErrNotHTTP, "mailto:"},
		{"javascript:alert(1)", ErrNotHTTP, "javascript:"},
		{"example.com:80/x", ErrNotHTTP, "example.com:"},
		{"example.com/x", ErrNotAbsolute, ""},
		{"/relative", ErrNotAbsolute, ""},
		{"", ErrNotAbsolute, ""},
		{"https://", ErrNotAbsolute, ""},
		{"https://exa mple.com/", ErrNotAbsolute, ""},
		{"http://[::1/", ErrNotAbsolute, ""},
		{"https://example.com:99999/", ErrNotAbsolute, ""},
	}
	for _, tt := range tests {
		for name, f := range map[string]func(string) (string, error){"Normalize": Normalize, "Canonical": Canonical} {
			got, err := f(tt.in)
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Errorf("%s(%q) = %q, %v; want a *URLError", name, tt.in, got, err)
				continue
			}
			if !errors.Is(err, tt.sentinel) || ue.URL != tt.in || ue.Protocol != tt.protocol {
				t.Errorf("%s(%q) error = %#v; want %v with protocol %q", name, tt.in, ue, tt.sentinel, tt.protocol)
			}
			if got != "" {
				t.Errorf("%s(%q) returned %q with an error", name, tt.in, got)
			}
		}
	}
}

// TestNotAbsoluteKeepsParserError checks the parser's explanation survives,
// because the reference reports it as the error detail.
func TestNotAbsoluteKeepsParserError(t *testing.T) {
	_, err := Normalize("example.com/x")
	var ve *werrors.ValidationError
	if !errors.As(err, &ve) || ve.Type() != werrors.MissingSchemeNonRelativeURL {
		t.Fatalf("error %q does not carry the parser's reason", err)
	}
	if !strings.Contains(err.Error(), ErrNotAbsolute.Error()) {
		t.Errorf("error %q does not name %q", err, ErrNotAbsolute)
	}
	_, err = Normalize("ftp://example.com/x")
	if want := `parse "ftp://example.com/x": only http/https URLs are allowed (protocol "ftp:")`; err.Error() != want {
		t.Errorf("error = %q; want %q", err, want)
	}
}

// canonicalTable covers the §3.3 rows that concern the URL itself (the
// finder's truncation rules are Sources' business and differ on purpose).
var canonicalTable = []struct{ in, want string }{
	{"https://example.com/a", "https://example.com/a"},
	{"https://example.com/angle", "https://example.com/angle"},
	{"https://Example.COM:443/x", "https://example.com/x"},
	{"https://bücher.de/straße", "https://xn--bcher-kva.de/stra%C3%9Fe"},
	{"https://example.com", "https://example.com/"},
	{"https://example.com/", "https://example.com/"},
	{"https://example.com/q?a=1&b=2#frag", "https://example.com/q?a=1&b=2#frag"},
	{"http://[::1]:8080/x", "http://[::1]:8080/x"},
	{"https://example.com/a*b{c}", "https://example.com/a*b%7Bc%7D"},
	{"https://user:pw@example.com/p", "https://user:pw@example.com/p"},
	{"https://example.com/path/../other", "https://example.com/other"},
	{"https://exa", "https://exa/"},
	{"HTTPS://EXAMPLE.COM/Upper", "https://example.com/Upper"},
	{"http://example.com:80/dir/?fbclid=zzz", "http://example.com/dir/?fbclid=zzz"},
	{`https://example.com\a\b`, "https://example.com/a/b"},
	// Canonical keeps an empty query; the reference finder never sees
	// one because it strips the trailing '?' as punctuation first.
	{"https://example.com/?", "https://example.com/?"},
}

func TestCanonical(t *testing.T) {
	for _, tt := range canonicalTable {
		got, err := Canonical(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestNormalizeFixture runs the reference's normalize fixture through the
// reference procedure (§4.1: distinct inputs, normalized, distinct, ICU sort).
func TestNormalizeFixture(t *testing.T) {
	in := readLines(t, filepath.Join(fixtures, "normalize/extracted-urls.txt"))
	want := readLines(t, filepath.Join(fixtures, "normalize/expected-normalized-urls.txt"))
	type item struct{ original, normalized string }
	var items []item
	for _, raw := range in {
		n, err := Normalize(raw)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", raw, err)
		}
		items = append(items, item{raw, n})
	}
	var got []string
	for _, it := range items {
		if !slices.Contains(got, it.normalized) {
			got = append(got, it.normalized)
		}
	}
	icu.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("normalized = %q; want %q", got, want)
	}

	// The url-map order the reference produced (§4.2).
	icu.SortBy(items,
		func(it item) string { return it.normalized },
		func(it item) string { return it.original })
	wantOrder := []string{
		"http://example.com:80/dir/?fbclid=zzz",
		"http://example.com/dir",
		"https://Example.com:443/path/?b=2&a=1&utm_source=abc#frag",
		"https://example.com/path?a=1&b=2",
		"https://example.com/trailing",
		"https://example.com/trailing/",
	}
	var gotOrder []string
	for _, it := range items {
		gotOrder = append(gotOrder, it.original)
	}
	if !slices.Equal(gotOrder, wantOrder) {
		t.Errorf("url-map order = %q; want %q", gotOrder, wantOrder)
	}
}

func TestCID(t *testing.T) {
	full := map[string]string{
		"https://example.com/open":            "cid_c670cd0eb843b54f7bf606819590ba27f769b0fbbaa2a5b44ca776f536daea44",
		"https://source.example.com/u1":       "cid_ce4ea224d51a78ebe4f3abfbc5ed32d2ae7e5c613712ccc80671992d86c6fe4e",
		"https://example.com/a":               "cid_2dce0a4c50441bfccfa9caf4b58c3cba6e06c420505dd829f0436de1aa44baac",
		"https://paywall.example.com/premium": "cid_c71202c119c0d2e9fc984b25ad56c2f462ee25fb38fde503a7cbc1d8ea0a3e38",
		"https://example.com/dead":            "cid_6210bee52fd785ae11c7083ffc988ef12f8197ac7ec0f1de2cf064de3cfc75c6",
	}
	for in, want := range full {
		if got := CID(in); got != want {
			t.Errorf("CID(%q) = %q; want %q", in, got, want)
		}
	}
	// origin.md §4.2 quotes these abbreviated.
	abbreviated := map[string][2]string{
		"http://example.com/dir":           {"cid_95ae7442", "16bb8"},
		"https://example.com/path?a=1&b=2": {"cid_94ab2087", "a7df0c"},
		"https://example.com/trailing":     {"cid_9fdb6f21", "746c8f"},
	}
	for in, want := range abbreviated {
		if got := CID(in); !strings.HasPrefix(got, want[0]) || !strings.HasSuffix(got, want[1]) {
			t.Errorf("CID(%q) = %q; want %s…%s", in, got, want[0], want[1])
		}
	}
}

// TestCIDFixtures checks every cid recorded in the reference fixtures.
func TestCIDFixtures(t *testing.T) {
	type record struct {
		NormalizedURL string `json:"normalized_url"`
		CID           string `json:"cid"`
	}
	var records []record
	var urlMap struct{ Items []record }
	data, err := os.ReadFile(filepath.Join(fixtures, "validate/url-map.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &urlMap); err != nil {
		t.Fatal(err)
	}
	records = append(records, urlMap.Items...)
	for _, f := range []string{"render/citations.jsonl", "gate-c/citations.jsonl"} {
		for _, line := range readLines(t, filepath.Join(fixtures, f)) {
			var r record
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			records = append(records, r)
		}
	}
	if len(records) < 10 {
		t.Fatalf("only %d fixture records", len(records))
	}
	for _, r := range records {
		if got := CID(r.NormalizedURL); got != r.CID {
			t.Errorf("CID(%q) = %q; fixture says %q", r.NormalizedURL, got, r.CID)
		}
		if n, err := Normalize(r.NormalizedURL); err != nil || n != r.NormalizedURL {
			t.Errorf("fixture normalized_url %q normalizes to %q, %v", r.NormalizedURL, n, err)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if l := strings.TrimSpace(s.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

var cidPattern = regexp.MustCompile(`^cid_[0-9a-f]{64}$`)

// normalizeSeeds seeds FuzzNormalize and FuzzFastNormalize.
var normalizeSeeds = []string{
	"https://Example.com:443/path/?b=2&a=1&utm_source=abc#frag",
	"http://example.com:80/dir/?fbclid=zzz",
	"https://example.com/?&&",
	"https://example.com/a?q=a+b&q=a%2Bb&flag&x=%ZZ&y=%E2%82",
	"https://example.com/a?url=https://x.org/y&x=~!*'()",
	"https://bücher.de/straße/",
	"https://user:pw@example.com/x",
	"http://[::1]:80/x",
	"https://example.com/a//",
	"https://example.com./%2e%2E/x/",
	"ftp://example.com/x",
	"example.com/x",
	"\x00https://\xff/",
}

func FuzzNormalize(f *testing.F) {
	for _, s := range normalizeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := Normalize(raw)
		canon, cerr := Canonical(raw)
		if (err == nil) != (cerr == nil) {
			t.Fatalf("Normalize error %v but Canonical error %v", err, cerr)
		}
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) || !(errors.Is(err, ErrNotHTTP) || errors.Is(err, ErrNotAbsolute)) {
				t.Fatalf("Normalize(%q) error %v is not a *URLError with a sentinel", raw, err)
			}
			return
		}
		if !cidPattern.MatchString(CID(n)) {
			t.Fatalf("CID(%q) = %q", n, CID(n))
		}
		if again, err := Canonical(canon); err != nil || again != canon {
			t.Fatalf("Canonical not idempotent: %q -> %q -> %q, %v", raw, canon, again, err)
		}
		if viaCanon, err := Normalize(canon); err != nil || viaCanon != n {
			t.Fatalf("Normalize(%q) = %q but Normalize(Canonical) = %q, %v", raw, n, viaCanon, err)
		}
		again, err := Normalize(n)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which fails to normalize: %v", raw, n, err)
		}
		if again != n {
			// Removing one slash from "/a//" leaves "/a/", which loses
			// another on the next pass; that is the only allowed drift.
			u, _ := url.Parse(raw)
			if !strings.HasSuffix(u.Pathname(), "//") {
				t.Fatalf("Normalize not idempotent: %q -> %q -> %q", raw, n, again)
			}
		}
	})
}

// fastCanonicalSeeds seeds FuzzFastCanonical and FuzzFastNormalize.
var fastCanonicalSeeds = []string{
	"https://example.com", "HTTP://Example.COM/A?b=C#D", "https://a-b.c0m/x/y?q=1&r=%ZZ#f?g",
	"https://example.com/./a", "https://example.com/%2e%2E/", "https://xn--bcher-kva.de/",
	"https://1.2.3.4/", "https://example.123/", "https://a..b/", "https://example.com./",
	"https://ab--cd.example/", "https://-a.example/", "https://example.com/a?b?c#d#e",
	"https://user@example.com/", "https://example.com:443/", "https://example.com\\a",
	"https://example.com/a'b?c'd", "https:///example.com", "https://0x7f.example/",
}

// FuzzFastCanonical holds Canonical's shortcut to the WHATWG parser.
func FuzzFastCanonical(f *testing.F) {
	for _, s := range fastCanonicalSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		fast, ok := fastCanonical(raw)
		if !ok {
			return
		}
		u, err := parseHTTP(raw)
		if err != nil {
			t.Fatalf("fastCanonical(%q) = %q but the parser rejects it: %v", raw, fast, err)
		}
		if want := u.Href(false); fast != want {
			t.Fatalf("fastCanonical(%q) = %q; parser says %q", raw, fast, want)
		}
	})
}

// fastNormalizeSeeds are URL shapes aimed at the query and port handling of
// fastNormalize.
var fastNormalizeSeeds = []string{
	"https://e.com/?q=a+b", "https://e.com/?q=a%2Bb", "https://e.com/?q=a%2bb+%2B+",
	"https://e.com/?x=%ZZ&y=%Z&z=%", "https://e.com/?x=%4", "https://e.com/?x=%%41",
	"https://e.com/?a=2&a=1&a=2&a", "https://e.com/?a&a=&a==", "https://e.com/?=&=&=x",
	"https://e.com/?utm_source=1&UTM_MEDIUM=2&Utm_Campaign=3&k=v", "https://e.com/?%75tm_x=1&%55TM_y=2",
	"https://e.com/?utm=1&utm_=2&utmx_=3&gclid=4&GClid=5&fbclid=6&FBCLID&gclidx=7",
	"https://e.com/?&&a=1&&&b=2&", "https://e.com/?", "https://e.com/?#", "https://e.com/#",
	"https://e.com/?a=1#frag?x=1", "https://e.com/x/#", "https://e.com/x//?a=1", "https://e.com//",
	"https://e.com/?q=a%20b&q=a b", "https://e.com/?q='\"<>{}|^`[]\\", "https://e.com/?q=%27%22%3C%3E",
	"https://e.com/?q=%E2%82%AC&q=%E2%82&q=%FF", "https://e.com/?B=1&a=1&_=1&-=1&~=1&A=1",
	"https://e.com/?url=https://x.org/y?z=1", "https://e.com/a'b/", "https://e.com/a'b?c'd=e'f#g'h",
	"https://e.com:443/", "http://e.com:80/", "http://e.com:443/", "https://e.com:80/",
	"https://e.com:0443/", "http://e.com:00080", "https://e.com:/", "https://e.com:", "https://e.com:0/",
	"https://e.com:65535/", "https://e.com:65536/", "https://e.com:000000443/", "https://e.com:8080?x=1",
	"https://e.com:8080#f", "https://e.com:8a/", "https://e.com:-1/", "https://e.com:1:2/",
	"HTTPS://E.COM/A/?B=C#D", "Http://E.Com", "https://e.com/A/B/?", "https://e.com/a?b?c=d?e",
	"https://e.com/a?b=c#d#e", "https://e.com/%7Efoo/%2f/", "https://e.com/.a/", "https://e.com/a.",
	"https://e.com/?q=%2e%2E%2F", "https://e.com/a%2e/", "https://e.com/?\t", "https://e.com/?a=1 ",
	"https://e.com/?a=\x00", "https://e.com/#\x7f", "https://e.com/?a=\xc3\xa9",
	// Payloads for the inputs FuzzFastNormalize derives.
	"b=2&a=1&utm_source=x", "q=a+b&q=a%2Bb&x=%ZZ&flag&=&&", ":443/x/?b=1#f", ":8080", ":0080/", "/A/B/",
}

// TestFastNormalizeTakes checks the fast path takes the shapes citations
// come in, and declines what it must, so that neither the benchmark nor the
// fuzz target silently tests only the slow path.
func TestFastNormalizeTakes(t *testing.T) {
	takes := map[string]string{
		"https://example.com/research/2024/report.pdf":                          "https://example.com/research/2024/report.pdf",
		"https://Example.com:443/path/?b=2&a=1&utm_source=abc#frag":             "https://example.com/path?a=1&b=2",
		"https://news.example.org/articles/123?ref=home&utm_medium=social&id=9": "https://news.example.org/articles/123?id=9&ref=home",
		"https://en.wikipedia.org/wiki/Foo_(bar)":                               "https://en.wikipedia.org/wiki/Foo_(bar)",
		"https://example.com/a?q=a+b&x=%ZZ&flag":                                "https://example.com/a?flag=&q=a%20b&x=%25ZZ",
		"http://example.com:8080":                                               "http://example.com:8080/",
		"https://example.com:0443/x/":                                           "https://example.com/x",
		"https://example.com/a'b?c='#'":                                         "https://example.com/a'b?c='",
	}
	for in, want := range takes {
		if got, ok := fastNormalize(in); !ok || got != want {
			t.Errorf("fastNormalize(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{
		"https://user:pw@example.com/x", "https://bücher.de/", "https://xn--bcher-kva.de/",
		"http://[::1]:80/x", "http://192.168.0.1/", "https://example.com/a/../b",
		"https://example.com:65536/", "https://example.com:000443/", "https://example.com/a b",
		"https://example.com/?q=a b", "https://example.com/?q=é", "https://example.com\\a",
		"ftp://example.com/", "example.com/x", " https://example.com/",
	} {
		if got, ok := fastNormalize(in); ok {
			t.Errorf("fastNormalize(%q) = %q; want it declined", in, got)
		}
	}
}

// FuzzFastNormalize holds Normalize's shortcut to the WHATWG-parser path.
func FuzzFastNormalize(f *testing.F) {
	for _, tt := range normalizeVerified {
		f.Add(tt.in)
	}
	for _, tt := range normalizeDetails {
		f.Add(tt.in)
	}
	for _, tt := range canonicalTable {
		f.Add(tt.in)
	}
	for _, seeds := range [][]string{normalizeSeeds, fastCanonicalSeeds, fastNormalizeSeeds} {
		for _, s := range seeds {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// queryPairs sorts printable ASCII with icu.Compare rather than
		// icu.SortBy; sorting its output again with SortBy, which is
		// stable, must change nothing.
		pairs := queryPairs(nil, raw)
		resorted := slices.Clone(pairs)
		icu.SortBy(resorted,
			func(p queryPair) string { return p.key },
			func(p queryPair) string { return p.value })
		if !slices.Equal(pairs, resorted) {
			t.Fatalf("queryPairs(%q) = %q; icu.SortBy orders it %q", raw, pairs, resorted)
		}

		// Most mutations of a URL leave the fast path's shape, so raw is
		// also tried as a query, as whatever follows a host, and as a path.
		for _, in := range [...]string{
			raw,
			"https://example.com/p?" + raw,
			"http://Example.COM" + raw,
			"https://example.com/" + raw + "/",
		} {
			fast, ok := fastNormalize(in)
			if !ok {
				continue
			}
			slow, err := slowNormalize(in)
			if err != nil {
				t.Fatalf("fastNormalize(%q) = %q but the parser rejects it: %v", in, fast, err)
			}
			if fast != slow {
				t.Fatalf("fastNormalize(%q) = %q; slow path says %q", in, fast, slow)
			}
		}
	})
}

func BenchmarkCanonical(b *testing.B) {
	for name, in := range map[string]string{
		"fast": "https://www.example.org/reports/2024/17.pdf?id=9",
		"full": "https://Example.ORG:443/reports/../2024/17.pdf?id=9",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Canonical(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNormalize(b *testing.B) {
	inputs := []string{
		"https://Example.com:443/path/?b=2&a=1&utm_source=abc#frag",
		"https://example.com/research/2024/report.pdf",
		"https://news.example.org/articles/123?ref=home&utm_medium=social&id=9",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Normalize(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
}
