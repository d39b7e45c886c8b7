package engine

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
)

// fixtureEntry is one offline or online fixture, with absent fields omitted
// (its JSON form feeds the fixture digest, as in the reference).
type fixtureEntry struct {
	NormalizedURL   string `json:"normalized_url,omitempty"`
	URLOriginal     string `json:"url_original,omitempty"`
	CID             string `json:"cid,omitempty"`
	Status          string `json:"status,omitempty"`
	URL             string `json:"url,omitempty"`
	HTTPStatus      *int   `json:"http_status,omitempty"`
	Title           string `json:"title,omitempty"`
	Publisher       string `json:"publisher,omitempty"`
	EvidenceSnippet string `json:"evidence_snippet,omitempty"`
	Notes           string `json:"notes,omitempty"`
	CheckedAt       string `json:"checked_at,omitempty"`
}

// fixtureSet indexes fixtures three ways; later entries win, as in the reference.
type fixtureSet struct {
	entries        []fixtureEntry
	byNormalized   map[string]*fixtureEntry
	byOriginal     map[string]*fixtureEntry
	byCID          map[string]*fixtureEntry
	digest         string
	sourcePath     string
	loadedFromFile bool
	// warnings report the entries read leniently (see fixtureFrom), in
	// file order.
	warnings []string
	// pending is a {"<url>": "<status>"} file checked but not yet read
	// into entries (see statusMapSpans); ready reads it.
	pending *pendingStatusMap
}

type pendingStatusMap struct {
	kind  string
	data  []byte
	spans []jsonSpan
}

// ready reads a pending file into entries, warnings, indexes and digest —
// exactly what reading it at once gave; nothing in it can fail but the
// digest — and is a no-op otherwise. validate calls it before its first
// lookup.
func (f *fixtureSet) ready() error {
	if f == nil || f.pending == nil {
		return nil
	}
	p := f.pending
	f.pending = nil
	keys, statuses := statusMapStrings(p.data, p.spans)
	g := fixturesFromStatusMap(f.sourcePath, p.kind, keys, statuses)
	f.entries, f.warnings = g.entries, g.warnings
	return f.index()
}

func (f *fixtureSet) lookup(it URLMapItem) *fixtureEntry {
	if f == nil {
		return nil
	}
	if e := f.byNormalized[it.NormalizedURL]; e != nil {
		return e
	}
	if e := f.byOriginal[it.URLOriginal]; e != nil {
		return e
	}
	return f.byCID[it.CID]
}

type fixtureDigest struct {
	Schema string         `json:"schema"`
	Items  []fixtureEntry `json:"items"`
}

// loadFixtures reads a fixtures file in any of the reference's three shapes:
// an array of entries, {"items":[…]}, or a map normalized_url → entry|status.
// kind is "offline" or "online" and only shapes the messages.
//
// Fixtures are written by hand, so one bad entry does not refuse the file
// (see fixtureFrom): a value whose meaning is unambiguous is coerced, one
// that is not is dropped, and either way the set's warnings say so. Only a
// file that is not JSON, or whose top level is not an array or an object,
// is an error.
func loadFixtures(path, kind string) (*fixtureSet, error) {
	data, err := fsx.ReadLimited(path, maxJSONBytes)
	if err != nil {
		return nil, readError(kind+" fixtures", path, kind+"_fixtures_path missing", err)
	}
	if spans, ok := statusMapSpans(data); ok && statusMapUsable(data, spans) {
		if !spansNameURL(data, spans) {
			return nil, notFixtures(path, kind)
		}
		return &fixtureSet{sourcePath: path, loadedFromFile: true, pending: &pendingStatusMap{kind, data, spans}}, nil
	}
	f, err := fixturesFromDoc(path, kind, data)
	if err != nil {
		return nil, err
	}
	if !f.namesURL() {
		return nil, notFixtures(path, kind)
	}
	if err := f.index(); err != nil {
		return nil, err
	}
	return f, nil
}

