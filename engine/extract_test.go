package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// manyLinksLine is one Sources line with n bare URLs (about 28 bytes each).
func manyLinksLine(n int) string {
	var b strings.Builder
	b.WriteString("- ")
	for i := range n {
		fmt.Fprintf(&b, "https://s%d.example.com/p ", i)
	}
	return b.String()
}

// countingRedactor wraps netguard.RedactText, counting calls and calling
// then (if set) after each.
type countingRedactor struct {
	calls atomic.Int64
	then  func(n int64)
}

func (c *countingRedactor) redact(s string) string {
	n := c.calls.Add(1)
	if c.then != nil {
		c.then(n)
	}
	return netguard.RedactText(s)
}

// TestExtractRedactsEachLineOnce is issue 10 item 6: RedactText ran over the
// whole line once per link, so 8,000 URLs on one 220 KB line took 43 s. Its
// calls are now one per line that holds a link, however many links it has.
func TestExtractRedactsEachLineOnce(t *testing.T) {
	const n = 5000
	r := newRun(t, runSpec{Files: map[string]string{
		"wave-1/p1.md": "# P1\n\n## Sources\n\n" + manyLinksLine(n) + "\n- https://other.example.com/x\n",
		"wave-1/p2.md": "# P2\n\n## Sources\n\n- [A](https://a.example/1) [B](https://b.example/2)\n",
	}})
	var c countingRedactor
	e := newEngine()
	e.redactText = c.redact
	res, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalFound != n+3 {
		t.Errorf("total_found = %d; want %d", res.TotalFound, n+3)
	}
	if got := c.calls.Load(); got != 3 {
		t.Errorf("RedactText ran %d times for 3 lines with links; want 3", got)
	}
}

// BenchmarkExtractManyLinksOneLine is the case: 8,000 URLs on one
// line of about 220 KB (43 s before the fix).
func BenchmarkExtractManyLinksOneLine(b *testing.B) {
	dir := b.TempDir()
	wave := filepath.Join(dir, "p1.md")
	if err := os.WriteFile(wave, []byte("## Sources\n\n"+manyLinksLine(8000)+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		found, err := scanFile(bg, dir, waveFile{wave: "wave-1", abs: wave}, parse.SourcesOptions{}, netguard.RedactTextKnown, false)
		if err != nil || len(found.links) != 8000 {
			b.Fatalf("%d items, %v", len(found.links), err)
		}
	}
}

// TestExtractStopsWhenCancelled: cancelling in the middle of a large
// extraction ends it promptly with the CANCELLED envelope and nothing
// written (item 6: a 7 MB line ran for minutes and ignored SIGINT).
func TestExtractStopsWhenCancelled(t *testing.T) {
	var lines strings.Builder
	const n = 20000
	for i := range n {
		fmt.Fprintf(&lines, "- https://s%d.example.com/p\n", i)
	}
	for _, tc := range []struct {
		name  string
		after int64 // cancel after this many lines were redacted; 0: before starting
	}{{"up front", 0}, {"midway", 100}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, runSpec{Files: map[string]string{"wave-1/p1.md": "## Sources\n\n" + lines.String()}})
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			if tc.after == 0 {
				cancel()
			}
			c := countingRedactor{then: func(n int64) {
				if n == tc.after {
					cancel()
				}
			}}
			e := newEngine()
			e.redactText = c.redact
			_, err := e.Extract(ctx, ExtractArgs{ManifestPath: r.Manifest, Reason: "test"})
			if err == nil || AsError(err).Code != CodeCancelled {
				t.Errorf("err = %v; want CANCELLED", err)
			}
			// The scan checks ctx every 1,024 links.
			if got := c.calls.Load(); got > tc.after+1024 {
				t.Errorf("%d lines redacted after cancelling at %d; want at most 1,024 more", got, tc.after)
			}
			if _, err := os.Stat(r.cit("found-by.json")); !os.IsNotExist(err) {
				t.Errorf("found-by.json written after cancellation (%v)", err)
			}
		})
	}
}

// TestExtractRefusesPathologicalWave: a wave file beyond a parser limit is
// an INVALID_INPUT error naming the file, the line and the reason (item 7).
func TestExtractRefusesPathologicalWave(t *testing.T) {
	r := newRun(t, runSpec{Files: map[string]string{
		"wave-1/p1.md": "# P1\n\n## Sources\n\n- https://a.example/\n",
		"wave-1/p2.md": "# P2\n\n## Sources\n\n" + strings.Repeat("> ", 200) + "https://b.example/\n",
	}})
	_, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err == nil {
		t.Fatal("no error")
	}
	ae := AsError(err)
	if ae.Code != CodeInvalidInput || ae.Message != "wave file too complex to parse" ||
		ae.Details["path"] != r.path("wave-1/p2.md") || ae.Details["line"] != 5 ||
		!strings.Contains(fmt.Sprint(ae.Details["reason"]), "nested more than 64 deep") {
		t.Fatalf("err = %v %v", err, mustJSON(t, ae))
	}
}

