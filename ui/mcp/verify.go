package mcp

import (
	"strings"

	"github.com/citegate/citegate/engine/verify"
)

// verifyResult is verify_citations' answer: seed 002's result, and a hint
// when the call looks like a mistake the result alone would not show.
type verifyResult struct {
	*verify.Result
	// Hint is set when output looks like a file path: output is the text
	// itself, and a path has no citations.
	Hint string `json:"hint,omitempty"`
}

// pathHint is the hint for an output that looks like a file path.
const pathHint = "output looks like a file path; pass the text itself (the server does not read files for verify_citations)"

// withHint adds the hint that fits output to res.
func withHint(res *verify.Result, output string) any {
	if res == nil {
		return nil
	}
	r := verifyResult{Result: res}
	if looksLikePath(output) {
		r.Hint = pathHint
	}
	return r
}

// looksLikePath reports whether output is one word on one line that starts
// like a path or ends like a document's file name.
func looksLikePath(output string) bool {
	s := strings.TrimSpace(output)
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	for _, p := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	l := strings.ToLower(s)
	for _, ext := range []string{".md", ".markdown", ".txt", ".json", ".html", ".pdf"} {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return false
}

// fetchOff tells the client how fetching is turned on: by the operator
// when the server does not allow it (a client's allow_fetch cannot), by
// leaving allow_fetch out when the client turned it off.
func fetchOff(operatorAllows bool) string {
	if !operatorAllows {
		return "the operator starts the server with --allow-fetch (a client's allow_fetch cannot turn it on)"
	}
	return "this call passed allow_fetch: false; leave it out to fetch"
}