// notFixtures refuses a file that is JSON but not a fixtures file — a
// credentials file, say — without a word of what it holds: its warnings
// would otherwise quote its keys and values.
func notFixtures(path, kind string) *Error {
	return newError(CodeSchemaValidation, kind+" fixtures file is not a fixtures file: none of its entries names a URL "+
		"(a key that is a URL, or normalized_url, url_original, url or cid). Its contents are not shown. "+
		"A fixtures file maps each cited URL to its status, e.g. {\"https://example.org/a\": \"valid\"}",
		map[string]any{"path": path, "schema": string(schema.Fixtures)})
}

// namesURL reports whether a file read by fixturesFromDoc is a fixtures
// file: empty, or with at least one entry that names a URL. Entries that
// name none match nothing, so a file of only those is not fixtures.
func (f *fixtureSet) namesURL() bool {
	if len(f.entries) == 0 && len(f.warnings) == 0 {
		return true
	}
	for _, e := range f.entries {
		if isURLish(e.NormalizedURL) || isURLish(e.URLOriginal) || isURLish(e.URL) || e.CID != "" {
			return true
		}
	}
	return false
}

// spansNameURL is namesURL for a {"<url>": "<status>"} file before it is
// read: empty, or some key is a URL.
func spansNameURL(data []byte, spans []jsonSpan) bool {
	for i := 0; i < len(spans); i += 2 {
		if isURLish(spans[i].value(data)) {
			return true
		}
	}
	return len(spans) == 0
}

// isURLish reports a string that reads as an absolute URL: a scheme of
// letters (digits, +, -, . after the first) followed by "://".
func isURLish(s string) bool {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(s), "://")
	if !ok || scheme == "" || rest == "" {
		return false
	}
	for i, c := range scheme {
		letter := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// fixturesFromDoc reads any of the three shapes from the decoded document
// (see loadFixtures).
func fixturesFromDoc(path, kind string, data []byte) (*fixtureSet, error) {
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, schemaError(kind+" fixtures", path, kind+" fixtures unreadable JSON", err)
	}
	f := &fixtureSet{sourcePath: path, loadedFromFile: true, entries: []fixtureEntry{}}
	// Warnings name the entry by its JSON pointer, in file order.
	warn := func(at, msg string) {
		f.warnings = append(f.warnings, fmt.Sprintf("%s fixtures %s: %s", kind, cmp.Or(at, "/"), msg))
	}
	add := func(m map[string]any, at string) {
		f.entries = append(f.entries, fixtureFrom(m, func(msg string) { warn(at, msg) }))
	}
	entries := func(items []any, prefix string) {
		for i, it := range items {
			at := prefix + "/" + strconv.Itoa(i)
			m, ok := it.(map[string]any)
			if !ok {
				warn(at, "entry is "+jsonKind(it)+", not an object: ignored")
				continue
			}
			add(m, at)
		}
	}
	switch v := doc.(type) {
	case []any:
		entries(v, "")
	case map[string]any:
		if items, ok := v["items"].([]any); ok {
			entries(items, "/items")
			break
		}
		// A map's order is its key order in the file, which Go maps lose.
		for _, k := range objectKeys(data) {
			// The key is a URL as the file spells it; warnings go to the
			// screen and the summary, so it is redacted there.
			shown, _ := netguard.RedactURL(k)
			at := "/" + pointerEscape(shown)
			switch e := v[k].(type) {
			case map[string]any:
				m := map[string]any{"normalized_url": k}
				for ek, ev := range e {
					m[ek] = ev
				}
				if nu, present := e["normalized_url"]; present && nu != nil {
					if _, ok := nu.(string); !ok {
						// The key is the URL; a mistyped override is noise.
						warn(at, "normalized_url is "+jsonKind(nu)+", not a string: the key is used")
						m["normalized_url"] = k
					}
				} else {
					m["normalized_url"] = k
				}
				add(m, at)
			case string:
				f.entries = append(f.entries, statusEntry(k, e, func(msg string) { warn(at, msg) }))
			default:
				warn(at, "entry is "+jsonKind(e)+", neither an object nor a status string: ignored")
			}
		}
	default:
		return nil, newError(CodeSchemaValidation, kind+" fixtures must be an array or an object",
			map[string]any{"path": path, "pointer": "", "schema": string(schema.Fixtures)})
	}
	return f, nil
}