// waveDirEntries builds, in wave-1 of a fresh run, one of each entry that
// the walk does not read, beside one ordinary wave file (item 8). Nothing
// outside the temp dir is touched.
func waveDirEntries(t *testing.T) testRun {
	t.Helper()
	r := newRun(t, runSpec{Files: map[string]string{
		"wave-1/p1.md":        "# P1\n\n## Sources\n\n- https://example.org/a\n",
		"elsewhere/p9.md":     "# P9\n\n## Sources\n\n- https://example.org/elsewhere\n",
		"elsewhere/sub/p8.md": "# P8\n\n## Sources\n\n- https://example.org/sub\n",
	}})
	w := r.path("wave-1")
	for name, target := range map[string]string{
		"p2.md":   r.path("elsewhere/p9.md"), // a symlinked wave file
		"p3.md":   r.path("elsewhere/missing.md"),
		"p4.md":   filepath.Join(w, "p5.md"), // a loop: p4 → p5 → p4
		"p5.md":   filepath.Join(w, "p4.md"),
		"sub":     r.path("elsewhere/sub"),   // a symlinked directory
		"notes":   r.path("elsewhere/p9.md"), // not a wave file name: ignored
		"loopdir": w,                         // a directory loop
	} {
		if err := os.Symlink(target, filepath.Join(w, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(w, "p6.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return r
}

var waveDirWarnings = []string{
	"wave-1/loopdir: symlink to a directory; not read, its URLs are not extracted",
	"wave-1/p2.md: symlink; not read, its URLs are not extracted",
	"wave-1/p3.md: dangling symlink; not read, its URLs are not extracted",
	"wave-1/p4.md: symlink loop; not read, its URLs are not extracted",
	"wave-1/p5.md: symlink loop; not read, its URLs are not extracted",
	"wave-1/p6.md: named pipe (FIFO); not read, its URLs are not extracted",
	"wave-1/sub: symlink to a directory; not read, its URLs are not extracted",
}

// TestExtractWarnsAboutSkippedEntries is issue 10 item 8: symlinked wave
// files, dangling links, loops and FIFOs were skipped silently, so Gate C
// ran on a subset. They are still not read (a link may lead out of the run
// root; a FIFO blocks), but each is named in the result and the audit log.
func TestExtractWarnsAboutSkippedEntries(t *testing.T) {
	r := waveDirEntries(t)
	res, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalFound != 1 || !slices.Equal(res.Warnings, waveDirWarnings) {
		t.Errorf("total_found %d, warnings:\n%s\nwant\n%s", res.TotalFound, strings.Join(res.Warnings, "\n"), strings.Join(waveDirWarnings, "\n"))
	}
	var line struct {
		Kind     string   `json:"kind"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(readFile(t, r.path("logs/audit.jsonl")))), &line); err != nil {
		t.Fatal(err)
	}
	if line.Kind != "citations_extract_urls" || !slices.Equal(line.Warnings, waveDirWarnings) {
		t.Errorf("audit line %+v", line)
	}
}

// TestRunWarnsAboutSkippedEntries: the run summary's warnings and the
// run's audit and events carry the same warnings.
func TestRunWarnsAboutSkippedEntries(t *testing.T) {
	r := waveDirEntries(t)
	writeFile(t, r.path("offline-fixtures.json"), `{"https://example.org/a": "valid"}`)
	sum, events, err := collect(t, newEngine(), bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Warnings, waveDirWarnings) {
		t.Errorf("summary warnings:\n%s", strings.Join(sum.Warnings, "\n"))
	}
	var evs []string
	for _, ev := range events {
		if ev.Kind == EventWarning {
			evs = append(evs, ev.Detail)
		}
	}
	if !slices.Equal(evs, waveDirWarnings) {
		t.Errorf("warning events:\n%s", strings.Join(evs, "\n"))
	}
	if audit := readFile(t, r.path("logs/audit.jsonl")); !strings.Contains(audit, `"wave-1/p6.md: named pipe (FIFO); not read, its URLs are not extracted"`) {
		t.Errorf("audit log lacks the warnings:\n%s", audit)
	}
}

// TestExtractNoWarningsByDefault: an ordinary run's result and audit line
// are as before, with no warnings key.
func TestExtractNoWarningsByDefault(t *testing.T) {
	r := newRun(t, runSpec{Files: map[string]string{"wave-1/p1.md": "## Sources\n\n- https://example.org/a\n"}})
	res, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Warnings != nil || strings.Contains(readFile(t, r.path("logs/audit.jsonl")), "warnings") ||
		strings.Contains(mustJSON(t, res), "warnings") {
		t.Errorf("warnings where there are none: %+v", res)
	}
}

// TestLinkTextPerLink is issue 10 item 13: the second link on a Sources line
// got the first link's text, which the classifier compares with the page.
// Each citation now carries its own link's text, whether the provenance is
// in memory (run), recovered from the wave files (validate), or only the
// stored source line is left.
func TestLinkTextPerLink(t *testing.T) {
	r := newRun(t, runSpec{Files: map[string]string{"wave-1/p1.md": "# P1\n\n## Sources\n\n" +
		"- [Alpha report](https://a.example/1) and [Beta *study*](https://b.example/2), also https://c.example/3\n"}})
	run, err := LoadRun(r.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	x, err := newEngine().extract(bg, run, true, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"https://a.example/1": "Alpha report", "https://b.example/2": "Beta study", "https://c.example/3": ""}
	var work []workItem
	for _, u := range x.unique {
		work = append(work, workItem{rep: URLMapItem{URLOriginal: u, NormalizedURL: u}, originals: []string{u}})
	}
	forWork, first := provenance(work, x.foundBy.Items)
	recovered, recoveredTexts := recoverOriginals(bg, run, x.foundBy.Items, nil)
	for _, lc := range []struct {
		name string
		lc   liveContext
	}{
		{"run", liveContext{originals: x.raw, texts: x.texts}},
		{"validate", liveContext{originals: recovered, texts: recoveredTexts}},
		{"source line only", liveContext{}},
	} {
		for i, w := range work {
			u := w.rep.URLOriginal
			it := newLiveItem(i, w, lc.lc, forWork[i], first[i])
			if it.Citation.LinkText != want[u] {
				t.Errorf("%s: %s has link text %q; want %q", lc.name, u, it.Citation.LinkText, want[u])
			}
			if !strings.HasPrefix(it.Citation.SourceLine, "- [Alpha report]") {
				t.Errorf("%s: %s source line %q", lc.name, u, it.Citation.SourceLine)
			}
		}
	}
}

// lineSeen keeps the per-line dedupe of the map it replaced: a URL repeated
// on its line is dropped, the same URL on another line kept, and a line with
// more links than the short list holds still dedupes.
func TestLineSeen(t *testing.T) {
	var s lineSeen
	steps := []struct {
		line int
		url  string
		want bool
	}{{1, "a", true}, {1, "b", true}, {1, "a", false}, {2, "a", true}, {2, "a", false}, {3, "b", true}}
	for i, st := range steps {
		if got := s.add(st.line, st.url); got != st.want {
			t.Fatalf("step %d: add(%d, %q) = %v", i, st.line, st.url, got)
		}
	}
	for round := range 2 {
		for i := range 100 {
			if got := s.add(4, fmt.Sprint(i)); got != (round == 0) {
				t.Fatalf("round %d: add(4, %d) = %v", round, i, got)
			}
		}
	}
	if !s.add(5, "0") {
		t.Fatal("a new line starts empty")
	}
}

// scanFile keeps each item's strings as spans of one buffer per file: a URL
// written as it is shares its line's bytes, while one the parse rewrote (an
// upper-case host), one redaction changed (its raw form keeps the secret),
// and one cut off with its long line each get bytes of their own. Every
// item must read back exactly.
func TestScanFileSpans(t *testing.T) {
	dir := t.TempDir()
	long := "- " + strings.Repeat("word ", 120) + "https://d.example/tail"
	src := "## Sources\n\n" +
		"- https://a.example/x and https://b.example/y\n" +
		"- https://WWW.C.example/Path\n" +
		"- https://e.example/p?token=sk-abcdefghijklmnopqrstuvwx\n" +
		long + "\n"
	wave := filepath.Join(dir, "p1.md")
	if err := os.WriteFile(wave, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	found, err := scanFile(bg, dir, waveFile{wave: "wave-1", abs: wave}, parse.SourcesOptions{}, netguard.RedactTextKnown, false)
	if err != nil {
		t.Fatal(err)
	}
	cut := truncate(long, maxSourceLine)
	want := []FoundByItem{
		{URLOriginal: "https://a.example/x", SourceLine: "- https://a.example/x and https://b.example/y", raw: "https://a.example/x"},
		{URLOriginal: "https://b.example/y", SourceLine: "- https://a.example/x and https://b.example/y", raw: "https://b.example/y"},
		{URLOriginal: "https://www.c.example/Path", SourceLine: "- https://WWW.C.example/Path", raw: "https://www.c.example/Path"},
		{URLOriginal: "https://e.example/p?token=%5BREDACTED%5D", SourceLine: "- https://e.example/p?token=%5BREDACTED%5D",
			raw: "https://e.example/p?token=sk-abcdefghijklmnopqrstuvwx"},
		{URLOriginal: "https://d.example/tail", SourceLine: cut, raw: "https://d.example/tail"},
	}
	if strings.Contains(cut, "https://d.example/tail") {
		t.Fatal("the long line must be cut before its URL for this test")
	}
	blob := found.blob.String()
	if len(found.links) != len(want) {
		t.Fatalf("%d items, want %d", len(found.links), len(want))
	}
	for i, w := range want {
		w.Wave, w.PerspectiveID, w.ArtifactPath, w.Ordinal = "wave-1", "p1", "p1.md", i+1
		if got := found.item(blob, i); got != w {
			t.Errorf("item %d:\n got  %+v\n want %+v", i, got, w)
		}
	}
	// The line shared by two URLs is in the buffer once.
	if n := strings.Count(blob, "https://a.example/x and"); n != 1 {
		t.Errorf("shared line stored %d times", n)
	}
}
