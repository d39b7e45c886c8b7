package judge

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The lexical judge is a transparent, offline stand-in for an LLM judge.
// It reads no meaning; it checks that one passage of the source carries
// the claim's words, its figures and its polarity. Deterministic: the same
// claim and source always give the same verdict and rationale.
//
//  1. The claim loses its citation marks ([1], URLs, DOIs, "(Smith,
//     2020)") and is cut at "and", ";", ", but", ", while" and "as well
//     as" into parts that each name a predicate and at least two terms;
//     every part must be supported, and the weakest part decides.
//  2. A part's terms: content words stemmed (Porter), synonyms folded into
//     concepts (rose/increased/higher → INCREASE), stop words dropped.
//     Weights: names (capitalised inside a sentence, acronyms, mixed case)
//     1.5, figures 1, other words 1, reporting words ("a study found")
//     0.25. Figures compare by value ("1,200" = "1200", "1.2 million" =
//     "1200000", "two" = "2").
//  3. The source is cut into units (sentences, clauses split at ", while",
//     "; ", ", but" and the like, and ~300-character pieces of long
//     sentences); passages are single units and pairs of adjacent units.
//  4. A passage's score is its coverage (matched weight / total weight),
//     multiplied by penaltyNumber for each claim figure it lacks
//     ("invented specifics": a different figure or year; a figure counts
//     only in a unit that has another claim word), penaltyEntity for each
//     missing name, penaltyNegation when the claim has a negation cue
//     ("not", "no", "never", "denied", "false", "n't", ...) and the
//     passage has none within negationReach tokens of the matched words,
//     or the other way round, and penaltyConflict when a unit states a
//     concept's opposite (decreased for increased) nearer to the claim's
//     other words than the concept itself. Names from the source's first
//     unit count as present in a passage that opens with a pronoun or
//     "the <noun>" ("It opened in 1937").
//  5. Supported when the best passage scores at least LexicalThreshold. A
//     missing figure, a negation mismatch or a contradiction always lands
//     below it. Confidence maps the score piecewise-linearly with the
//     threshold at 0.50 (0 → 0, 1 → 1), rounded to two decimals. The
//     rationale quotes the passage (5–25 words), lists matched and missing
//     terms, and names the figure, negation or contradiction at fault.
//
// Measured on testdata/lexical.json (see TestLexicalCorpusAccuracy). Known
// blind spots: who-did-what-to-whom (A acquired B vs B acquired A),
// paraphrase beyond the synonym table (deaf vs lost his hearing), figures
// written differently ("more than 21,000" vs "21,196"), a single invented
// word in an otherwise matching claim ("coffee and sugar"), and
// prepositions that reverse a verb ("voted against").
const (
	// LexicalThreshold is the passage score from which a claim counts as
	// supported, chosen on the dev split of testdata/lexical.json: a part
	// must carry about three fifths of its weighted terms.
	LexicalThreshold = 0.60

	penaltyNumber   = 0.25
	penaltyEntity   = 0.7
	penaltyNegation = 0.3
	penaltyConflict = 0.3

	weightEntity = 1.5
	weightWord   = 1.0
	weightNumber = 1.0
	weightLight  = 0.25

	// negationReach is how many tokens from a matched claim word a
	// negation cue in the source still counts.
	negationReach = 5
	// quoteMinWords and quoteMaxWords bound the quote in the rationale.
	quoteMinWords = 5
	quoteMaxWords = 25
	// maxPair is the longest two-unit passage.
	maxPair = 2 * maxUnit
)

// NewLexical returns the lexical judge: offline, free and deterministic.
func NewLexical() Judge { return lexicalJudge{} }

type lexicalJudge struct{}

func (lexicalJudge) Name() string                           { return ProviderLexical }
func (lexicalJudge) EstimateMaxCostUSD(_, _ string) float64 { return 0 }