// release drops the entries and indexes once every URL is decided, keeping
// what the artifacts still name (the source path, the digest).
func (f *fixtureSet) release() {
	if f == nil {
		return
	}
	f.entries, f.byNormalized, f.byOriginal, f.byCID = nil, nil, nil, nil
}

// emptyFixtureSet is the set of no fixtures (online mode without a replay
// file); its digest is the reference's digest of items:[].
func emptyFixtureSet() (*fixtureSet, error) {
	f := &fixtureSet{entries: []fixtureEntry{}}
	return f, f.index()
}

// index builds the lookup maps and the digest from f.entries.
func (f *fixtureSet) index() error {
	// Each map sized once by the entries that have its key.
	var nn, no, nc int
	for i := range f.entries {
		e := &f.entries[i]
		nn, no, nc = nn+min(len(e.NormalizedURL), 1), no+min(len(e.URLOriginal), 1), nc+min(len(e.CID), 1)
	}
	f.byNormalized = make(map[string]*fixtureEntry, nn)
	f.byOriginal = make(map[string]*fixtureEntry, no)
	f.byCID = make(map[string]*fixtureEntry, nc)
	for i := range f.entries {
		e := &f.entries[i]
		if e.NormalizedURL != "" {
			f.byNormalized[e.NormalizedURL] = e
		}
		if e.URLOriginal != "" {
			f.byOriginal[e.URLOriginal] = e
		}
		if e.CID != "" {
			f.byCID[e.CID] = e
		}
	}
	d, err := jsonx.Digest(fixtureDigest{Schema: "citations_validate.offline_fixtures.v1", Items: f.entries})
	if err != nil {
		return err
	}
	f.digest = d
	return nil
}

// fixtureStringFields are the entry fields read as strings, in the order
// their problems are reported.
var fixtureStringFields = []string{"normalized_url", "url_original", "cid", "status", "url", "title", "publisher", "evidence_snippet", "notes", "checked_at"}

// fixtureFrom reads one entry as the reference does — strings trimmed and
// kept when non-empty, http_status kept when a finite number, truncated —
// and, where the reference silently dropped a mistyped value, coerces what
// is unambiguous and reports the rest through warn:
//   - a number where a string belongs is read as its decimal text;
//   - http_status given as a string ("200") is read as null, as the
//     reference reads it; a fractional number is truncated;
//   - a status that is not one of the five is kept (the URL it matches is
//     marked invalid, as in the reference) and reported, as is a missing one;
//   - anything else mistyped (booleans, objects, arrays, other strings) is
//     dropped. null means absent and is not reported.
func fixtureFrom(m map[string]any, warn func(string)) fixtureEntry {
	v := map[string]string{}
	for _, k := range fixtureStringFields {
		switch x := m[k].(type) {
		case nil:
		case string:
			v[k] = strings.TrimSpace(x)
		case json.Number:
			v[k] = x.String()
			warn(fmt.Sprintf("%s %s is a number: read as the string %q", k, x, x.String()))
		case float64:
			v[k] = strconv.FormatFloat(x, 'f', -1, 64)
			warn(fmt.Sprintf("%s %s is a number: read as the string %q", k, v[k], v[k]))
		default:
			warn(fmt.Sprintf("%s is %s, not a string: ignored", k, jsonKind(x)))
		}
	}
	e := fixtureEntry{
		NormalizedURL: v["normalized_url"], URLOriginal: v["url_original"], CID: v["cid"],
		Status: v["status"], URL: v["url"], Title: v["title"], Publisher: v["publisher"],
		EvidenceSnippet: v["evidence_snippet"], Notes: v["notes"], CheckedAt: v["checked_at"],
	}
	warnStatus(e.Status, warn)
	e.HTTPStatus = fixtureHTTPStatus(m["http_status"], warn)
	return e
}

// warnStatus reports a fixture status that marks its URL invalid.
func warnStatus(status string, warn func(string)) {
	switch {
	case status == "":
		warn("no status: a URL it matches is marked invalid")
	case !Status(status).Known():
		warn(fmt.Sprintf("status %q is not one of valid, paywalled, blocked, mismatch, invalid: a URL it matches is marked invalid",
			netguard.RedactText(status)))
	}
}

