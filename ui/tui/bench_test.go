package tui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/citegate/citegate/engine"
)

// benchModel is a 120×40 model over n queued rows, a third of them already
// finished, so the header counts and Gate C have work to do.
func benchModel(b *testing.B, n int, sort int) (Model, []engine.Event) {
	b.Helper()
	clk := newClock()
	ch := make(chan engine.Event)
	m := NewModel(ch, Options{RunID: "bench", Mode: "online", Tier: "standard", Now: clk.Now})
	tm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = tm.(Model)
	evs := bigQueue(n)
	tm, _ = m.Update(eventsMsg{src: ch, events: evs})
	m = tm.(Model)
	statuses := engine.Statuses
	var fin []engine.Event
	for i := 0; i < n; i += 3 {
		ev := evs[i]
		ev.Kind = engine.EventFinished
		ev.Citation = &engine.Citation{Status: statuses[i%len(statuses)], Title: fmt.Sprintf("Page %d", i)}
		fin = append(fin, ev)
	}
	tm, _ = m.Update(eventsMsg{src: ch, events: fin})
	m = tm.(Model)
	for range sort {
		tm, _ = m.Update(keyMsg("s"))
		m = tm.(Model)
	}
	return m, evs
}

// batchFor is one Update's worth of events: ten URLs each going through an
// attempt, its result and a verdict.
func batchFor(evs []engine.Event, i int) []engine.Event {
	out := make([]engine.Event, 0, 30)
	for j := range 10 {
		q := evs[(i*10+j)%len(evs)]
		a := q
		a.Kind, a.Rung, a.Attempt = engine.EventAttempt, "direct_fetch", 1
		d := a
		d.Kind, d.Elapsed, d.Detail, d.HTTPStatus = engine.EventAttemptDone, 300*time.Millisecond, "ok: html", 200
		f := q
		f.Kind, f.Rung = engine.EventFinished, "direct_fetch"
		f.Citation = &engine.Citation{Status: engine.StatusValid, Title: "Done"}
		out = append(out, a, d, f)
	}
	return out
}

func runUpdateView(b *testing.B, sort int) {
	m, evs := benchModel(b, 10000, sort)
	batches := make([][]engine.Event, 64)
	for i := range batches {
		batches[i] = batchFor(evs, i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tm, _ := m.Update(eventsMsg{src: m.events, events: batches[i%len(batches)]})
		m = tm.(Model)
		if v := m.View(); len(v) == 0 {
			b.Fatal("empty view")
		}
	}
}

// BenchmarkUpdateView10k is one Update (a 30-event batch) plus one View over
// 10,000 rows in work-list order, the common case while a run streams in.
func BenchmarkUpdateView10k(b *testing.B) { runUpdateView(b, 0) }

// BenchmarkUpdateView10kSortedByStatus is the same with sort=status, where
// every batch re-sorts the 10,000 rows.
func BenchmarkUpdateView10kSortedByStatus(b *testing.B) { runUpdateView(b, 1) }

// BenchmarkView10k is View alone over 10,000 rows: only the visible window
// is formatted, so it should not depend on the row count.
func BenchmarkView10k(b *testing.B) {
	m, _ := benchModel(b, 10000, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if v := m.View(); len(v) == 0 {
			b.Fatal("empty view")
		}
	}
}
