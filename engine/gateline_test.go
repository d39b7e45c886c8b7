package engine

import (
	"strings"
	"testing"
)

// TestRunSummaryGateLine: a run's summary carries the line, whose counts are
// the summary's own status counts; gate_c.notes stays the reference's
// sentence, the one gates.json holds.
func TestRunSummaryGateLine(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md": "## Sources\n\n- https://a.example/1\n- https://a.example/2\n- https://a.example/3\n- https://a.example/4\n- https://a.example/5\n",
		"offline-fixtures.json": `{"https://a.example/1": "valid", "https://a.example/2": "blocked", "https://a.example/3": "blocked",` +
			` "https://a.example/4": "mismatch", "https://a.example/5": "invalid"}`,
	}})
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, Reason: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Counts
	if c.Invalid != 1 || c.Blocked != 2 || c.Mismatch != 1 {
		t.Fatalf("counts = %+v", c)
	}
	const want = "Gate C fail: 1/5 validated; must not cite: 1 invalid, 2 blocked, 1 mismatch; 0 uncategorized."
	if sum.GateC.Line != want {
		t.Errorf("gate_c.line = %q, want %q", sum.GateC.Line, want)
	}
	var doc GatesDoc
	decodeJSONFile(t, r.path("gates.json"), &doc)
	if sum.GateC.Notes != "Gate C fail: 1/5 validated, 4 invalid, 0 uncategorized." || doc.Gates.C.Notes != sum.GateC.Notes {
		t.Errorf("gate_c.notes = %q, gates.json C.notes = %q: want the reference's sentence in both", sum.GateC.Notes, doc.Gates.C.Notes)
	}
	// The JUnit report's failing Gate C test case says the same, then its
	// metrics against their thresholds.
	report, err := newEngine().JUnitReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	const metrics = " Metrics: validated rate 0.2 (needs &gt;= 0.9); invalid rate 0.8 (needs &lt;= 0.1); uncategorized rate 0 (needs &lt;= 0)."
	if !strings.Contains(string(report), `<failure message="`+want+metrics+`" type="gate_c">`+want+metrics+`</failure>`) {
		t.Errorf("JUnit report lacks the line and the thresholds:\n%s", report)
	}
}