// statusEntry is the entry a "<url>": "<status>" member of the map shape
// gives (what fixtureFrom gives for {"normalized_url": url, "status":
// status}).
func statusEntry(url, status string, warn func(string)) fixtureEntry {
	e := fixtureEntry{NormalizedURL: strings.TrimSpace(url), Status: strings.TrimSpace(status)}
	warnStatus(e.Status, warn)
	return e
}

// statusMap reads the commonest hand-written shape, {"<url>": "<status>",
// …}, in one pass, keeping the file's key order; ok is false for anything
// else — a value that is not a string, a repeated key, an "items" key,
// data after the object, JSON that does not parse — which the general
// reader (decode, then objectKeys for the order) handles and reports.
func statusMap(data []byte) (keys, statuses []string, ok bool) {
	spans, ok := statusMapSpans(data)
	if !ok || !statusMapUsable(data, spans) {
		return nil, nil, false
	}
	keys, statuses = statusMapStrings(data, spans)
	return keys, statuses, true
}

// jsonSpan is where a JSON string's contents lie in a document (between
// its quotes); escaped marks one that must be decoded (escapes, or bytes
// that are not UTF-8) rather than read as it is.
type jsonSpan struct {
	start, end int
	escaped    bool
}

func (sp jsonSpan) value(data []byte) string {
	if !sp.escaped {
		return string(data[sp.start:sp.end])
	}
	var v string
	_ = json.Unmarshal(data[sp.start-1:sp.end+1], &v) // checked by jsonStringSpan
	return v
}

// statusMapSpans checks that data is a JSON object whose values are all
// strings and returns its strings' spans, key and value alternately. It
// holds no pointers into the data: a run keeps a fixtures file in this form
// until validate needs its entries (see fixtureSet.ready), so the
// collector, which runs a dozen times while the waves are parsed, does not
// trace 20,000 entries each time.
func statusMapSpans(data []byte) ([]jsonSpan, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	// Every entry but the last is followed by a comma (commas inside
	// strings only make this an overestimate): sized once, not grown. An
	// entry takes at least six bytes, and a file of commas must not
	// reserve gigabytes, so the estimate is capped.
	n := min(bytes.Count(data, []byte{','})+1, len(data)/6+1, 1<<16)
	spans := make([]jsonSpan, 0, 2*n)
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return spans, skipSpace(data, i+1) == len(data)
	}
	for {
		k, next, isString := jsonStringSpan(data, i)
		if !isString {
			return nil, false
		}
		i = skipSpace(data, next)
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}
		v, next, isString := jsonStringSpan(data, skipSpace(data, i+1))
		if !isString {
			return nil, false
		}
		spans = append(spans, k, v)
		i = skipSpace(data, next)
		if i >= len(data) {
			return nil, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return spans, skipSpace(data, i+1) == len(data)
		default:
			return nil, false
		}
	}
}

// statusMapUsable reports that no key repeats and none is "items" (shapes
// the general reader handles). Keys are compared by hash, without a string
// per key; a hash shared by two different keys also answers false, which
// only sends the file to the general reader, whose reading of a status map
// is the same (TestStatusMapMatchesGeneralReader).
func statusMapUsable(data []byte, spans []jsonSpan) bool {
	seed := maphash.MakeSeed()
	seen := make(map[uint64]bool, len(spans)/2)
	for i := 0; i < len(spans); i += 2 {
		k := data[spans[i].start:spans[i].end]
		if spans[i].escaped {
			k = []byte(spans[i].value(data))
		}
		h := maphash.Bytes(seed, k)
		if string(k) == "items" || seen[h] {
			return false
		}
		seen[h] = true
	}
	return true
}

