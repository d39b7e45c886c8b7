package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/gate"
	"github.com/citegate/citegate/ui/internal/uitest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/citegate/citegate/engine"
	"github.com/muesli/termenv"
)

// TestMain pins the default renderer to Ascii: screens in these tests (and
// the goldens) are plain text whatever terminal runs them.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// FIXTURES

// fakeClock is the injectable clock; the model's copies share the pointer.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// The scripted run: five URLs, one per status, plus one still in flight.
const (
	uValid     = "https://www.example.org/a"
	uPaywalled = "https://news.bbc.co.uk/story"
	uBlocked   = "https://blocked.example.com/x"
	uMismatch  = "https://mismatch.test/p"
	uInvalid   = "https://gone.example.net/404"
	uSlow      = "https://slow.example.io/q"
)

var scriptURLs = []string{uValid, uPaywalled, uBlocked, uMismatch, uInvalid, uSlow}

func cidOf(u string) string {
	for i, s := range scriptURLs {
		if s == u {
			return fmt.Sprintf("cid_%02d", i+1)
		}
	}
	return "cid_" + u
}

func indexOf(u string) int {
	for i, s := range scriptURLs {
		if s == u {
			return i
		}
	}
	return 0
}

func queued(u string, total int) engine.Event {
	return engine.Event{Kind: engine.EventQueued, Index: indexOf(u), Total: total, URL: u, CID: cidOf(u)}
}

func attempt(u, rung string, n int) engine.Event {
	return engine.Event{Kind: engine.EventAttempt, Index: indexOf(u), URL: u, CID: cidOf(u), Rung: rung, Attempt: n}
}

func attemptDone(u, rung string, n int, took time.Duration, detail string, http int) engine.Event {
	return engine.Event{Kind: engine.EventAttemptDone, Index: indexOf(u), URL: u, CID: cidOf(u), Rung: rung, Attempt: n,
		Elapsed: took, Detail: detail, HTTPStatus: http}
}

func retryWait(u, rung string, n int, d time.Duration, why string) engine.Event {
	return engine.Event{Kind: engine.EventRetryWait, Index: indexOf(u), URL: u, CID: cidOf(u), Rung: rung, Attempt: n,
		Wait: d, Detail: why}
}

func finished(u, rung string, c engine.Citation, redirects ...string) engine.Event {
	c.NormalizedURL, c.CID = u, cidOf(u)
	if c.URL == "" {
		c.URL = u
	}
	if c.CheckedAt == "" {
		c.CheckedAt = "2026-01-02T03:04:10Z"
	}
	if c.FoundBy == nil {
		c.FoundBy = []engine.FoundByEntry{{Wave: 1, PerspectiveID: "p1", AgentType: "researcher", ArtifactPath: "wave-1/p1.md", SourceLine: "- " + u}}
	}
	return engine.Event{Kind: engine.EventFinished, Index: indexOf(u), URL: u, CID: cidOf(u), Rung: rung,
		Redirects: redirects, Citation: &c}
}

func intp(n int) *int { return &n }

// validCitation is the richly filled one the detail view is checked on.
func validCitation() engine.Citation {
	return engine.Citation{
		Status: engine.StatusValid, URL: "https://www.example.org/a/", URLOriginal: "http://example.org/a?utm_source=x",
		HTTPStatus: intp(200), Title: "Example Domain", Publisher: "Example Org",
		Notes:           "direct_fetch: ok: html after 1 redirect",
		EvidenceSnippet: "This domain is for use in illustrative examples in documents.",
		FoundBy: []engine.FoundByEntry{
			{Wave: 1, PerspectiveID: "p-econ", AgentType: "researcher", ArtifactPath: "wave-1/p-econ.md", SourceLine: "- [Example](http://example.org/a?utm_source=x)"},
			{Wave: 2, PerspectiveID: "p-law", AgentType: "reviewer", ArtifactPath: "wave-2/p-law.md", SourceLine: "see http://example.org/a"},
		},
	}
}

