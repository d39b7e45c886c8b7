package engine

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// xmlNode is a generic element tree for checking the report's structure.
type xmlNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xmlNode  `xml:",any"`
	Text    string     `xml:",chardata"`
}

func (n xmlNode) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// checkJUnitSchema checks doc against the rules of testdata/junit/JUnit.xsd
// for a <testsuite> document, element by element: the required attributes
// and their types, the order properties, testcase*, system-out, system-err,
// and at most one skipped|error|failure per test case, with its type.
func checkJUnitSchema(t *testing.T, doc []byte) xmlNode {
	t.Helper()
	var root xmlNode
	if err := xml.Unmarshal(doc, &root); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	intAttr := regexp.MustCompile(`^-?[0-9]+$`)
	decimal := regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	stamp := regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
	need := func(n xmlNode, name string, re *regexp.Regexp) string {
		v, ok := n.attr(name)
		if !ok || (re != nil && !re.MatchString(v)) || (re == nil && strings.TrimSpace(v) == "") {
			t.Errorf("<%s> attribute %s = %q (present %v) breaks the schema", n.XMLName.Local, name, v, ok)
		}
		return v
	}
	if root.XMLName.Local != "testsuite" {
		t.Fatalf("root element <%s>, want <testsuite>", root.XMLName.Local)
	}
	need(root, "name", nil)
	need(root, "hostname", nil)
	need(root, "timestamp", stamp)
	tests, _ := strconv.Atoi(need(root, "tests", intAttr))
	failures, _ := strconv.Atoi(need(root, "failures", intAttr))
	need(root, "errors", intAttr)
	need(root, "time", decimal)
	if v, ok := root.attr("skipped"); ok && !intAttr.MatchString(v) {
		t.Errorf("skipped = %q", v)
	}
	var order []string
	cases, failed := 0, 0
	for _, n := range root.Nodes {
		order = append(order, n.XMLName.Local)
		switch n.XMLName.Local {
		case "properties":
			for _, p := range n.Nodes {
				if p.XMLName.Local != "property" {
					t.Errorf("<properties> holds <%s>", p.XMLName.Local)
				}
				need(p, "name", nil)
				if _, ok := p.attr("value"); !ok {
					t.Errorf("property without value")
				}
			}
		case "testcase":
			cases++
			need(n, "name", nil)
			need(n, "classname", nil)
			need(n, "time", decimal)
			// file and line are the one extension (lychee's, GitLab's):
			// the XSD has no such attributes; nothing else is added.
			for _, a := range n.Attrs {
				switch a.Name.Local {
				case "name", "classname", "time", "assertions", "file":
				case "line":
					if !intAttr.MatchString(a.Value) {
						t.Errorf("test case line = %q", a.Value)
					}
				default:
					t.Errorf("test case attribute %s is neither the schema's nor file/line", a.Name.Local)
				}
			}
			if len(n.Nodes) > 1 {
				t.Errorf("test case %v has %d children; the schema allows one of skipped, error, failure", n.Attrs, len(n.Nodes))
			}
			for _, c := range n.Nodes {
				switch c.XMLName.Local {
				case "failure", "error":
					need(c, "type", nil)
					if c.XMLName.Local == "failure" {
						failed++
					}
				case "skipped":
				default:
					t.Errorf("test case holds <%s>", c.XMLName.Local)
				}
			}
		}
	}
	shape := regexp.MustCompile(`^properties( testcase)* system-out system-err$`)
	if !shape.MatchString(strings.Join(order, " ")) {
		t.Errorf("children %v; the schema wants properties, testcase*, system-out, system-err", order)
	}
	if tests != cases || failures != failed {
		t.Errorf("tests=%d failures=%d, but %d test cases of which %d fail", tests, failures, cases, failed)
	}
	return root
}

func TestJUnitReport(t *testing.T) {
	r := newRun(t, runSpec{RunID: "dr_junit", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md":          "# P1\n\n## Sources\n- https://a.example/ok\n- https://b.example/pay\n- https://c.example/gone?token=sk-abcdefghijklmnopqrstuvwx\n",
		"offline-fixtures.json": `{"https://a.example/ok": "valid", "https://b.example/pay": "paywalled"}`,
	}})
	e := newEngine()
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := e.JUnitReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	root := checkJUnitSchema(t, doc)
	if v, _ := root.attr("failures"); v != "2" { // the unlisted URL (invalid) and Gate C (failed)
		t.Errorf("failures = %s, want 2:\n%s", v, doc)
	}
	for _, want := range []string{`name="gate_c.status" value="fail"`, `classname="citegate.gate"`, `type="invalid"`,
		"paywalled (cite with caution): https://b.example/pay",
		// where each URL is cited: the case's file and line, the failure's message
		`classname="citations.a.example" time="0" file="wave-1/p1.md" line="4"`,
		`file="wave-1/p1.md" line="6">`, `message="invalid: must NOT cite; cited at wave-1/p1.md:6"`,
		"(needs &gt;= 0.9)"} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("report lacks %s:\n%s", want, doc)
		}
	}
	if bytes.Contains(doc, []byte("sk-abc")) {
		t.Errorf("report leaks a secret:\n%s", doc)
	}
	again, err := e.JUnitReport(sum)
	if err != nil || !bytes.Equal(doc, again) {
		t.Errorf("two reports of one run at one clock differ")
	}
	// Where xmllint is installed, the real validator agrees once the one
	// extension, the test cases' file and line attributes, is taken out.
	if xmllint, err := exec.LookPath("xmllint"); err == nil {
		f := filepath.Join(t.TempDir(), "report.xml")
		strict := regexp.MustCompile(`(<testcase [^>]*?) file="[^"]*" line="[0-9]+"`).ReplaceAll(doc, []byte("$1"))
		if err := os.WriteFile(f, strict, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("..", "testdata", "junit", "JUnit.xsd"), f).CombinedOutput(); err != nil {
			t.Errorf("xmllint: %v\n%s", err, out)
		}
	}
}
