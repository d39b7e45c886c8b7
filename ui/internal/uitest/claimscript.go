// Package uitest holds test fixtures shared by the tests of package ui and
// ui/tui: the two front ends read the same event stream, so their tests
// feed the same script. Only tests import it; it is not linked into the
// binary.
package uitest

import (
	"strings"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/verify"
)

const (
	claimSupported     = "Cold-climate heat pumps now keep a seasonal coefficient of performance of about 2.5 even when winter temperatures fall to minus 20 degrees Celsius."
	passageSupported   = "Cold-climate heat pump field study\nOver three winters we monitored 412 air-source heat pumps in homes in Minnesota, Maine and northern Sweden.\nThe units kept a seasonal coefficient of performance of 2.5 on average, and stayed above 1.8 even on days when outdoor temperatures fell to minus 20 degrees Celsius."
	rationaleSupported = "every fact of the claim is on the page: 2.5, minus 20 degrees Celsius, seasonal coefficient of performance"
)

func judged(verdict string, supported bool, conf float64, rationale string) *verify.JudgeVerdict {
	zero := 0.0
	return &verify.JudgeVerdict{Verdict: verdict, Supported: supported, Confidence: conf, Rationale: rationale, CostUSD: &zero, LatencyMS: 3}
}

func verifiedEvent(i, total int, url string, gate engine.Status, raw, claim, passage string, vc verify.Citation) engine.Event {
	vc.Citation = verify.CitationRef{Raw: raw, Kind: "numbered", Identifier: strings.Trim(raw, "[]"), OffsetStart: 100 * (i + 1), OffsetEnd: 100*(i+1) + len(raw)}
	return engine.Event{Kind: engine.EventVerified, Index: i, Total: total, URL: url,
		Verified: &engine.VerifiedClaim{Claim: claim, Citation: vc, GateC: gate, Passage: passage, PassageBytes: len(passage)}}
}

// ClaimScript is a scripted verify step: five claims, one per verdict and
// two reasons for not judging, as engine.EventVerified reports them.
func ClaimScript() []engine.Event {
	const n = 5
	return []engine.Event{
		verifiedEvent(0, n, "http://research.heat.example/cold-climate-study", engine.StatusValid, "[1]", claimSupported, passageSupported,
			verify.Citation{ResolveStatus: "ok", Source: &verify.SourceInfo{URL: "http://research.heat.example/cold-climate-study", Status: 200, ContentType: "text/html", BytesFetched: 657},
				Judge: judged("supported", true, 0.82, rationaleSupported)}),
		verifiedEvent(1, n, "http://news.heat.example/norway-trials", engine.StatusValid, "[2]", "Field trials in Norway reported that installed heat pumps cut household heating bills by 80 percent.", "Bills fell by 30 percent.",
			verify.Citation{ResolveStatus: "ok", Source: &verify.SourceInfo{URL: "http://news.heat.example/norway-trials", Status: 200, ContentType: "text/html", BytesFetched: 634},
				Judge: judged("unsupported", false, 0.7, "the page gives 30 percent for the same quantity, not 80 percent")}),
		verifiedEvent(2, n, "http://grid.heat.example/annual-update", "", "[3]", "Installation costs fell by a third between 2019 and 2024.", "Annual update of the grid operator.",
			verify.Citation{ResolveStatus: "ok", Source: &verify.SourceInfo{URL: "http://grid.heat.example/annual-update", Status: 200, ContentType: "text/html", BytesFetched: 658},
				Judge: judged("uncertain", false, 0.4, "found installation but not a third, 2019 or 2024")}),
		verifiedEvent(3, n, "https://www.science.org/doi/10.1126/science.adg7942", engine.StatusBlocked, "[4]", "Solid-state cells suppress dendrites.", "",
			verify.Citation{ResolveStatus: "error", ResolveError: &verify.ResolveError{Kind: "not_citable", Message: "citations.jsonl marks this source blocked: synthesis must not cite it"}}),
		verifiedEvent(4, n, "", "", "[5]", "Costs fell by a third.", "",
			verify.Citation{ResolveStatus: "skipped", ResolveError: &verify.ResolveError{Kind: "unresolvable_kind", Message: "no source to fetch"}}),
	}
}
