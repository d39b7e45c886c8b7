package judge

import "strings"

// Names the offline judge must not take for people's or places' names:
// degrees and titles written like acronyms, and acronyms the other side
// spells out.

// degreeWords are academic degrees. Written "PhD" or "MBA" they look like
// names by their shape; they are what someone holds, and a page may say
// "doctorate" for "PhD".
var degreeWords = map[string]string{
	"phd": "=DOCTORATE", "dphil": "=DOCTORATE", "doctorate": "=DOCTORATE", "doctoral": "=DOCTORATE",
	"mba": "mba", "msc": "msc", "ma": "ma", "mphil": "mphil", "bsc": "bsc", "ba": "ba", "bs": "bs",
	"ms": "ms", "md": "md", "jd": "jd", "llb": "llb", "llm": "llm", "bfa": "bfa", "mfa": "mfa",
	"edd": "edd", "dds": "dds",
}

// acronymJoiners may stand inside a name an acronym abbreviates ("Bank of
// England", "Food and Drug Administration").
var acronymJoiners = setOf(`of and for the on in de du la`)

// acronymsOf returns the acronyms that runs of capitalised words in toks
// spell ("World Health Organization" gives "who"), lower case, with the
// words each covers.
func acronymsOf(toks []token) map[string][]token {
	out := map[string][]token{}
	for i := 0; i < len(toks); i++ {
		if !toks[i].capped || toks[i].kind == tokNumber {
			continue
		}
		var initials strings.Builder
		var words []token
		for j := i; j < len(toks); j++ {
			t := toks[j]
			switch {
			case t.capped && t.kind != tokNumber:
				initials.WriteString(strings.ToLower(t.text[:1]))
				words = append(words, t)
				if len(words) >= 2 {
					out[initials.String()] = append([]token(nil), words...)
				}
				continue
			case acronymJoiners[t.low] && len(words) > 0:
				continue
			}
			break
		}
	}
	return out
}

// isAcronym reports an all-capitals word of two to six letters.
func isAcronym(t token) bool {
	if len(t.text) < 2 || len(t.text) > 6 {
		return false
	}
	for _, r := range t.text {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// alignAcronyms lets the page's acronyms and spelled-out names stand for
// the claim's other form: where a unit writes "WHO" and the claim "World
// Health Organization", the unit is read as carrying those words too, and
// the other way round.
func (p *pageFacts) alignAcronyms(c *claimFacts) {
	for acr, words := range acronymsOf(c.toks) {
		if !p.acronyms[acr] {
			continue
		}
		for u, toks := range p.toks {
			for _, t := range toks {
				if isAcronym(t) && t.low == acr {
					p.addAlias(u, words...)
					break
				}
			}
		}
	}
	for _, ct := range c.toks {
		if !isAcronym(ct) || p.lows[ct.low] {
			continue
		}
		for u, toks := range p.toks {
			if _, ok := acronymsOf(toks)[ct.low]; ok {
				p.addAlias(u, ct)
			}
		}
	}
}

// addAlias appends words to unit u as if it wrote them.
func (p *pageFacts) addAlias(u int, words ...token) {
	for _, w := range words {
		w.first = false
		p.toks[u] = append(p.toks[u], w)
		p.lows[w.low] = true
		if w.key != "" {
			p.keys[w.key] = true
		}
	}
}
