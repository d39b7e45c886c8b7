// The offline judge's contradiction checks: changed figures and years, negation and direction, swapped names.

package judge

import (
	"fmt"
	"math"
)

// contradiction looks in the aligned passage for a clear contradiction of
// the claim and describes it, or returns "".
func (p *pageFacts) contradiction(c *claimFacts, lo, hi int) string {
	// A changed year: the sentence that states the claim's predicate
	// ("opened to traffic") gives another year than the claim, and not the
	// claim's.
	if why := p.changedYear(c); why != "" {
		return why
	}
	// Negation and hedges are read in the one sentence of the passage
	// that carries most of the claim's words: a "not" in the sentence
	// next to it is about something else.
	center := p.bestUnit(c, lo, hi)
	if center < 0 || p.windowCover(c, center, center) < 0.5 {
		return "" // no sentence is about the claim: nothing to contradict
	}
	toks := p.toks[center]
	// A term counts only where it stands near another of the claim's words:
	// "allow travel by airplane" says nothing about "not allowed to drink".
	inUnit := nearClaimWords(toks, c)
	if why := polarityClash(c, toks, inUnit); why != "" {
		return why
	}
	// The opposite predicate: next to the word the claim's predicate is
	// about, the sentence states the opposite ("profits fell" for "profits
	// rose"), and nowhere near it the claim's own.
	claimKeys := map[string]bool{}
	for _, t := range c.terms {
		claimKeys[t.key] = true
	}
	for i, t := range c.toks {
		if t.opp == "" || t.kind != tokWord || claimKeys[t.opp] {
			continue // a claim that states both ("after … the previous day") is not contradicted by either
		}
		anchor := figureAnchor(c.toks, i)
		if anchor == "" || anchor == t.key {
			continue
		}
		for u := lo; u <= hi; u++ {
			if p.nearestConcept(u, anchor, t.key, t.opp) == t.opp {
				return fmt.Sprintf("the source states the opposite of %q", t.text)
			}
		}
	}
	// A vote the other way: "voted for" against "voted against".
	if cs, ss := voteStance(c.toks), voteStance(toks); cs != "" && ss != "" && cs != ss {
		return fmt.Sprintf("the source says voted %s, the claim voted %s", ss, cs)
	}
	// A hedge the claim drops.
	if !c.hedged {
		for i, t := range toks {
			if !isHedge(toks, i) {
				continue
			}
			k := nextTerm(toks, i)
			for _, ct := range c.terms {
				if k != "" && ct.key == k && ct.weight >= weightWord && inUnit[k] {
					return fmt.Sprintf("the source hedges (%q %s), the claim does not", t.text, ct.display)
				}
			}
		}
	}
	// A swapped name: the claim names someone the page never mentions, and
	// the sentence that otherwise states the claim names someone else.
	if other := p.swappedName(c, center); other != "" {
		return other
	}
	// A different figure for the same quantity: the claim's figure is
	// nowhere on the page, and the passage gives another one next to the
	// word the claim's figure qualifies.
	for _, f := range c.figures {
		if !f.number || p.hasFigure(f) {
			continue
		}
		anchor := figureAnchor(c.toks, f.pos)
		if anchor == "" {
			continue
		}
		for i := lo; i <= hi; i++ {
			ut := p.toks[i]
			for j, t := range ut {
				if t.kind != tokNumber || t.key == f.key {
					continue
				}
				if v, ok := plainNumber(t.key); ok && yearLike(v) != yearLike(f.value) {
					continue
				}
				if figureAnchor(ut, j) == anchor {
					return fmt.Sprintf("the source gives %s where the claim says %s", t.text, f.display)
				}
			}
		}
	}
	return ""
}

// predicateCover is the share of the claim's predicate words (not names,
// not figures) that a sentence must carry to be the one stating the claim.
const predicateCover = 0.75

