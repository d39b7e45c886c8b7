package cli

import (
	"fmt"
	"slices"
	"strings"
)

// Reports are the CI reports a run, demo or verify writes once it has
// finished (see `citegate help ci`).
type Reports struct {
	// SARIFFile receives a SARIF 2.1.0 report (--report-sarif).
	SARIFFile string
	// CodeQualityFile receives a GitLab Code Quality report
	// (--report-codequality).
	CodeQualityFile string
	// Annotations is "github" or "gitlab" (--annotations): findings as the
	// CI's log annotations on stderr, and for github a job summary to
	// $GITHUB_STEP_SUMMARY when that is set.
	Annotations string
}

// AnnotationFormats are --annotations' values.
var AnnotationFormats = []string{"github", "gitlab"}

// bindReports binds the CI report flags; junit adds --report-junit (run and
// demo: verify has no run to report as test cases).
func bindReports(b *binder, c *Command, junit bool) {
	if junit {
		b.path("report-junit", &c.JUnitFile, "also write a JUnit XML report here (one test case per citation with its file and line; must-not-cite statuses fail, saying where they are cited; Gate C a test case and suite properties)")
	}
	b.path("report-sarif", &c.Reports.SARIFFile, "also write a SARIF 2.1.0 report here (one result per failing citation at the line citing it; for GitHub code scanning)")
	b.path("report-codequality", &c.Reports.CodeQualityFile, "also write a GitLab Code Quality report here (JSON; the merge request widget)")
	b.choice("annotations", &c.Reports.Annotations, AnnotationFormats, "also print the failing citations as CI annotations on stderr, `github|gitlab`: GitHub workflow commands (and a job summary to $GITHUB_STEP_SUMMARY when set), or path:line:col lines for GitLab")
}

// choice binds a flag whose value must be one of allowed.
func (b *binder) choice(name string, dst *string, allowed []string, usage string) {
	v := &choiceValue{allowed: allowed}
	b.fs.Var(v, name, usage)
	b.applies[name] = func() { *dst = v.value }
}

type choiceValue struct {
	allowed []string
	value   string
}

func (v *choiceValue) String() string { return v.value }

func (v *choiceValue) Set(s string) error {
	if !slices.Contains(v.allowed, s) {
		return fmt.Errorf("must be one of %s", strings.Join(v.allowed, ", "))
	}
	v.value = s
	return nil
}
