package tui

import (
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/gate"

	"github.com/citegate/citegate/engine"
)

// A run that reached no server is NOT CHECKED on the Gate C line, with the
// warning above the table, not a bare FAIL that reads like bad citations.
func TestGateLineNotChecked(t *testing.T) {
	oc := make(chan Outcome, 1)
	h := newHarness(t, Options{Outcome: oc})
	h.script()
	h.finishSlow(engine.StatusBlocked)
	w := "network unreachable: none of the 2 URLs checked online reached a server (every DNS lookup or connection failed)"
	h.events(0, engine.Event{Kind: engine.EventWarning, Total: 6, Detail: w})
	sum := sampleSummary("fail")
	sum.GateC.Warnings = []string{gate.WarningNetworkUnreachable}
	sum.Warnings = []string{w}
	h.complete(Outcome{Summary: sum}, oc)
	v := h.view()
	if !strings.Contains(v, "Gate C  NOT CHECKED (final)") || !strings.Contains(v, "⚠ network unreachable") {
		t.Errorf("gate line or warning:\n%s", v)
	}
}

// TestGateLinePartlyNotChecked: a pass over a run that skipped lists of
// sources says so in the header, not only in the warnings.
func TestGateLinePartlyNotChecked(t *testing.T) {
	oc := make(chan Outcome, 1)
	h := newHarness(t, Options{Outcome: oc})
	h.script()
	h.finishSlow(engine.StatusValid)
	sum := sampleSummary("pass")
	sum.GateC.NotChecked = "not checked: 3 URLs in 2 lists not read as Sources (see warnings)"
	h.complete(Outcome{Summary: sum}, oc)
	if v := h.view(); !strings.Contains(v, "Gate C  PASS (final, partly not checked)") {
		t.Errorf("gate line:\n%s", v)
	}
}