// harness drives a Model by calling Update directly.
type harness struct {
	t   *testing.T
	m   Model
	ch  chan engine.Event
	clk *fakeClock
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	clk := newClock()
	opts.Now = clk.Now
	if opts.RunID == "" {
		opts.RunID, opts.Mode, opts.Tier = "run-0001", "offline", "standard"
	}
	ch := make(chan engine.Event)
	h := &harness{t: t, m: NewModel(ch, opts), ch: ch, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	return h
}

// send runs one message through Update and returns its command.
func (h *harness) send(msg tea.Msg) tea.Cmd {
	h.t.Helper()
	m, cmd := h.m.Update(msg)
	h.m = m.(Model)
	return cmd
}

// events delivers a batch as waitForEvents would, after advancing the clock.
func (h *harness) events(after time.Duration, evs ...engine.Event) {
	h.t.Helper()
	h.clk.advance(after)
	h.send(eventsMsg{src: h.m.events, events: evs})
}

func (h *harness) key(k string) {
	h.t.Helper()
	h.send(keyMsg(k))
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func (h *harness) view() string { return h.m.View() }

// rowLine returns the screen line showing u's domain.
func (h *harness) rowLine(domain string) string {
	h.t.Helper()
	for _, ln := range strings.Split(h.view(), "\n") {
		if strings.Contains(ln, " "+domain+" ") {
			return ln
		}
	}
	h.t.Fatalf("no row for %s in:\n%s", domain, h.view())
	return ""
}

// script plays the whole scripted run: queued → attempts → retry wait →
// finished for each status, leaving uSlow in flight.
func (h *harness) script() {
	h.events(0, engine.Event{Kind: engine.EventStage, Stage: "validate"})
	evs := []engine.Event{}
	for _, u := range scriptURLs {
		evs = append(evs, queued(u, len(scriptURLs)))
	}
	h.events(0, evs...)
	h.events(100*time.Millisecond,
		attempt(uValid, "direct_fetch", 1), attempt(uPaywalled, "direct_fetch", 1), attempt(uBlocked, "direct_fetch", 1),
		attempt(uMismatch, "direct_fetch", 1), attempt(uInvalid, "direct_fetch", 1))
	h.events(1200*time.Millisecond,
		attemptDone(uValid, "direct_fetch", 1, 1200*time.Millisecond, "http 503", 503),
		retryWait(uValid, "direct_fetch", 1, 2*time.Second, "http 503"),
		attemptDone(uPaywalled, "direct_fetch", 1, 900*time.Millisecond, "ok: paywall", 200),
		finished(uPaywalled, "direct_fetch", engine.Citation{Status: engine.StatusPaywalled, HTTPStatus: intp(200),
			Title: "BBC story behind a wall", Notes: "paywall marker"}),
		attemptDone(uBlocked, "direct_fetch", 1, 300*time.Millisecond, "http 403", 403),
		attempt(uBlocked, "bright_data", 1),
		attemptDone(uMismatch, "direct_fetch", 1, 450*time.Millisecond, "ok: html", 200),
		finished(uMismatch, "direct_fetch", engine.Citation{Status: engine.StatusMismatch, HTTPStatus: intp(200),
			Title: "Something else entirely", Notes: "title does not match the citation"}),
		attemptDone(uInvalid, "direct_fetch", 1, 210*time.Millisecond, "http 404", 404),
		finished(uInvalid, "direct_fetch", engine.Citation{Status: engine.StatusInvalid, HTTPStatus: intp(404), Notes: "http 404"}),
	)
	h.events(2*time.Second,
		attempt(uValid, "direct_fetch", 2),
		attemptDone(uBlocked, "bright_data", 1, 1500*time.Millisecond, "provider quota", 0),
		finished(uBlocked, "bright_data", engine.Citation{Status: engine.StatusBlocked, HTTPStatus: intp(403), Notes: "blocked: 403 and provider quota"}),
		attempt(uSlow, "direct_fetch", 1),
	)
	h.events(340*time.Millisecond,
		attemptDone(uValid, "direct_fetch", 2, 340*time.Millisecond, "ok: html", 200),
		finished(uValid, "direct_fetch", validCitation(), "http://example.org/a?utm_source=x", "https://example.org/a"),
	)
	h.clk.advance(500 * time.Millisecond)
}

// finishSlow completes the in-flight URL with the given status.
func (h *harness) finishSlow(s engine.Status) {
	h.events(0, attemptDone(uSlow, "direct_fetch", 1, time.Second, "ok: html", 200),
		finished(uSlow, "direct_fetch", engine.Citation{Status: s, HTTPStatus: intp(200), Title: "Slow page"}))
}

// complete closes the stream and delivers an outcome.
func (h *harness) complete(o Outcome, oc chan Outcome) {
	h.t.Helper()
	cmd := h.send(streamClosedMsg{src: h.m.events})
	if cmd == nil {
		h.t.Fatal("no command to wait for the outcome")
	}
	oc <- o
	h.send(cmd())
}

func sampleSummary(status string) *engine.RunSummary {
	blocked := "/runs/r1/citations/blocked-urls.json"
	return &engine.RunSummary{
		OK: true, RunID: "run-0001", Mode: "offline", ValidationTier: "standard",
		Artifacts: engine.RunArtifacts{
			ExtractedURLs: "/runs/r1/citations/extracted-urls.txt", FoundBy: "/runs/r1/citations/found-by.json",
			NormalizedURLs: "/runs/r1/citations/normalized-urls.txt", URLMap: "/runs/r1/citations/url-map.json",
			Citations: "/runs/r1/citations/citations.jsonl", Gates: "/runs/r1/gates.json",
			Report: "/runs/r1/citations/validated-citations.md", Audit: "/runs/r1/logs/audit.jsonl",
			BlockedURLs: &blocked,
		},
		Counts: engine.Counts{Valid: 2, Paywalled: 1, Blocked: 1, Mismatch: 1, Invalid: 1},
		GateC: engine.GateCSummary{Status: status, Metrics: gate.Metrics{ValidatedURLRate: 0.5, InvalidURLRate: 0.5},
			Notes: "Gate C " + status + ": 3/6 validated, 3 invalid, 0 uncategorized.",
			Line:  "Gate C " + status + ": 3/6 validated; must not cite: 1 invalid, 1 blocked, 1 mismatch; 0 uncategorized."},
	}
}

// UNIT TESTS: Update and View

func TestRowsShowEveryStatus(t *testing.T) {
	h := newHarness(t, Options{})
	h.script()
	for _, tc := range []struct{ domain, want string }{
		{"example.org", "✓ valid"},
		{"news.bbc.co.uk", "$ paywalled"},
		{"blocked.example.com", "⊘ blocked"},
		{"mismatch.test", "≠ mismatch"},
		{"gone.example.net", "✗ invalid"},
		{"slow.example.io", "checking"},
	} {
		if ln := h.rowLine(tc.domain); !strings.Contains(ln, tc.want) {
			t.Errorf("row %s = %q, want %q", tc.domain, ln, tc.want)
		}
	}
	valid := h.rowLine("example.org")
	for _, want := range []string{"direct_fetch #2", " 200 ", "3.5s", "Example Domain"} {
		if !strings.Contains(valid, want) {
			t.Errorf("valid row %q lacks %q", valid, want)
		}
	}
	if strings.Contains(valid, "www.") {
		t.Errorf("domain keeps www.: %q", valid)
	}
	// The in-flight row has the spinner, its rung and attempt, and a live
	// elapsed time.
	slow := h.rowLine("slow.example.io")
	for _, want := range []string{h.m.spin.View(), "direct_fetch #1", "840ms"} {
		if !strings.Contains(slow, want) {
			t.Errorf("in-flight row %q lacks %q", slow, want)
		}
	}
	// Header: run id, mode, tier and per-status counts.
	v := h.view()
	for _, want := range []string{"run run-0001", "mode offline", "tier standard", "✓ 1 valid", "$ 1 paywalled",
		"⊘ 1 blocked", "≠ 1 mismatch", "✗ 1 invalid", "1 checking", "· 0 queued", "5/6 checked"} {
		if !strings.Contains(v, want) {
			t.Errorf("header lacks %q:\n%s", want, v)
		}
	}
}

func TestRetryWaitShowsInRow(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(0, queued(uValid, 1))
	if ln := h.rowLine("example.org"); !strings.Contains(ln, "· queued") {
		t.Fatalf("queued row = %q", ln)
	}
	h.events(0, attempt(uValid, "direct_fetch", 1))
	h.events(time.Second, attemptDone(uValid, "direct_fetch", 1, time.Second, "http 429", 429),
		retryWait(uValid, "direct_fetch", 1, 3*time.Second, "http 429"))
	ln := h.rowLine("example.org")
	for _, want := range []string{"waiting", "direct_fetch ↻3.0s", "429", "1.0s"} {
		if !strings.Contains(ln, want) {
			t.Errorf("waiting row %q lacks %q", ln, want)
		}
	}
}

func TestDomainOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.example.org/a":     "example.org",
		"https://news.bbc.co.uk/story":  "news.bbc.co.uk",
		"https://WWW.Example.COM:8443/": "example.com",
		"https://www2.example.com/":     "www2.example.com",
		"https://a.www.example.com/":    "a.www.example.com",
		"not a url":                     "",
	} {
		if got := domainOf(in); got != want {
			t.Errorf("domainOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGatePanel(t *testing.T) {
	gate := func(h *harness) string {
		for _, ln := range strings.Split(h.view(), "\n") {
			if strings.HasPrefix(ln, "Gate C") {
				return ln
			}
		}
		t.Fatalf("no Gate C line:\n%s", h.view())
		return ""
	}
	t.Run("undecided", func(t *testing.T) {
		h := newHarness(t, Options{})
		h.events(0, queued(uValid, 2), queued(uPaywalled, 2))
		h.events(0, finished(uValid, "offline-fixture", engine.Citation{Status: engine.StatusValid}))
		if g := gate(h); !strings.Contains(g, "undecided (1 pending)") || !strings.Contains(g, "validated 0.500 ≥0.90") {
			t.Errorf("gate = %q", g)
		}
	})
	t.Run("fail decided before the end", func(t *testing.T) {
		h := newHarness(t, Options{})
		h.script() // 3 of 6 invalid already: 0.5 > 0.10
		g := gate(h)
		for _, want := range []string{"FAIL (decided)", "validated 0.333", "invalid 0.500", "uncategorized 0.167 =0", "≥0.90", "≤0.10"} {
			if !strings.Contains(g, want) {
				t.Errorf("gate %q lacks %q", g, want)
			}
		}
	})
	t.Run("pass decided before the end", func(t *testing.T) {
		h := newHarness(t, Options{})
		var evs []engine.Event
		for i := range 20 {
			evs = append(evs, engine.Event{Kind: engine.EventQueued, Index: i, Total: 20, URL: fmt.Sprintf("https://h%d.test/", i), CID: fmt.Sprint(i)})
		}
		h.events(0, evs...)
		var fin []engine.Event
		for i := range 19 {
			fin = append(fin, engine.Event{Kind: engine.EventFinished, Index: i, URL: fmt.Sprintf("https://h%d.test/", i), CID: fmt.Sprint(i),
				Citation: &engine.Citation{Status: engine.StatusValid}})
		}
		h.events(0, fin...)
		if g := gate(h); !strings.Contains(g, "PASS (decided)") {
			t.Errorf("19/20 valid with one pending: gate = %q", g)
		}
	})
}

func TestFilterSearchSort(t *testing.T) {
	h := newHarness(t, Options{})
	h.script()
	h.finishSlow(engine.StatusValid)
	shown := func() []string {
		var ds []string
		for _, r := range h.m.list.view {
			ds = append(ds, r.domain)
		}
		return ds
	}
	// Filter keys.
	h.key("3")
	if got := shown(); len(got) != 1 || got[0] != "blocked.example.com" {
		t.Fatalf("filter blocked: %v", got)
	}
	if !strings.Contains(h.view(), "filter blocked") {
		t.Errorf("status line lacks the filter:\n%s", h.view())
	}
	h.key("1")
	if got := shown(); len(got) != 2 {
		t.Fatalf("filter valid: %v", got)
	}
	h.key("0")
	if got := shown(); len(got) != 6 {
		t.Fatalf("filter all: %v", got)
	}

	// Search: /, type, enter keeps it; q while typing is a letter.
	h.key("/")
	h.typeText("bbc")
	if got := shown(); len(got) != 1 || got[0] != "news.bbc.co.uk" {
		t.Fatalf("search bbc: %v", got)
	}
	h.key("enter")
	if h.m.list.searching || !strings.Contains(h.view(), `search "bbc"`) {
		t.Fatalf("search not kept:\n%s", h.view())
	}
	h.key("esc") // clears the applied search
	if got := shown(); len(got) != 6 {
		t.Fatalf("esc did not clear the search: %v", got)
	}
	h.key("/")
	h.typeText("quit")
	if h.m.quitting {
		t.Fatal("q in the search box quit")
	}
	h.key("esc")
	if h.m.list.query != "" || h.m.list.searching {
		t.Fatal("esc in the search box did not cancel")
	}
	// Title text is searchable too.
	h.key("/")
	h.typeText("SOMETHING ELSE")
	if got := shown(); len(got) != 1 || got[0] != "mismatch.test" {
		t.Fatalf("search by title: %v", got)
	}
	h.key("esc")

	// Sort cycles order → status → host → time → title → wave file.
	h.key("s")
	if got := shown(); got[0] != "gone.example.net" || got[len(got)-1] != "slow.example.io" && got[len(got)-1] != "example.org" {
		t.Errorf("sort status: %v", got)
	}
	h.key("s")
	want := []string{"blocked.example.com", "example.org", "gone.example.net", "mismatch.test", "news.bbc.co.uk", "slow.example.io"}
	if got := shown(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sort host: %v", got)
	}
	h.key("s")
	if got := shown(); got[0] != "example.org" {
		t.Errorf("sort time (slowest first): %v", got)
	}
	if !strings.Contains(h.view(), "sort time") {
		t.Errorf("status line lacks the sort mode")
	}
	h.key("s") // title, naturally; a row without a title sorts by its URL
	if got := shown(); got[0] != "news.bbc.co.uk" || got[len(got)-1] != "mismatch.test" {
		t.Errorf("sort title: %v", got)
	}
	h.key("s") // wave file: the valid row's wave-1/p-econ.md sorts before every other row's wave-1/p1.md
	if got := shown(); got[0] != "example.org" || got[1] != "news.bbc.co.uk" || !strings.Contains(h.view(), "sort wave file") {
		t.Errorf("sort wave file: %v", got)
	}
	h.key("s")
	if got := shown(); got[0] != "example.org" || got[1] != "news.bbc.co.uk" || !strings.Contains(h.view(), "sort order") {
		t.Errorf("sort back to order: %v", got)
	}
}

func TestCursorFollowsRowAcrossResort(t *testing.T) {
	h := newHarness(t, Options{})
	h.script()
	h.key("down")
	h.key("down") // blocked.example.com
	h.key("s")
	if r := h.m.list.selected(); r == nil || r.domain != "blocked.example.com" {
		t.Fatalf("selection moved on resort: %+v", r)
	}
}

func TestDetailView(t *testing.T) {
	h := newHarness(t, Options{})
	h.script()
	h.key("enter") // first row: the valid one
	if h.m.state != viewDetail {
		t.Fatal("enter did not open the detail view")
	}
	content := h.m.detail.render(h.clk.Now())
	for _, want := range []string{
		"Normalized URL  https://www.example.org/a",
		"CID             cid_01",
		"Final URL       https://www.example.org/a/",
		"Redirects (2)   1. http://example.org/a?utm_source=x",
		"2. https://example.org/a",
		"3. https://www.example.org/a/ (final)",
		"✓ valid · decided by direct_fetch",
		"HTTP status     200",
		"Title           Example Domain",
		"Publisher       Example Org",
		"Notes           direct_fetch: ok: html after 1 redirect",
		"“This domain is for use in illustrative examples in documents.”",
		"Attempts (2)",
		"direct_fetch #1   at +   0ms  took   1.2s  http 503",
		"↻ waited 2.0s before retrying: http 503",
		"direct_fetch #2   at +  3.2s  took  340ms  ok: html (HTTP 200)",
		"Found by (2)",
		"wave 1 · perspective p-econ (researcher)",
		"file wave-1/p-econ.md",
		"line - [Example](http://example.org/a?utm_source=x)",
		"wave 2 · perspective p-law (reviewer)",
	} {
		if !strings.Contains(content, want) {
			t.Errorf("detail lacks %q:\n%s", want, content)
		}
	}
	if !strings.Contains(h.view(), "Citation 1 of 6 · ✓ valid · example.org") {
		t.Errorf("detail title:\n%s", h.view())
	}
	// It scrolls: the content is longer than a 30-line screen at width 100.
	h.send(tea.WindowSizeMsg{Width: 100, Height: 16})
	top := h.m.detail.vp.YOffset
	h.key("down")
	h.key("down")
	if h.m.detail.vp.YOffset != top+2 {
		t.Errorf("detail did not scroll: %d → %d", top, h.m.detail.vp.YOffset)
	}
	h.send(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if h.m.detail.vp.YOffset <= top+2 {
		t.Errorf("mouse wheel did not scroll the detail")
	}
	h.send(tea.KeyMsg{Type: tea.KeyCtrlB})
	h.key("G")
	if !h.m.detail.vp.AtBottom() {
		t.Errorf("G did not reach the bottom")
	}
	h.key("g")
	if h.m.detail.vp.YOffset != 0 {
		t.Errorf("g did not reach the top")
	}
	h.key("esc")
	if h.m.state != viewList {
		t.Fatal("esc did not go back")
	}
}

func TestDetailUpdatesLive(t *testing.T) {
	h := newHarness(t, Options{})
	h.script()
	h.key("end") // slow.example.io, still in flight
	h.key("enter")
	if !strings.Contains(h.m.detail.render(h.clk.Now()), "in progress") {
		t.Fatal("in-flight attempt not shown")
	}
	h.finishSlow(engine.StatusValid)
	if v := h.view(); !strings.Contains(v, "✓ valid · decided by direct_fetch") {
		t.Errorf("detail not refreshed by events:\n%s", v)
	}
}

func TestCompletionShowsArtifactsAndVerdict(t *testing.T) {
	oc := make(chan Outcome, 1)
	h := newHarness(t, Options{Outcome: oc})
	h.script()
	h.finishSlow(engine.StatusValid)
	cmd := h.send(streamClosedMsg{src: h.m.events})
	if h.m.completed || !strings.Contains(h.view(), "writing artifacts") {
		t.Fatalf("completed before the outcome:\n%s", h.view())
	}
	oc <- Outcome{Summary: sampleSummary("fail")}
	h.send(cmd())
	v := h.view()
	// Gate C's line names each must-not-cite class, wrapped between
	// clauses on this 100-column screen.
	for _, want := range []string{"✗ Run complete · Gate C FAIL · Gate C fail: 3/6 validated;\n",
		"\n  must not cite: 1 invalid, 1 blocked, 1 mismatch; 0 uncategorized.",
		"Artifacts in /runs/r1: citations/citations.jsonl · citations/validated-citations.md", "gates.json",
		"logs/audit.jsonl", "citations/normalized-urls.txt",
		"FAIL (final)", "done"} {
		if !strings.Contains(v, want) {
			t.Errorf("completed view lacks %q:\n%s", want, v)
		}
	}
	if res := h.m.Result(); !res.Completed || res.Summary == nil || res.Err != nil {
		t.Errorf("result = %+v", res)
	}
	// The operator can keep browsing.
	h.key("enter")
	if h.m.state != viewDetail {
		t.Error("cannot open details after completion")
	}
}

func TestCompletionShowsError(t *testing.T) {
	oc := make(chan Outcome, 1)
	h := newHarness(t, Options{Outcome: oc})
	h.events(0, queued(uValid, 1))
	boom := &engine.Error{Code: "WRITE_FAILED", Message: "cannot write citations.jsonl"}
	h.complete(Outcome{Err: boom}, oc)
	if v := h.view(); !strings.Contains(v, "✗ Run failed: WRITE_FAILED: cannot write citations.jsonl") {
		t.Errorf("error not shown:\n%s", v)
	}
	if res := h.m.Result(); !res.Completed || !errors.Is(res.Err, boom) {
		t.Errorf("result = %+v", res)
	}
}

func TestEventsBatchAndStreamEnd(t *testing.T) {
	ch := make(chan engine.Event, maxBatch+10)
	for i := range maxBatch + 5 {
		ch <- engine.Event{Kind: engine.EventQueued, Index: i, Total: maxBatch + 5, URL: fmt.Sprintf("https://h%d.test/", i), CID: fmt.Sprint(i)}
	}
	close(ch)
	msg := waitForEvents(ch, nil)()
	b, ok := msg.(eventsMsg)
	if !ok || len(b.events) != maxBatch || b.closed {
		t.Fatalf("first batch: %T len %d", msg, len(b.events))
	}
	b = waitForEvents(ch, nil)().(eventsMsg)
	if len(b.events) != 5 || !b.closed {
		t.Fatalf("second batch: len %d closed %v", len(b.events), b.closed)
	}
	if _, ok := waitForEvents(ch, nil)().(streamClosedMsg); !ok {
		t.Fatal("closed stream not reported")
	}
	stop := make(chan struct{})
	close(stop)
	if msg := waitForEvents(make(chan engine.Event), stop)(); msg != nil {
		t.Fatalf("stopped wait returned %v", msg)
	}
}

func TestRerunResetsBlockedRows(t *testing.T) {
	oc := make(chan Outcome, 1)
	rerunEvents := make(chan engine.Event)
	rerunOutcome := make(chan Outcome, 1)
	calls := 0
	h := newHarness(t, Options{Outcome: oc, Rerun: func() (<-chan engine.Event, <-chan Outcome) {
		calls++
		return rerunEvents, rerunOutcome
	}})
	h.script()
	h.finishSlow(engine.StatusValid)
	h.key("R")
	if calls != 0 || !strings.Contains(h.view(), "rerun is available once the run has completed") {
		t.Fatalf("R before completion: calls %d\n%s", calls, h.view())
	}
	h.complete(Outcome{Summary: sampleSummary("fail")}, oc)
	if !strings.Contains(h.view(), "R re-runs the 1 blocked URL(s)") {
		t.Errorf("rerun hint missing:\n%s", h.view())
	}
	cmd := h.send(keyMsg("R"))
	if calls != 1 || cmd == nil {
		t.Fatalf("Rerun calls = %d", calls)
	}
	if ln := h.rowLine("blocked.example.com"); !strings.Contains(ln, "· queued") {
		t.Errorf("blocked row not reset: %q", ln)
	}
	if h.m.completed || h.m.counts[stateBlocked] != 0 || h.m.counts[stateQueued] != 1 {
		t.Errorf("state after rerun: completed %v counts %v", h.m.completed, h.m.counts)
	}
	// The new stream (its own Index and Total) is consumed.
	rb := engine.Event{Kind: engine.EventQueued, Index: 0, Total: 1, URL: uBlocked, CID: cidOf(uBlocked)}
	h.send(eventsMsg{src: rerunEvents, events: []engine.Event{rb, attempt(uBlocked, "direct_fetch", 1),
		attemptDone(uBlocked, "direct_fetch", 1, time.Second, "ok: html", 200),
		finished(uBlocked, "direct_fetch", engine.Citation{Status: engine.StatusValid, HTTPStatus: intp(200), Title: "Now reachable"})}})
	if ln := h.rowLine("blocked.example.com"); !strings.Contains(ln, "✓ valid") {
		t.Errorf("rerun result not applied: %q", ln)
	}
	if h.m.gateTotal() != 6 {
		t.Errorf("gate total = %d, want 6", h.m.gateTotal())
	}
	// Events from the old stream are ignored now.
	h.send(eventsMsg{src: h.ch, events: []engine.Event{queued(uValid, 6)}})
	if ln := h.rowLine("example.org"); !strings.Contains(ln, "✓ valid") {
		t.Errorf("stale stream applied: %q", ln)
	}
	h.send(streamClosedMsg{src: rerunEvents})
	rerunOutcome <- Outcome{Summary: sampleSummary("fail")}
	h.send(waitForOutcome(rerunOutcome, nil)())
	if !h.m.completed {
		t.Error("rerun outcome not taken")
	}
}

func TestRerunUnavailable(t *testing.T) {
	oc := make(chan Outcome, 1)
	h := newHarness(t, Options{Outcome: oc})
	h.script()
	h.finishSlow(engine.StatusValid)
	h.complete(Outcome{Summary: sampleSummary("fail")}, oc)
	if !strings.Contains(h.view(), "R rerun (unavailable)") {
		t.Errorf("help does not show R as unavailable:\n%s", h.view())
	}
	if cmd := h.send(keyMsg("R")); cmd != nil {
		t.Error("R did something without a Rerun hook")
	}
	if ln := h.rowLine("blocked.example.com"); !strings.Contains(ln, "⊘ blocked") {
		t.Errorf("row changed: %q", ln)
	}
}

func TestHelpToggle(t *testing.T) {
	h := newHarness(t, Options{})
	short := h.view()
	h.key("?")
	full := h.view()
	for _, want := range []string{"page up", "G/end", "back", "ctrl+c"} {
		if !strings.Contains(full, want) {
			t.Errorf("full help lacks %q:\n%s", want, full)
		}
	}
	if strings.Count(full, "\n") != strings.Count(short, "\n") {
		t.Errorf("full help changed the screen height")
	}
}

func TestQuitKeys(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		h := newHarness(t, Options{})
		h.script()
		cmd := h.send(keyMsg(k))
		if cmd == nil || cmd() != tea.Quit() {
			t.Errorf("%s did not quit", k)
		}
		if h.view() != "" || h.m.Result().Completed {
			t.Errorf("%s: view %q, result %+v", k, h.view(), h.m.Result())
		}
	}
	// ctrl+c quits even from the search box.
	h := newHarness(t, Options{})
	h.key("/")
	if cmd := h.send(keyMsg("ctrl+c")); cmd == nil || cmd() != tea.Quit() {
		t.Error("ctrl+c in the search box did not quit")
	}
}

func TestResizeReflows(t *testing.T) {
	h := newHarness(t, Options{Simulated: true})
	h.script()
	for _, size := range [][2]int{{100, 30}, {60, 20}, {140, 45}, {40, 12}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, state := range []string{"list", "detail"} {
			if state == "detail" {
				h.key("enter")
			}
			lines := strings.Split(h.view(), "\n")
			if len(lines) != size[1] {
				t.Errorf("%v %s: %d lines", size, state, len(lines))
			}
			for _, ln := range lines {
				if w := lipgloss.Width(ln); w > size[0] {
					t.Errorf("%v %s: line of %d cells: %q", size, state, w, ln)
				}
			}
			if state == "detail" {
				h.key("esc")
			}
		}
	}
	h.send(tea.WindowSizeMsg{Width: 140, Height: 45})
	wide := h.rowLine("example.org")
	h.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	narrow := h.rowLine("example.org")
	if !strings.Contains(wide, "direct_fetch") || strings.Contains(narrow, "direct_fetch") {
		t.Errorf("rung column should show wide and drop narrow:\n%q\n%q", wide, narrow)
	}
	if !strings.Contains(h.view(), "SIMULATED WEB — no real site is contacted") {
		t.Error("simulated banner missing")
	}
}

func TestTenThousandRowsRenderVisibleWindow(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(0, bigQueue(10000)...)
	v := h.view()
	if n := strings.Count(v, "\n") + 1; n != 30 {
		t.Fatalf("%d lines", n)
	}
	if !strings.Contains(v, "h0.example.com") || strings.Contains(v, "h9999.example.com") {
		t.Fatalf("window not at the top:\n%s", v)
	}
	rowsShown := strings.Count(v, "· queued")
	if rowsShown == 0 || rowsShown > 30 {
		t.Fatalf("%d rows rendered", rowsShown)
	}
	h.key("end")
	if v := h.view(); !strings.Contains(v, "h9999.example.com") || strings.Contains(v, "h0.example.com ") {
		t.Fatalf("window not at the bottom:\n%s", v)
	}
	h.send(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if r := h.m.list.selected(); r.index != 9996 {
		t.Errorf("wheel up: cursor on %d", r.index)
	}
}

func bigQueue(n int) []engine.Event {
	evs := make([]engine.Event, n)
	for i := range evs {
		evs[i] = engine.Event{Kind: engine.EventQueued, Index: i, Total: n, URL: fmt.Sprintf("https://h%d.example.com/page", i), CID: fmt.Sprintf("cid_%05d", i)}
	}
	return evs
}

func TestControlCharactersAreNeutralised(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(0, queued(uValid, 1))
	h.events(0, finished(uValid, "offline-fixture", engine.Citation{Status: engine.StatusValid, Title: "evil\x1b[2J\x1b]0;pwn\atitle"}))
	if v := h.view(); strings.ContainsAny(v, "\x1b\a") {
		t.Errorf("escape sequence from a page title reached the screen: %q", v)
	}
}

func TestNoColorRendersPlain(t *testing.T) {
	env := mapEnv{"TERM": "xterm-256color", "NO_COLOR": "1"}
	r := lipgloss.NewRenderer(io.Discard, termenv.WithEnvironment(env), termenv.WithTTY(true))
	st := newStyles(r)
	if got := st.status[stateValid].Render("✓ valid"); got != "✓ valid" {
		t.Errorf("NO_COLOR render = %q", got)
	}
	env = mapEnv{"TERM": "xterm-256color", "COLORTERM": "truecolor"}
	r = lipgloss.NewRenderer(io.Discard, termenv.WithEnvironment(env), termenv.WithTTY(true))
	if got := newStyles(r).status[stateValid].Render("✓ valid"); !strings.Contains(got, "\x1b[") {
		t.Errorf("colour terminal render = %q", got)
	}
}

type mapEnv map[string]string

func (e mapEnv) Environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

func (e mapEnv) Getenv(k string) string { return e[k] }

// Run

func TestRunQuitBeforeCompletion(t *testing.T) {
	events := make(chan engine.Event) // never closed: the run is still going
	var out bytes.Buffer
	done := make(chan struct{})
	var res Result
	var err error
	go func() {
		defer close(done)
		res, err = Run(context.Background(), events, strings.NewReader("q"), &out, Options{RunID: "r"})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after q")
	}
	if err != nil || res.Completed || res.Summary != nil {
		t.Errorf("Run = %+v, %v", res, err)
	}
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe() // input that never types anything
	defer pw.Close()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, make(chan engine.Event), pr, io.Discard, Options{})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
}

func TestRunCompletes(t *testing.T) {
	events := make(chan engine.Event, 8)
	oc := make(chan Outcome, 1)
	events <- queued(uValid, 1)
	events <- finished(uValid, "offline-fixture", engine.Citation{Status: engine.StatusValid})
	close(events)
	oc <- Outcome{Summary: sampleSummary("pass")}
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &uitest.SyncBuffer{}
	done := make(chan struct{})
	var res Result
	var err error
	go func() {
		defer close(done)
		res, err = Run(context.Background(), events, pr, out, Options{Outcome: oc})
	}()
	// Quit only once the outcome is on screen; an earlier q would race it.
	teatest.WaitFor(t, out, func(b []byte) bool { return bytes.Contains(b, []byte("Run complete")) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	_, _ = pw.Write([]byte("q"))
	<-done
	if err != nil || !res.Completed || res.Summary == nil || !res.Summary.Passed() {
		t.Errorf("Run = %+v, %v", res, err)
	}
}

func TestTeatestEndToEnd(t *testing.T) {
	clk := newClock()
	events := make(chan engine.Event, 64)
	oc := make(chan Outcome, 1)
	m := NewModel(events, Options{RunID: "run-e2e", Mode: "online", Tier: "standard", Simulated: true, Outcome: oc, Now: clk.Now})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))

	events <- engine.Event{Kind: engine.EventStage, Stage: "validate"}
	for _, u := range []string{uValid, uBlocked} {
		events <- queued(u, 2)
	}
	events <- attempt(uValid, "direct_fetch", 1)
	events <- attemptDone(uValid, "direct_fetch", 1, 340*time.Millisecond, "ok: html", 200)
	events <- finished(uValid, "direct_fetch", validCitation(), "http://example.org/a?utm_source=x")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("✓ valid")) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))

	events <- attempt(uBlocked, "direct_fetch", 1)
	events <- attemptDone(uBlocked, "direct_fetch", 1, time.Second, "http 403", 403)
	events <- finished(uBlocked, "direct_fetch", engine.Citation{Status: engine.StatusBlocked, HTTPStatus: intp(403)})
	close(events)
	oc <- Outcome{Summary: sampleSummary("fail")}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Run complete")) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))

	tm.Send(keyMsg("enter"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("Normalized URL")) && bytes.Contains(b, []byte("p-econ"))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	tm.Send(keyMsg("q"))

	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if !ok {
		t.Fatal("final model is not a Model")
	}
	if fm.state != viewDetail || fm.detail.r == nil || fm.detail.r.url != uValid {
		t.Errorf("final state %v, detail row %+v", fm.state, fm.detail.r)
	}
	if res := fm.Result(); !res.Completed || res.Summary == nil {
		t.Errorf("result = %+v", res)
	}
	if fm.counts[stateValid] != 1 || fm.counts[stateBlocked] != 1 {
		t.Errorf("counts = %v", fm.counts)
	}
}

// GOLDEN SCREENS (go test ./ui/tui -run Golden -update rewrites them)

func goldenHarness(t *testing.T, oc chan Outcome) *harness {
	h := newHarness(t, Options{RunID: "run-0001", Mode: "online", Tier: "standard", Simulated: true, Outcome: oc,
		Rerun: func() (<-chan engine.Event, <-chan Outcome) { return nil, nil }})
	h.script()
	return h
}

func TestGoldenMainView(t *testing.T) {
	h := goldenHarness(t, nil)
	h.key("down")
	golden.RequireEqual(t, []byte(h.view()))
}

func TestGoldenDetailView(t *testing.T) {
	h := goldenHarness(t, nil)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 48})
	h.key("enter")
	golden.RequireEqual(t, []byte(h.view()))
}

