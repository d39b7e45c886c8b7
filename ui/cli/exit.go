package cli

// Exit codes, in one place. Tool commands use 0/1/2; run and demo add 4 for a
// failed Gate C, and verify 4 for a failed verification, so CI can gate on
// them; 3 when interrupted.
const (
	// ExitOK: the tool succeeded, or Gate C passed.
	ExitOK = 0
	// ExitFailure: the envelope is {"ok":false,...} (bad input, write failure).
	ExitFailure = 1
	// ExitUsage: unknown command, unknown flag, malformed --args-json.
	ExitUsage = 2
	// ExitInterrupted: cancelled (Ctrl-C, SIGTERM) before completion; no
	// artifacts were written.
	ExitInterrupted = 3
	// ExitGateFailed: run/demo completed and Gate C failed, or verify found
	// fewer than half of the resolved sources supporting their claims.
	ExitGateFailed = 4
)
