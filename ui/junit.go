package ui

import (
	"fmt"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/ui/cli"
)

// writeJUnit writes the JUnit report of a finished run to path ("" writes
// nothing), atomically. It runs only after the run's commit: a run that
// failed or was interrupted before it writes no report. A report that cannot
// be written is said on stderr and turns the exit code into ExitFailure; the
// JSON summary on stdout stays as it is.
func writeJUnit(d Deps, sum *engine.RunSummary, path string, s cli.Streams) bool {
	if path == "" || sum == nil {
		return true
	}
	data, err := d.Engine.JUnitReport(sum)
	if err == nil {
		err = fsx.WriteAtomic(path, data)
	}
	if err != nil {
		fmt.Fprintf(s.Err, "citegate: --report-junit: cannot write %s: %s\n", netguard.Clip(netguard.RedactText(path), engine.MaxEchoBytes),
			netguard.Clip(netguard.RedactText(err.Error()), engine.MaxEchoBytes))
		return false
	}
	return true
}
