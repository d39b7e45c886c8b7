package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/citegate/citegate/netguard"
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
		items, err := scanFile(bg, dir, waveFile{wave: "wave-1", abs: wave}, netguard.RedactText)
		if err != nil || len(items) != 8000 {
			b.Fatalf("%d items, %v", len(items), err)
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