// changedYear describes a changed year, or returns "".
func (p *pageFacts) changedYear(c *claimFacts) string {
	var years []fact
	for _, f := range c.figures {
		if f.number && yearLike(f.value) {
			years = append(years, f)
		}
	}
	if len(years) != 1 {
		return "" // a claim with several years pairs them with several predicates
	}
	var preds []claimTerm
	var total float64
	for _, t := range c.terms {
		if t.predicate() && t.weight >= weightWord {
			preds = append(preds, t)
			total += t.weight
		}
	}
	if len(preds) < 2 {
		return ""
	}
	predKey := map[string]bool{}
	for _, t := range preds {
		predKey[t.key] = true
	}
	for u, toks := range p.toks {
		in := map[string]bool{}
		var other string
		has := false
		for i, t := range toks {
			in[t.key] = true
			if t.kind != tokNumber {
				continue
			}
			if v, ok := plainNumber(t.key); ok && yearLike(v) {
				switch {
				case t.key == years[0].key:
					has = true
				case nearAny(toks, i, predKey):
					other = t.text // a year next to the predicate, not a dateline's
				}
			}
		}
		var w float64
		for _, t := range preds {
			if in[t.key] {
				w += t.weight
			}
		}
		if w/total >= predicateCover && !has && other != "" {
			return fmt.Sprintf("the sentence that states it gives %s, not %s (%q)", other, years[0].display, quoteUnit(p.src, p.units[u]))
		}
	}
	return ""
}

// voteStance is "for" or "against" after a form of "vote" in toks, or "".
func voteStance(toks []token) string {
	for i := 0; i+1 < len(toks); i++ {
		if stemWord(toks[i].low) != "vote" {
			continue
		}
		switch toks[i+1].low {
		case "for", "against":
			return toks[i+1].low
		}
	}
	return ""
}

// nearAny reports a token with one of keys within nearReach of toks[i].
func nearAny(toks []token, i int, keys map[string]bool) bool {
	for j := max(0, i-nearReach); j < len(toks) && j <= i+nearReach; j++ {
		if keys[toks[j].key] {
			return true
		}
	}
	return false
}

// nearestConcept returns which of the keys a or b stands nearest to an
// occurrence of anchor in unit u (within nearReach tokens), or "".
func (p *pageFacts) nearestConcept(u int, anchor, a, b string) string {
	toks := p.toks[u]
	best, dist := "", nearReach+1
	for i, t := range toks {
		if t.key != anchor {
			continue
		}
		for j := max(0, i-nearReach); j < len(toks) && j <= i+nearReach; j++ {
			if k := toks[j].key; (k == a || k == b) && abs(i-j) < dist {
				best, dist = k, abs(i-j)
			}
		}
	}
	return best
}

// swappedName describes a name swap in unit center, or returns "": exactly
// one of the claim's names is missing from the page, the unit carries at
// least swapCover of the claim's other words, and it names someone the
// claim does not.
func (p *pageFacts) swappedName(c *claimFacts, center int) string {
	var missing *fact
	for i := range c.names {
		if !p.hasName(c.names[i]) {
			if missing != nil && missing.key != c.names[i].key {
				return ""
			}
			missing = &c.names[i]
		}
	}
	if missing == nil {
		return ""
	}
	inUnit := map[string]bool{}
	for _, t := range p.toks[center] {
		inUnit[t.key] = true
	}
	var have, total float64
	for _, t := range c.terms {
		if t.key == missing.key || t.weight < weightWord {
			continue
		}
		total += t.weight
		if inUnit[t.key] {
			have += t.weight
		}
	}
	if total == 0 || have/total < swapCover {
		return ""
	}
	claimNames := map[string]bool{}
	for _, f := range c.names {
		claimNames[f.key] = true
	}
	for _, t := range p.toks[center] {
		if (t.strong || (t.capped && !t.first)) && t.kind == tokWord && !claimNames[t.low] && !lightWords[t.low] && degreeWords[t.low] == "" {
			return fmt.Sprintf("the source names %q where the claim names %q", t.text, missing.display)
		}
	}
	return ""
}

// swapCover is the share of the claim's other words a sentence must carry
// for a different name in it to count as a swap.
const swapCover = 0.7

// nearReach is how many tokens apart two claim words must stand in a
// sentence to be read as one statement.
const nearReach = 6

