package cli

// Exit codes, in one place. Tool commands use 0/1/2; run and demo add 4 for a
// failed Gate C, and verify 4 for a failed verification, so CI can gate on
// them; 3 when interrupted; verify 5 when its judge failed.
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
	// ExitGateFailed: run/demo completed and Gate C failed, or verify's
	// judge found a claim its source does not support, or verify checked
	// nothing (no citations, fetching off, only uncertain verdicts).
	ExitGateFailed = 4
	// ExitNotJudged: verify's judge failed (HTTP error, timeout, an answer
	// without a verdict) on a citation that could decide the document, and
	// no judged claim was unsupported: the judge, not the document, needs
	// attention. Distinct from 4 so that CI can retry rather than fail.
	ExitNotJudged = 5
)