func (lexicalJudge) Judge(ctx context.Context, claim, source string) (Verdict, error) {
	if err := ctx.Err(); err != nil {
		return Verdict{}, &Error{Kind: KindLLM, Message: "lexical: call canceled", cause: err}
	}
	start := time.Now()
	o := judgeOffline(claim, source)
	zero := 0.0
	return Verdict{
		Outcome:    o.verdict,
		Supported:  o.supported,
		Confidence: o.conf,
		Rationale:  o.rationale,
		CostUSD:    &zero,
		LatencyMS:  time.Since(start).Milliseconds(),
	}, nil
}

// claimTerm is one distinct content term of the claim.
type claimTerm struct {
	key     string
	display string // as first written in the claim
	weight  float64
	number  bool
	entity  bool
	opp     string // opposite concept key, or ""
}

// predicate reports a term that is neither a name nor a figure: what the
// claim says about its names and figures.
func (t claimTerm) predicate() bool { return !t.number && !t.entity }

// claimPart is a claim, or one conjunct of it, ready to be scored.
type claimPart struct {
	text  string
	terms []claimTerm
	negs  int      // negation cues
	cues  []string // the cues, for the rationale
	total float64  // sum of term weights
	preds bool     // has predicate terms
}

// sourceDoc is the source, split and tokenized once for all claim parts.
type sourceDoc struct {
	units   []span
	toks    [][]token
	capSeen map[string]bool // words seen capitalised inside a sentence
	lead    map[string]bool // keys of the first unit (title or lead)
}

// unitInfo is what one source unit holds of a claim part.
type unitInfo struct {
	span
	present  []bool // per term; figures only where anchored (see scanUnit)
	conflict int    // a term whose opposite the unit states, or -1
	// anaphoric: the unit opens with a pronoun or "the <noun>", so it
	// speaks of something named before.
	anaphoric bool
	negs      int // negation cues near matched claim words
	numbers   []string
}

// citationMarks are the parts of a claim that cite rather than claim:
// [1], [2, 3], [^4], URLs, DOIs and (Author, 2020) parentheticals. Their
// figures must not count as the claim's. A bare "(1937)" is a claim and
// stays.
var citationMarks = regexp.MustCompile(`\[\^?\s*\w{1,6}(?:\s*[-–,;]\s*\w{1,6})*\s*\]` +
	`|https?://\S+|\b10\.\d{4,9}/\S+` +
	`|\([A-Z][^()]{0,80}?,?\s+(?:1[5-9]|20)\d{2}[a-z]?(?:;[^()]{0,80})?\)`)

// conjunctBreaks split a claim into parts that must each be supported.
var conjunctBreaks = regexp.MustCompile(`(?i)\s+and\s+|;\s+|,\s+but\s+|,\s+while\s+|,\s+whereas\s+|\s+as well as\s+`)

func lexicalVerdict(claim, source string) (bool, float64, string) {
	claim = citationMarks.ReplaceAllString(claim, " ")
	if strings.TrimSpace(source) == "" {
		return false, 0, "The source text is empty."
	}
	parts, wi, worst, closest := assess(claim, source)
	if len(parts) == 0 {
		return false, 0, "The claim has no content words to check."
	}
	supported := worst.score >= LexicalThreshold
	conf := calibrate(worst.score, supported)
	var b strings.Builder
	if len(parts) > 1 {
		fmt.Fprintf(&b, "Claim checked in %d parts; weakest: %q. ", len(parts), strings.Join(strings.Fields(parts[wi].text), " "))
	}
	shown := worst
	if !supported {
		shown = closest
	}
	b.WriteString(rationale(source, shown, worst.score, &parts[wi], supported))
	return supported, conf, b.String()
}

// assess scores every part of the claim against the source. It returns
// the parts, the index of the weakest part (every part must be supported,
// so it decides), that part's best passage and its closest one.
func assess(claim, source string) (parts []claimPart, wi int, worst, closest passageScore) {
	doc := newSourceDoc(source)
	parts = splitClaim(claim, doc.capSeen)
	wi = -1
	for i := range parts {
		ps, cl := doc.best(&parts[i])
		if wi < 0 || ps.score < worst.score {
			wi, worst, closest = i, ps, cl
		}
	}
	return parts, wi, worst, closest
}