// nearClaimWords returns the keys of claim words that occur in toks within
// nearReach tokens of another, different claim word.
func nearClaimWords(toks []token, c *claimFacts) map[string]bool {
	claimKey := map[string]bool{}
	for _, t := range c.terms {
		if t.weight >= weightWord {
			claimKey[t.key] = true
		}
	}
	var pos []int
	for i, t := range toks {
		if claimKey[t.key] {
			pos = append(pos, i)
		}
	}
	out := map[string]bool{}
	for a, i := range pos {
		for b, j := range pos {
			if a != b && toks[i].key != toks[j].key && abs(i-j) <= nearReach {
				out[toks[i].key] = true
				break
			}
		}
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// figureAnchor is the key of the content word a figure qualifies: the
// nearest content word within three tokens, after the figure first
// ("12 percent", "40 people"), then before it ("rose 12").
func figureAnchor(toks []token, pos int) string {
	for d := 1; d <= 3; d++ {
		if j := pos + d; j < len(toks) && toks[j].kind == tokWord {
			return toks[j].key
		}
		if j := pos - d; j >= 0 && toks[j].kind == tokWord {
			return toks[j].key
		}
	}
	return ""
}

func yearLike(v float64) bool { return v >= 1000 && v <= 2100 && v == math.Trunc(v) }

// bestUnit is the unit in lo..hi that carries most of the claim's words,
// or -1.
func (p *pageFacts) bestUnit(c *claimFacts, lo, hi int) int {
	best, at := -1.0, -1
	for u := lo; u <= hi; u++ {
		if w := p.windowCover(c, u, u); w > best {
			best, at = w, u
		}
	}
	return at
}

// polarityClash describes the claim's predicate negated on one side only,
// or returns "". A negation is read by polarity, not by the word it
// governs: "attracted no bids" and "failed to attract a single bid" both
// deny, though "no" governs "bids" and "failed" governs "attract". So one
// side must negate a shared word and the other side deny nothing near it.
func polarityClash(c *claimFacts, toks []token, inUnit map[string]bool) string {
	claimNeg := map[string]bool{}
	for _, k := range c.negated {
		claimNeg[k] = true
	}
	srcNeg := negatedTerms(toks)
	srcDenies := false
	for k := range srcNeg {
		if inUnit[k] || claimWord(c, k) {
			srcDenies = true
		}
	}
	srcDenies = srcDenies || negativePolarity(toks)
	claimDenies := len(c.negated) > 0 || negativePolarity(c.toks)
	for _, t := range c.terms {
		if t.weight < weightWord || !inUnit[t.key] {
			continue
		}
		switch {
		case claimNeg[t.key] && !srcNeg[t.key] && !srcDenies:
			return fmt.Sprintf("the claim negates %q, the source does not", t.display)
		case srcNeg[t.key] && !claimNeg[t.key] && !claimDenies:
			return fmt.Sprintf("the source negates %q", t.display)
		}
	}
	return ""
}

func claimWord(c *claimFacts, key string) bool {
	for _, t := range c.terms {
		if t.key == key && t.weight >= weightWord {
			return true
		}
	}
	return false
}

// negatedTerms are the keys of the content words a negation cue in toks
// governs: the first within cueReach tokens after it.
func negatedTerms(toks []token) map[string]bool {
	out := map[string]bool{}
	for i, t := range toks {
		if t.kind != tokNeg || nonCue(toks, i) {
			continue
		}
		if k := nextTerm(toks, i); k != "" {
			out[k] = true
		}
	}
	return out
}

// negativePolarity reports a phrase that denies without a negation cue of
// its own: "a single" and "any" after a negative verb ("failed to attract
// a single bid"), "zero", "none of".
func negativePolarity(toks []token) bool {
	for i, t := range toks {
		switch t.low {
		case "zero":
			return true
		case "single":
			if i > 0 && toks[i-1].low == "a" && negatedBefore(toks, i) {
				return true
			}
		}
	}
	return false
}

// negatedBefore reports a negation cue within cueReach+2 tokens before i.
func negatedBefore(toks []token, i int) bool {
	for j := max(0, i-cueReach-2); j < i; j++ {
		if toks[j].kind == tokNeg && !nonCue(toks, j) {
			return true
		}
	}
	return false
}
