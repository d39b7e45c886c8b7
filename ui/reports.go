package ui

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/ui/cli"
)

// ciReports are the reports a command writes once it has finished: JUnit
// (run, demo), SARIF, Code Quality, and annotations on stderr with, for
// GitHub, a job summary. They are written only after the run's commit: a run
// that failed or was interrupted before it writes none. A report that cannot
// be written is said on stderr and turns the exit code into ExitFailure; the
// JSON on stdout stays as it is.
type ciReports struct {
	junit string
	cli.Reports
	// stepSummary is $GITHUB_STEP_SUMMARY, read as the command starts (the
	// demo swaps the engine's environment for a simulated one).
	stepSummary string
}

func newCIReports(c *cli.Command) ciReports {
	return ciReports{junit: c.JUnitFile, Reports: c.Reports, stepSummary: os.Getenv("GITHUB_STEP_SUMMARY")}
}

// findings says whether any report needs the findings.
func (r ciReports) findings() bool {
	return r.SARIFFile != "" || r.CodeQualityFile != "" || r.Annotations != ""
}

// setReportBase makes the reports' paths relative to the working directory
// (in CI, the repository's root, against which code scanning resolves them).
func setReportBase(d Deps) {
	if d.Engine.ReportBase == "" {
		if wd, err := os.Getwd(); err == nil {
			d.Engine.ReportBase = wd
		}
	}
}

// writeRunReports writes a finished run's reports. verifyFile is run's
// --verify file, whose unsupported claims join the findings.
func writeRunReports(d Deps, sum *engine.RunSummary, r ciReports, verifyFile string, s cli.Streams) bool {
	if sum == nil {
		return true
	}
	setReportBase(d)
	ok := writeReport(s, "--report-junit", r.junit, func() ([]byte, error) { return d.Engine.JUnitReport(sum) })
	if !r.findings() {
		return ok
	}
	rep, err := d.Engine.CIReport(sum)
	if err != nil {
		reportError(s, "--report-sarif/--report-codequality/--annotations", "", err)
		return false
	}
	if verifyFile != "" && sum.Verify != nil {
		if out, err := engine.ReadVerifyFile(verifyFile); err == nil {
			rep.AddVerify(reportPath(d, verifyFile), out, sum.Verify)
		}
	}
	return writeFindings(rep, r, s) && ok
}

// writeVerifyReports writes the reports of the verify command.
func writeVerifyReports(d Deps, path string, output []byte, res *verify.Result, r ciReports, s cli.Streams) bool {
	if !r.findings() {
		return true
	}
	setReportBase(d)
	name := "stdin"
	if path != "-" {
		name = reportPath(d, path)
	}
	return writeFindings(engine.NewVerifyReport(name, output, res), r, s)
}

// reportPath is path relative to the report base when it lies under it.
func reportPath(d Deps, path string) string {
	if rel, err := filepath.Rel(d.Engine.ReportBase, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}

// writeFindings writes the reports made from the findings.
func writeFindings(rep *engine.CIReport, r ciReports, s cli.Streams) bool {
	ok := writeReport(s, "--report-sarif", r.SARIFFile, func() ([]byte, error) { return rep.SARIF(VersionString()) })
	ok = writeReport(s, "--report-codequality", r.CodeQualityFile, rep.CodeQuality) && ok
	switch r.Annotations {
	case "github":
		_, _ = s.Err.Write(rep.GitHubAnnotations())
		if r.stepSummary != "" {
			ok = appendStepSummary(s, r.stepSummary, rep.StepSummary()) && ok
		}
	case "gitlab":
		_, _ = s.Err.Write(rep.GitLabAnnotations())
	}
	return ok
}

// writeReport writes one report to path ("" writes nothing), atomically.
func writeReport(s cli.Streams, flag, path string, render func() ([]byte, error)) bool {
	if path == "" {
		return true
	}
	data, err := render()
	if err == nil {
		err = fsx.WriteAtomic(path, data)
	}
	if err != nil {
		reportError(s, flag, path, err)
		return false
	}
	return true
}

// appendStepSummary adds the job summary to GitHub's summary file, which
// every step appends to.
func appendStepSummary(s cli.Streams, path string, data []byte) bool {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		reportError(s, "GITHUB_STEP_SUMMARY", path, err)
		return false
	}
	return true
}

func reportError(s cli.Streams, flag, path string, err error) {
	what := "cannot write"
	if path != "" {
		what += " " + netguard.Clip(netguard.RedactText(path), engine.MaxEchoBytes)
	}
	fmt.Fprintf(s.Err, "citegate: %s: %s: %s\n", flag, what, netguard.Clip(netguard.RedactText(err.Error()), engine.MaxEchoBytes))
}
