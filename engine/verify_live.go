package engine

import (
	"context"
	"unicode/utf8"

	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// maxShownPassage bounds the judge's text an EventVerified carries: enough
// for an operator to check a verdict against the source, small enough for a
// screen and for an event stream that holds up to HardMaxCitations of them
// (the offline judge reads a whole page, up to the 5 MiB body cap).
const maxShownPassage = 4000

// VerifiedClaim is one citation of a `run --verify` synthesis as the front
// ends show it while the run verifies: the entry verify.json will hold, and
// what the operator needs to judge it that verify.json leaves out.
type VerifiedClaim struct {
	// Claim is the text the citation supports (parse.Citation.Claim),
	// redacted.
	Claim string
	// Citation is the citation's entry in verify.json, exactly.
	Citation verify.Citation
	// GateC is the status this run's citations.jsonl gives the cited
	// source; empty when the run did not validate it, or the citation
	// names no source.
	GateC Status
	// Passage is the text the judge read, redacted; when that is longer
	// than maxShownPassage bytes, the passages of it most relevant to the
	// claim. Empty when no judge read anything.
	Passage string
	// PassageBytes is the length of the whole text the judge read, so a
	// front end can say how much of it Passage shows.
	PassageBytes int
}

// verifyProgress reports each citation Verify settles as an EventVerified
// on em, carrying the claim, the verify.json entry, the Gate C status the
// run's records give its source, and the judge's text. Like every emit, it
// gives up when ctx is cancelled. Nothing is computed when em has no
// consumer.
func verifyProgress(em *emitter, citable map[string]Status) verify.Settled {
	return func(ctx context.Context, i, total int, c parse.Citation, vc verify.Citation, passage string) error {
		if em == nil || em.ch == nil {
			if ctx.Err() != nil {
				return cancelled()
			}
			return nil
		}
		key := verify.CitableKey(c)
		claim := &VerifiedClaim{Claim: netguard.RedactText(c.Claim), Citation: vc, GateC: citable[key],
			Passage: shownPassage(passage, c.Claim), PassageBytes: len(passage)}
		return em.emit(ctx, Event{Kind: EventVerified, Index: i, Total: total, URL: key, Verified: claim})
	}
}

// shownPassage is the part of the judge's text an EventVerified carries:
// all of it up to maxShownPassage bytes, else the passages most relevant to
// the claim within that budget (cut on a rune boundary, should the page's
// lead that Passages always keeps exceed it), redacted like every text
// that reaches a screen.
func shownPassage(text, claim string) string {
	if len(text) > maxShownPassage {
		text = judge.Passages(text, claim, maxShownPassage)
	}
	if len(text) > maxShownPassage {
		cut := maxShownPassage
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + " …"
	}
	return netguard.RedactText(text)
}