func TestGoldenCompleted(t *testing.T) {
	oc := make(chan Outcome, 1)
	h := goldenHarness(t, oc)
	h.finishSlow(engine.StatusValid)
	h.complete(Outcome{Summary: sampleSummary("fail")}, oc)
	golden.RequireEqual(t, []byte(h.view()))
}

func TestColourScreenKeepsLayout(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	clk := newClock()
	ch := make(chan engine.Event)
	h := &harness{t: t, m: newModel(ch, Options{Simulated: true, Now: clk.Now}, newStyles(r)), ch: ch, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 90, Height: 25})
	h.script()
	for _, state := range []string{"list", "detail"} {
		if state == "detail" {
			h.key("enter")
		}
		v := h.view()
		if !strings.Contains(v, "\x1b[") {
			t.Fatalf("%s: no colour in a TrueColor screen", state)
		}
		lines := strings.Split(v, "\n")
		if len(lines) != 25 {
			t.Errorf("%s: %d lines", state, len(lines))
		}
		for _, ln := range lines {
			if w := lipgloss.Width(ln); w > 90 {
				t.Errorf("%s: line of %d cells: %q", state, w, ln)
			}
		}
	}
}

// TestDetailShowsSiteProbe: the site probe the ladder sends for a page it
// would call valid is listed among the citation's attempts, with its
// outcome, and a warning event shows above the table.
func TestDetailShowsSiteProbe(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(0, engine.Event{Kind: engine.EventStage, Stage: "validate"}, queued(uValid, 1),
		engine.Event{Kind: engine.EventWarning, Total: 1, Detail: "bright_data is never used: provider failed (refusing to send credentials over plain http to http://api.example)"})
	h.events(10*time.Millisecond, attempt(uValid, "direct_fetch", 1))
	h.events(300*time.Millisecond, attemptDone(uValid, "direct_fetch", 1, 300*time.Millisecond, "ok: html", 200), attempt(uValid, "site_probe", 1))
	h.events(200*time.Millisecond,
		attemptDone(uValid, "site_probe", 1, 200*time.Millisecond, "probe https://www.example.org/citegate-probe-0123456789abcdef: http 200 (a page that does not exist answers 200; compared)", 200),
		finished(uValid, "direct_fetch", engine.Citation{Status: engine.StatusInvalid, HTTPStatus: intp(200),
			Notes: "online ladder: direct_fetch; soft 404: answers like a page that does not exist (the same page a URL that does not exist gets)"}))
	if !strings.Contains(h.view(), "⚠ bright_data is never used") {
		t.Errorf("warning not shown:\n%s", h.view())
	}
	h.key("enter")
	content := h.m.detail.render(h.clk.Now())
	for _, want := range []string{"Attempts (2)", "direct_fetch #1", "site_probe #1", "took  200ms  probe https://www.example.org/", "http 200 (a page that does not exist answers 200; compared)"} {
		if !strings.Contains(content, want) {
			t.Errorf("detail lacks %q:\n%s", want, content)
		}
	}
}

