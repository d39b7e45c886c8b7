package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// claimDetailModel shows one verified claim in a scrolling pager: the
// claim, where the citation is, its source and that source's Gate C
// status, how the source resolved, the judge's verdict and rationale, and
// the passage the judge read.
type claimDetailModel struct {
	pager
	r     *claimRow
	total int
}

func newClaimDetailModel(c *common) claimDetailModel {
	return claimDetailModel{pager: newPager(c)}
}

func (d *claimDetailModel) setSize(height int) {
	if d.resize(height) && d.r != nil {
		d.replace(d.render())
	}
}

// open shows r from the top.
func (d *claimDetailModel) open(r *claimRow, total int) {
	d.r, d.total = r, total
	d.show(d.render())
}

func (d claimDetailModel) update(msg tea.Msg) (claimDetailModel, tea.Cmd) {
	var cmd tea.Cmd
	d.pager, cmd = d.scroll(msg)
	return d, cmd
}

func (d claimDetailModel) view() string {
	r := d.r
	if r == nil {
		return ""
	}
	return d.frame(fmt.Sprintf("Claim%s · %s · %s", ofTotal(r.index, d.total), verdictCell(r.v.Citation), r.raw))
}

// render builds the detail text for the current width. Everything in it
// came through the engine redacted; clean keeps control characters from a
// fetched page off the screen.
func (d *claimDetailModel) render() string {
	r := d.r
	st := d.c.st
	v := r.v
	vc := v.Citation
	out := newDoc(d.c)

	out.field("Claim", oneLine(v.Claim))
	ref := vc.Citation
	out.field("Citation", fmt.Sprintf("%s · %s · bytes %d–%d of the synthesis", r.raw, clean(ref.Kind), ref.OffsetStart, ref.OffsetEnd))
	if ref.Identifier != "" && ref.Identifier != ref.Raw {
		out.field("Identifier", clean(ref.Identifier))
	}
	out.field("Source", orDash(r.url))
	if s := vc.Source; s != nil && s.URL != "" && clean(s.URL) != r.url {
		out.field("Fetched URL", clean(s.URL))
	}
	gate := gateCell(v.GateC, r.url)
	switch {
	case v.GateC != "":
		gate = gateStyle(st, v.GateC).Render(gate) + " (citations.jsonl)"
	case r.url != "":
		gate += " (this run did not validate the source)"
	}
	out.field("Gate C status", gate)

	resolve := orDash(clean(vc.ResolveStatus))
	if e := vc.ResolveError; e != nil {
		resolve += " · " + clean(e.Kind) + ": " + clean(e.Message)
	}
	out.field("Resolve status", resolve)
	if s := vc.Source; s != nil {
		fetched := fmt.Sprintf("HTTP %d · %s · %d bytes", s.Status, orDash(clean(s.ContentType)), s.BytesFetched)
		if s.Truncated {
			fetched += " (truncated at the body cap)"
		}
		out.field("Fetched", fetched)
	}

	out.section("Judge")
	verdict := verdictStyle(st, r.verdict).Render(r.verdict.symbol() + " " + r.verdict.word())
	if j := vc.Judge; j != nil {
		if r.verdict == verdictUncertain {
			guess := "unsupported"
			if j.Supported {
				guess = "supported"
			}
			verdict += " (best guess: " + guess + ")"
		}
		out.field("Verdict", verdict)
		out.field("Confidence", fmt.Sprintf("%.2f", j.Confidence))
		out.field("Rationale", clean(j.Rationale))
		call := "cost unknown"
		if j.CostUSD != nil {
			call = fmt.Sprintf("$%.6f", *j.CostUSD)
		}
		call += fmt.Sprintf(" · %d ms", j.LatencyMS)
		if j.InputTokens+j.OutputTokens > 0 {
			call += fmt.Sprintf(" · %d input / %d output tokens", j.InputTokens, j.OutputTokens)
		}
		out.field("Call", call)
	} else {
		out.field("Verdict", verdict+": "+notJudgedReason(vc))
	}

	switch {
	case v.Passage != "" && len(v.Passage) < v.PassageBytes:
		out.section(fmt.Sprintf("Passage the judge read (the parts most relevant to the claim, of %d bytes)", v.PassageBytes))
	case v.Passage != "":
		out.section("Passage the judge read")
	default:
		out.section("Passage")
		out.line("  " + st.dim.Render("none: no judge read this source"))
		return out.String()
	}
	// The page's paragraphs stay apart; each is wrapped to the width.
	for _, para := range strings.Split(v.Passage, "\n") {
		if para = strings.TrimSpace(clean(para)); para != "" {
			out.block(para, "  ")
		}
	}
	return out.String()
}