func newSourceDoc(source string) *sourceDoc {
	d := &sourceDoc{units: splitUnits(source), capSeen: map[string]bool{}, lead: map[string]bool{}}
	d.toks = make([][]token, len(d.units))
	for i, u := range d.units {
		d.toks[i] = tokenize(source[u.start:u.end])
		for _, t := range d.toks[i] {
			if t.capped && !t.first {
				d.capSeen[t.low] = true
			}
			if i == 0 && t.key != "" {
				d.lead[t.key] = true
			}
		}
	}
	return d
}

// splitClaim cuts the claim at "and", ";", ", but", ", while" and "as well
// as" into parts that each name at least two terms, one of them a
// predicate; a shorter piece ("… in physics and chemistry") stays joined
// to its neighbour.
func splitClaim(claim string, capSeen map[string]bool) []claimPart {
	var spans []span
	s := 0
	for _, m := range conjunctBreaks.FindAllStringIndex(claim, -1) {
		spans = append(spans, span{s, m[0]})
		s = m[1]
	}
	spans = append(spans, span{s, len(claim)})

	qualifies := func(p claimPart) bool {
		n := 0
		for _, t := range p.terms {
			if t.weight >= weightWord {
				n++
			}
		}
		return n >= 2 && p.preds
	}
	var parts []claimPart
	var merged []span
	for _, sp := range spans {
		p := newClaimPart(claim[sp.start:sp.end], capSeen)
		switch {
		case len(merged) == 0:
			merged = append(merged, sp)
			parts = append(parts, p)
		case !qualifies(p) || !qualifies(parts[len(parts)-1]):
			last := &merged[len(merged)-1]
			last.end = sp.end
			parts[len(parts)-1] = newClaimPart(claim[last.start:last.end], capSeen)
		default:
			merged = append(merged, sp)
			parts = append(parts, p)
		}
	}
	out := parts[:0]
	for _, p := range parts {
		if len(p.terms) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// newClaimPart extracts a claim's distinct terms and negation cues.
func newClaimPart(text string, capSeen map[string]bool) claimPart {
	p := claimPart{text: text}
	toks := tokenize(text)
	seen := map[string]int{}
	for i, t := range toks {
		if t.kind == tokNeg {
			if !nonCue(toks, i) {
				p.negs++
				p.cues = append(p.cues, t.low)
			}
			continue
		}
		if t.kind == tokStop {
			continue
		}
		ct := claimTerm{key: t.key, display: t.text, opp: t.opp}
		switch {
		case t.kind == tokNumber:
			ct.number, ct.weight = true, weightNumber
		case t.strong || (t.capped && !t.first) || (t.capped && t.first && capSeen[t.low] && !strings.HasPrefix(t.key, "=")):
			ct.entity, ct.weight = true, weightEntity
		case t.kind == tokLight:
			ct.weight = weightLight
		default:
			ct.weight = weightWord
		}
		if j, ok := seen[ct.key]; ok {
			if ct.weight > p.terms[j].weight {
				p.terms[j].weight, p.terms[j].entity = ct.weight, ct.entity
			}
			continue
		}
		seen[ct.key] = len(p.terms)
		p.terms = append(p.terms, ct)
	}
	for _, t := range p.terms {
		p.total += t.weight
		p.preds = p.preds || t.predicate()
	}
	return p
}

// nonCue reports cues that do not negate: "not only", "not just", "not
// merely", and "with and without" / "with or without".
func nonCue(toks []token, i int) bool {
	if toks[i].low == "without" && i >= 2 && toks[i-2].low == "with" &&
		(toks[i-1].low == "and" || toks[i-1].low == "or") {
		return true
	}
	alts, ok := negationNonCue[toks[i].low]
	if !ok || i+1 >= len(toks) {
		return false
	}
	for _, a := range strings.Split(alts, "|") {
		if toks[i+1].low == a {
			return true
		}
	}
	return false
}

// best returns the best-scoring passage for a claim part among every unit
// and every two adjacent units that fit in maxPair bytes, and the passage
// that covers most of the part (what an unsupported verdict quotes: the
// negated sentence that has every word says more than an unrelated one).
func (d *sourceDoc) best(p *claimPart) (best, closest passageScore) {
	index := make(map[string]int, len(p.terms))
	oppIndex := map[string][]int{}
	for i, t := range p.terms {
		index[t.key] = i
		if t.opp != "" {
			oppIndex[t.opp] = append(oppIndex[t.opp], i)
		}
	}
	infos := make([]unitInfo, len(d.units))
	for i, u := range d.units {
		infos[i] = scanUnit(u, d.toks[i], p, index, oppIndex)
	}
	// Names in the title or lead sentence are what the whole source is
	// about: a later "It opened in 1937" still speaks of them (but "The
	// Nile is longer" does not).
	topic := make([]bool, len(p.terms))
	for k, t := range p.terms {
		topic[k] = t.entity && d.lead[t.key]
	}
	best, closest = passageScore{score: -1}, passageScore{coverage: -1}
	for i := range infos {
		for n := 1; n <= 2 && i+n <= len(infos); n++ {
			if n == 2 && infos[i+1].end-infos[i].start > maxPair {
				continue
			}
			ps := scorePassage(infos[i:i+n], p, topic)
			if ps.better(best) {
				best = ps
			}
			if ps.closer(closest) {
				closest = ps
			}
		}
	}
	return best, closest
}

// scanUnit records which claim terms a unit holds. A claim figure counts
// only in a unit that also holds another of the claim's words (when it has
// any): "Construction began in 1933. It opened in 1937." does not support
// "it opened in 1933". A concept conflicts when the unit states its
// opposite nearer to the claim's other words than the concept itself
// ("profits fell as costs climbed" against "profits rose").
func scanUnit(u span, toks []token, p *claimPart, index map[string]int, oppIndex map[string][]int) unitInfo {
	info := unitInfo{span: u, present: make([]bool, len(p.terms)), conflict: -1, anaphoric: anaphoric(toks)}
	anchored := true
	for _, t := range p.terms {
		if !t.number {
			anchored = false
			break
		}
	}
	var matchedAt, cueAt, numAt []int
	termAt := make([][]int, len(p.terms)) // positions of each term
	oppAt := make([][]int, len(p.terms))  // positions of each term's opposite
	for i, t := range toks {
		switch {
		case t.kind == tokNeg:
			if !nonCue(toks, i) {
				cueAt = append(cueAt, i)
			}
			continue
		case t.kind == tokNumber:
			info.numbers = append(info.numbers, t.key)
		}
		if t.key == "" {
			continue
		}
		if k, ok := index[t.key]; ok {
			if p.terms[k].number {
				numAt = append(numAt, k)
			} else {
				info.present[k] = true
				anchored = true
			}
			termAt[k] = append(termAt[k], i)
			matchedAt = append(matchedAt, i)
		}
		// A word the claim itself uses is not an opposite of the claim:
		// "reduced … by more than half" against a claim with both words.
		if _, own := index[t.key]; !own {
			for _, k := range oppIndex[t.key] {
				oppAt[k] = append(oppAt[k], i)
			}
		}
	}
	if anchored {
		for _, k := range numAt {
			info.present[k] = true
		}
	}
	for k := range p.terms {
		if len(oppAt[k]) == 0 || info.conflict >= 0 {
			continue
		}
		// The claim's other words in this unit.
		var others []int
		for _, m := range matchedAt {
			if !slices.Contains(termAt[k], m) {
				others = append(others, m)
			}
		}
		if len(others) == 0 {
			continue
		}
		if len(termAt[k]) == 0 || nearest(oppAt[k], others) < nearest(termAt[k], others) {
			info.conflict = k
		}
	}
	for _, c := range cueAt {
		for _, m := range matchedAt {
			if d := c - m; d <= negationReach && d >= -negationReach {
				info.negs++
				break
			}
		}
	}
	return info
}

// nearest is the smallest distance between a position in a and one in b.
func nearest(a, b []int) int {
	d := math.MaxInt
	for _, x := range a {
		for _, y := range b {
			d = min(d, max(x-y, y-x))
		}
	}
	return d
}

type passageScore struct {
	score, coverage float64
	span
	present                      []bool
	numbers                      []string
	missingNums, missingEnts     int
	negMismatch                  bool
	passageNegated, claimNegated bool
	conflictTerm                 int // -1 when none
}

// closer orders passages by coverage, then score, then length.
func (p passageScore) closer(q passageScore) bool {
	switch {
	case p.coverage != q.coverage:
		return p.coverage > q.coverage
	case p.score != q.score:
		return p.score > q.score
	}
	return p.end-p.start < q.end-q.start
}

func (p passageScore) better(q passageScore) bool {
	switch {
	case p.score != q.score:
		return p.score > q.score
	case p.coverage != q.coverage:
		return p.coverage > q.coverage
	}
	return p.end-p.start < q.end-q.start // shorter passage, then earliest
}

func scorePassage(units []unitInfo, p *claimPart, topic []bool) passageScore {
	ps := passageScore{
		span:         span{units[0].start, units[len(units)-1].end},
		present:      make([]bool, len(p.terms)),
		conflictTerm: -1,
	}
	if slices.ContainsFunc(units, func(u unitInfo) bool { return u.anaphoric }) {
		copy(ps.present, topic)
	}
	negs := 0
	for _, u := range units {
		for k := range p.terms {
			ps.present[k] = ps.present[k] || u.present[k]
		}
		if ps.conflictTerm < 0 {
			ps.conflictTerm = u.conflict
		}
		negs += u.negs
		ps.numbers = append(ps.numbers, u.numbers...)
	}
	var matched float64
	for k, t := range p.terms {
		if ps.present[k] {
			matched += t.weight
			continue
		}
		if t.number {
			ps.missingNums++
		}
		if t.entity {
			ps.missingEnts++
		}
	}
	ps.coverage = matched / p.total
	s := ps.coverage
	for range ps.missingNums {
		s *= penaltyNumber
	}
	for range ps.missingEnts {
		s *= penaltyEntity
	}
	// Negated or not, not parity: two cues in one sentence ("does not
	// contain live virus, so it cannot cause disease") are far more often
	// two negations than a double negative.
	ps.claimNegated, ps.passageNegated = p.negs > 0, negs > 0
	if ps.claimNegated != ps.passageNegated {
		ps.negMismatch = true
		s *= penaltyNegation
	}
	if ps.conflictTerm >= 0 {
		s *= penaltyConflict
	}
	ps.score = s
	return ps
}

// calibrate maps a score to a confidence with the threshold at 0.50.
func calibrate(s float64, supported bool) float64 {
	var c float64
	if s >= LexicalThreshold {
		c = 0.5 + 0.5*(s-LexicalThreshold)/(1-LexicalThreshold)
	} else {
		c = 0.5 * max(s, 0) / LexicalThreshold
	}
	c = round2(min(max(c, 0), 1))
	if supported {
		return max(c, 0.5)
	}
	return min(c, 0.49)
}

// rationale quotes the shown passage, says what matched and what did not,
// and ends with the verdict's score (the best passage's).
func rationale(source string, best passageScore, score float64, p *claimPart, supported bool) string {
	terms := p.terms
	var b strings.Builder
	quote := quotePassage(source, best, terms)
	if supported {
		fmt.Fprintf(&b, "Supporting passage: %q.", quote)
	} else {
		fmt.Fprintf(&b, "Closest passage: %q.", quote)
	}
	var matched, missing []string
	n := 0
	for k, t := range terms {
		if t.weight < weightWord {
			continue // reporting words are not worth listing
		}
		n++
		if best.present[k] {
			matched = append(matched, t.display)
		} else {
			missing = append(missing, t.display)
		}
	}
	fmt.Fprintf(&b, " Matched %d of %d claim terms", len(matched), n)
	if len(matched) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(matched, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "; missing: %s", strings.Join(missing, ", "))
	}
	b.WriteString(".")
	if best.missingNums > 0 {
		var absent, apart []string
		for k, t := range terms {
			if t.number && !best.present[k] {
				if slices.Contains(best.numbers, t.key) {
					apart = append(apart, t.display)
				} else {
					absent = append(absent, t.display)
				}
			}
		}
		if len(absent) > 0 {
			fmt.Fprintf(&b, " The claim's figure %s is not in the passage", strings.Join(absent, ", "))
			if len(best.numbers) > 0 {
				fmt.Fprintf(&b, " (it has %s)", strings.Join(showNumbers(best.numbers), ", "))
			}
			b.WriteString(".")
		}
		if len(apart) > 0 {
			fmt.Fprintf(&b, " The figure %s appears only in a sentence without the claim's other words.", strings.Join(apart, ", "))
		}
	}
	if best.negMismatch {
		if best.claimNegated {
			fmt.Fprintf(&b, " The claim is negated (%q) but the passage is not.", strings.Join(p.cues, " "))
		} else {
			b.WriteString(" The passage negates what the claim asserts.")
		}
	}
	if best.conflictTerm >= 0 {
		fmt.Fprintf(&b, " The passage states the opposite of %q.", terms[best.conflictTerm].display)
	}
	verdict := "unsupported"
	op := "<"
	if supported {
		verdict, op = "supported", "≥"
	}
	fmt.Fprintf(&b, " Score %.2f %s %.2f: %s.", score, op, LexicalThreshold, verdict)
	return b.String()
}

// showNumbers turns number keys back into figures, without repeats, at
// most five.
func showNumbers(keys []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys {
		v := strings.TrimPrefix(k, "#")
		if seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
		if len(out) == 5 {
			break
		}
	}
	return out
}

// quotePassage returns the passage, or its quoteMaxWords-word window with
// the most claim terms, white space folded. A passage shorter than
// quoteMinWords is quoted with the words that follow it.
func quotePassage(source string, best passageScore, terms []claimTerm) string {
	words := strings.Fields(source[best.start:best.end])
	if len(words) < quoteMinWords {
		more := strings.Fields(source[best.end:min(len(source), best.end+400)])
		words = append(words, more[:min(len(more), quoteMinWords-len(words))]...)
	}
	if len(words) <= quoteMaxWords {
		return strings.Join(words, " ")
	}
	want := map[string]bool{}
	for k, t := range terms {
		if best.present[k] {
			want[t.key] = true
		}
	}
	hits := make([]int, len(words))
	for i, w := range words {
		for _, t := range tokenize(w) {
			if want[t.key] {
				hits[i] = 1
				break
			}
		}
	}
	bestStart, bestHits, cur := 0, -1, 0
	for i := range words {
		cur += hits[i]
		if i >= quoteMaxWords {
			cur -= hits[i-quoteMaxWords]
		}
		if i >= quoteMaxWords-1 && cur > bestHits {
			bestStart, bestHits = i-quoteMaxWords+1, cur
		}
	}
	q := strings.Join(words[bestStart:bestStart+quoteMaxWords], " ")
	if bestStart > 0 {
		q = "…" + q
	}
	if bestStart+quoteMaxWords < len(words) {
		q += "…"
	}
	return q
}

// anaphors open a sentence that continues about something named before.
var anaphors = setOf(`it its he his she her they their this these those`)

// anaphoric reports a unit that opens with a pronoun, or with "the"
// followed by a common noun ("The bridge", not "The Nile").
func anaphoric(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	switch first := toks[0].low; {
	case anaphors[first]:
		return true
	case first == "the":
		return len(toks) > 1 && !toks[1].capped && !toks[1].strong
	}
	return false
}