// statusMapStrings reads the keys and statuses statusMapSpans found.
func statusMapStrings(data []byte, spans []jsonSpan) (keys, statuses []string) {
	if len(spans) == 0 {
		return nil, nil
	}
	keys, statuses = make([]string, 0, len(spans)/2), make([]string, 0, len(spans)/2)
	for i := 0; i < len(spans); i += 2 {
		keys, statuses = append(keys, spans[i].value(data)), append(statuses, spans[i+1].value(data))
	}
	return keys, statuses
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// jsonStringSpan reads the JSON string starting at data[i]: its span, the
// index after its closing quote, and false if there is no valid string
// there. A string without escapes that is valid UTF-8 is its own bytes; any
// other is checked now and decoded by encoding/json when read, so its value
// is exactly what Unmarshal gives.
func jsonStringSpan(data []byte, i int) (jsonSpan, int, bool) {
	if i >= len(data) || data[i] != '"' {
		return jsonSpan{}, i, false
	}
	plain := true
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			sp := jsonSpan{start: i + 1, end: j, escaped: !plain || !utf8.Valid(data[i+1:j])}
			if sp.escaped {
				var v string
				if json.Unmarshal(data[i:j+1], &v) != nil {
					return jsonSpan{}, j, false
				}
			}
			return sp, j + 1, true
		case c == '\\':
			plain = false
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			return jsonSpan{}, j, false
		}
	}
	return jsonSpan{}, len(data), false
}

// fixturesFromStatusMap builds the set statusMap read; a warning names its
// entry by JSON pointer (the key redacted), computed only when needed.
func fixturesFromStatusMap(path, kind string, keys, statuses []string) *fixtureSet {
	f := &fixtureSet{sourcePath: path, loadedFromFile: true, entries: make([]fixtureEntry, 0, len(keys))}
	for i, k := range keys {
		f.entries = append(f.entries, statusEntry(k, statuses[i], func(msg string) {
			shown, _ := netguard.RedactURL(k)
			f.warnings = append(f.warnings, fmt.Sprintf("%s fixtures %s: %s", kind, "/"+pointerEscape(shown), msg))
		}))
	}
	return f
}

// fixtureHTTPStatus reads an entry's http_status (see fixtureFrom).
func fixtureHTTPStatus(x any, warn func(string)) *int {
	var f float64
	switch n := x.(type) {
	case nil:
		return nil
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			warn(fmt.Sprintf("http_status %s is out of range: ignored", n))
			return nil
		}
	case float64:
		f = n
	case string:
		// The reference keeps only a JSON number: "200" is absent there,
		// and so here, or a hand edit would change the record and the
		// digests. The warning says how to write what was meant.
		msg := fmt.Sprintf("http_status %q is a string, not a number: read as null, as the reference reads it", netguard.RedactText(n))
		if code, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && code >= 100 && code <= 599 {
			msg += fmt.Sprintf(" (write %d without quotes)", code)
		}
		warn(msg)
		return nil
	default:
		warn(fmt.Sprintf("http_status is %s, not a number: ignored", jsonKind(n)))
		return nil
	}
	if math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) >= 1e9 {
		warn(fmt.Sprintf("http_status %v is out of range: ignored", x))
		return nil
	}
	code := int(math.Trunc(f))
	if float64(code) != f {
		warn(fmt.Sprintf("http_status %v is not an integer: read as %d", x, code))
	}
	return &code
}

// jsonKind names a decoded JSON value's type for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// pointerEscape escapes a JSON pointer reference token (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// decodeJSON decodes data, which must be exactly one JSON value, with
// numbers as json.Number; failures wrap schema.ErrInvalidJSON.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %w", schema.ErrInvalidJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON value", schema.ErrInvalidJSON)
	}
	return doc, nil
}

// objectKeys returns the top-level keys of a JSON object in file order.
func objectKeys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		keys = append(keys, k)
	}
	return keys
}

// runOfflineFixtures is the run's own offline fixtures file,
// <runRoot>/offline-fixtures.json (what init --fixtures-template writes),
// when it exists, else "": the default of run, and of validate in offline
// mode. It lies in the run directory the operator set up, so no client of
// the MCP server chooses it.
func runOfflineFixtures(run *RunDir) (string, error) {
	def := filepath.Join(run.Root, "offline-fixtures.json")
	if _, err := os.Stat(def); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", readError("offline fixtures", def, "offline_fixtures_path missing", err)
	}
	return def, nil
}