// TestWarningsBoundedAndOnce: a hand-edited fixtures file can produce many
// warnings; the screen shows the first few and a count, and a rerun's
// repeats are shown once.
func TestWarningsBoundedAndOnce(t *testing.T) {
	h := newHarness(t, Options{})
	var evs []engine.Event
	for round := 0; round < 2; round++ { // the rerun reports them again
		for i := range 6 {
			evs = append(evs, engine.Event{Kind: engine.EventWarning, Total: 1, Detail: fmt.Sprintf("offline fixtures /items/%d: http_status \"200\" is a string, not a number: read as null", i)})
		}
	}
	h.events(0, append([]engine.Event{{Kind: engine.EventStage, Stage: "validate"}, queued(uValid, 1)}, evs...)...)
	v := h.view()
	for i := range 3 {
		if !strings.Contains(v, fmt.Sprintf("⚠ offline fixtures /items/%d:", i)) {
			t.Errorf("warning %d not shown:\n%s", i, v)
		}
	}
	if strings.Contains(v, "/items/3:") || !strings.Contains(v, "⚠ … and 3 more warnings") {
		t.Errorf("warnings not bounded:\n%s", v)
	}
	if len(h.m.warnings) != 6 {
		t.Errorf("warnings kept = %d, want 6 (each once)", len(h.m.warnings))
	}

	// Four warnings are shown in full: a "1 more" line would hide as much
	// as it says.
	h = newHarness(t, Options{})
	h.events(0, append([]engine.Event{{Kind: engine.EventStage, Stage: "validate"}, queued(uValid, 1)}, evs[:4]...)...)
	if v := h.view(); !strings.Contains(v, "/items/3:") || strings.Contains(v, "more warnings") {
		t.Errorf("four warnings:\n%s", v)
	}
}
