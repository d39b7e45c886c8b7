package cli

import (
	"errors"
	"fmt"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/netguard"
)

// ReportUsage prints a command-line mistake and returns ExitUsage. The
// message and the usage text go to stderr for a human. A tool command also
// prints an INVALID_ARGS envelope on stdout: tool commands promise exactly
// one JSON envelope whatever happens, and an agent calling one reads stdout
// only. run and demo are not tool commands (their stdout may be the terminal
// UI), so their usage errors stay on stderr.
func ReportUsage(s Streams, err error) int {
	var ue *UsageError
	if !errors.As(err, &ue) {
		ue = &UsageError{Msg: err.Error()}
	}
	// The message can quote the command line (a stray argument, a flag
	// value), which may hold a credential and be of any length.
	msg := netguard.Clip(netguard.RedactText(ue.Msg), engine.MaxMessageBytes)
	// One line and where to read more: a whole usage text would scroll the
	// message off a small screen.
	fmt.Fprintf(s.Err, "citegate: %s\n", msg)
	if sp, ok := specs[ue.Command]; ok {
		fmt.Fprintf(s.Err, "usage: %s\nsee 'citegate %s --help'\n", sp.usage, ue.Command)
	} else {
		fmt.Fprintln(s.Err, "see 'citegate --help' for the commands, 'citegate help' for the reference topics")
	}
	if sp, ok := specs[ue.Command]; ok && sp.tool {
		details := map[string]any{"command": ue.Command, "usage": sp.usage}
		for k, v := range ue.Details {
			details[k] = v
		}
		e := &engine.Error{Code: engine.CodeInvalidArgs, Message: msg, Details: details}
		PrintJSON(s.Out, ErrorEnvelope{OK: false, Error: e.Capped()})
	}
	return ExitUsage
}
