package engine

import (
	"unicode/utf8"

	"github.com/citegate/citegate/netguard"
)

// Caps on client text the engine repeats. An MCP client or a command line
// can send any amount of it; an audit line or an error envelope must stay
// readable and small whatever was sent.
const (
	// MaxReasonRunes is the longest reason a tool or a run accepts. A
	// reason is an argument the caller chose, so a longer one is refused
	// (INVALID_ARGS) rather than stored cut: the audit log then holds
	// exactly what was given.
	MaxReasonRunes = 1000
	// MaxEchoBytes caps every string an error envelope's details repeat
	// (paths, parser messages, values): longer ones are cut at a character
	// boundary and end in "…".
	MaxEchoBytes = 512
	// MaxMessageBytes caps an error's message, which can quote a schema
	// message or an argument.
	MaxMessageBytes = 1024
)

// checkReasonLength refuses a reason over MaxReasonRunes without echoing it.
func checkReasonLength(reason string) *Error {
	if n := utf8.RuneCountInString(reason); n > MaxReasonRunes {
		return newError(CodeInvalidArgs, "reason is too long: at most 1000 characters (a sentence saying why this call is made)",
			map[string]any{"reason_chars": n, "max_reason_chars": MaxReasonRunes})
	}
	return nil
}

// Capped returns e with its message and every string in its details (and in
// string lists there) cut to the caps above; e itself when nothing is too
// long. Envelopes are printed through AsError, which applies it.
func (e *Error) Capped() *Error {
	if e == nil || !e.tooLong() {
		return e
	}
	c := &Error{Code: e.Code, Message: netguard.Clip(e.Message, MaxMessageBytes), Details: make(map[string]any, len(e.Details))}
	for k, v := range e.Details {
		c.Details[k] = capValue(v)
	}
	return c
}

func (e *Error) tooLong() bool {
	if len(e.Message) > MaxMessageBytes {
		return true
	}
	for _, v := range e.Details {
		switch v := v.(type) {
		case string:
			if len(v) > MaxEchoBytes {
				return true
			}
		case []string:
			for _, s := range v {
				if len(s) > MaxEchoBytes {
					return true
				}
			}
		}
	}
	return false
}

// capValue caps a detail that is a string or a list of strings; other
// values (numbers, problem lists built by the engine) pass as they are.
func capValue(v any) any {
	switch v := v.(type) {
	case string:
		return netguard.Clip(v, MaxEchoBytes)
	case []string:
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = netguard.Clip(s, MaxEchoBytes)
		}
		return out
	}
	return v
}
