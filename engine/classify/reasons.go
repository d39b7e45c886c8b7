package classify

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/citegate/citegate/netguard"
)

// Every verdict other than valid names the rule that decided it and quotes
// the evidence the rule matched, so that a reader of the notes can check
// the accusation without fetching the page again:
//
//	soft 404 [title-phrase]: title "Stránka nenájdená – Blog"
//	bot wall [challenge-marker]: cloudflare challenge, marker "_cf_chl_opt"
//	http 403 [http-status]: status "403 Forbidden"
//
// The first words are the rule family (see Verdict.Reason), the bracket
// the rule, and the detail holds at least one quoted piece of evidence: a
// title, a heading, a phrase, a header, a marker, a path or the status
// line, collapsed, redacted and cut at evidenceMax runes.

// evidenceMax caps one quoted piece of evidence, in runes ("…" included).
const evidenceMax = 200

// finding is what a negative rule found: its tag and its detail (evidence
// included). The zero finding means the rule did not fire.
type finding struct{ rule, detail string }

func (f finding) ok() bool { return f.rule != "" }

// tagged renders a finding under its rule family: "family [rule]: detail".
func tagged(family string, f finding) string {
	return family + " [" + f.rule + "]: " + f.detail
}

// evidence quotes a piece of page or response text for a reason:
// whitespace collapsed, control and invisible characters dropped, secrets
// redacted, at most evidenceMax runes, Go-quoted (so a quote inside it
// cannot end it early).
func evidence(s string) string {
	s = collapse(window(s, 16*evidenceMax))
	if s != "" {
		s = collapse(netguard.RedactText(s))
	}
	return strconv.Quote(cutRunes(s, evidenceMax))
}

// statusLine is the evidence of a status rule: `status "404 Not Found"`.
func statusLine(st int) string {
	line := strconv.Itoa(st)
	if t := http.StatusText(st); t != "" {
		line += " " + t
	}
	return "status " + evidence(line)
}

// hasEvidence reports whether a reason names its rule and quotes its
// evidence (the test of every negative verdict, and of the format above).
func hasEvidence(reason string) bool {
	open := strings.Index(reason, " [")
	shut := strings.Index(reason, "]: ")
	if open <= 0 || shut < open+3 {
		return false
	}
	rule := reason[open+2 : shut]
	for _, r := range rule {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	detail := reason[shut+3:]
	first := strings.IndexByte(detail, '"')
	return first >= 0 && strings.IndexByte(detail[first+1:], '"') >= 0
}
