package engine

import (
	"bytes"
	"strings"
	"testing"
)

// The warnings of a run are in the report (validated-citations.md) and the
// JUnit report (system-err, and Gate C's warning codes as a property), in
// the summary's order; a run without warnings writes the report it always
// did.
func TestWarningsReachTheReports(t *testing.T) {
	r := silentRun(t)
	e := newEngine()
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Warnings) != 3 {
		t.Fatalf("warnings %q", sum.Warnings)
	}
	md := readFile(t, sum.Artifacts.Report)
	block := "Warnings: 3 (the run did not check everything it was given)\n- " + strings.Join(sum.Warnings, "\n- ") + "\n\n## "
	if !strings.Contains(md, block) {
		t.Errorf("report lacks the warnings block before the citations:\n%s", md)
	}
	doc, err := e.JUnitReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	checkJUnitSchema(t, doc)
	if !bytes.Contains(doc, []byte(`<property name="gate_c.not_checked" value="not checked: 8 URLs in 2 lists`)) {
		t.Errorf("JUnit report lacks gate_c.not_checked:\n%s", doc)
	}
	for _, w := range sum.Warnings {
		esc := strings.NewReplacer(`"`, "&#34;").Replace(w)
		if !bytes.Contains(doc, []byte(esc)) {
			t.Errorf("JUnit report lacks %q:\n%s", w, doc)
		}
	}

	// Without warnings: no block, and the same bytes as before this change
	// (the layout and digest the reference's render defines).
	clean := newRun(t, runSpec{Files: map[string]string{"wave-1/p1.md": "## Sources\n- https://a.example/x\n",
		"offline-fixtures.json": `{"https://a.example/x": "valid"}`}})
	sum, err = e.Run(bg, RunArgs{ManifestPath: clean.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if md := readFile(t, sum.Artifacts.Report); strings.Contains(md, "Warnings") {
		t.Errorf("a run without warnings has a warnings block:\n%s", md)
	}
	_, digest, err := render("RUN", readCitationLines(t, clean.cit("citations.jsonl")))
	if err != nil || digest != sum.InputsDigests["render"] {
		t.Errorf("render digest %s, the tool's %s (%v)", sum.InputsDigests["render"], digest, err)
	}
}

// A run not checked (network unreachable) says so in the JUnit report: the
// Gate C test case fails with the reason, and the warning code is a
// property.
func TestJUnitNotChecked(t *testing.T) {
	r := offlineNetRun(t)
	e := newEngine()
	e.GuardOptions = append(e.GuardOptions[:0:0], downGuard()...)
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest, OnlineFixturesPath: r.path("online.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := e.JUnitReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	checkJUnitSchema(t, doc)
	for _, want := range []string{`name="gate_c.warnings" value="NETWORK_UNREACHABLE"`, `message="Gate C not checked: network unreachable`,
		"<system-err>network unreachable: none of the 2 URLs"} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("JUnit report lacks %s:\n%s", want, doc)
		}
	}
}
