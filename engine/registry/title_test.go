package registry

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	const reg = "Single-Molecule FRET Studies on Alpha-Synuclein Oligomerization of Parkinson’s Disease Genetically Related Mutants"
	for _, tc := range []struct {
		name, registry, cited, line string
		compared, agree             bool
	}{
		{"exact", reg, reg, "", true, true},
		{"case and punctuation", reg, "single molecule fret studies on alpha synuclein oligomerization of parkinsons disease genetically related mutants", "", true, true},
		{"greek letter", reg, "Single-molecule FRET studies on α-synuclein oligomerization of Parkinson's disease mutants", "", true, true},
		{"accents", "Rémission tardive après traitement par rituximab", "Remission tardive apres traitement par rituximab", "", true, true},
		{"subtitle dropped", "Delay in Diagnosis of Spinal Muscular Atrophy: A Systematic Literature Review", "Delay in diagnosis of spinal muscular atrophy", "", true, true},
		{"truncated", "The interference of low back pain on everyday functions of life in care workers for persons with intellectual disabilities",
			"The interference of low back pain on everyday functions…", "", true, true},
		{"markup", "<scp>T</scp>reebase: an <scp>R</scp> package for discovery of online phylogenies", "Treebase: an R package for discovery of online phylogenies", "", true, true},
		{"light paraphrase", "Construction of DNA codes by using algebraic number theory", "Constructing DNA Codes Using Algebraic Number Theory", "", true, true},
		{"reference line", "Heat-bath random walks with Markov bases", "arXiv:1605.08386",
			"- Dethridge et al. (2016). Heat-bath random walks with Markov bases. arXiv:1605.08386.", true, true},
		{"swapped", "Urban Heat Islands and Tree Canopy Cover", "Battery degradation in electric bus fleets", "", true, false},
		{"swapped, shared field word", "From Natural Ecology to Cultural Ecology", "Chemical Ecology", "", true, false},
		{"no title: identifier", reg, "doi:10.1038/srep16696", "", false, false},
		{"no title: url", reg, "https://doi.org/10.1038/srep16696", "", false, false},
		{"no title: author year", reg, "Smith et al. 2020", "", false, false},
		{"no title: generic", reg, "full text (PDF)", "", false, false},
		{"no registry title", "", "Anything at all here", "", false, false},
	} {
		c := Compare(tc.registry, tc.cited, tc.line)
		if c.Compared != tc.compared || c.Agree != tc.agree {
			t.Errorf("%s: %+v, want compared=%v agree=%v", tc.name, c, tc.compared, tc.agree)
		}
	}
}

func TestNamesVenue(t *testing.T) {
	if !NamesVenue("PLOS ONE", "PLoS ONE", "Public Library of Science (PLoS)") || !NamesVenue("Nature Communications", "Nature Communications") {
		t.Error("a venue link text was not recognised")
	}
	if NamesVenue("Tidal energy arrays", "Nature Communications") || NamesVenue("", "Nature") {
		t.Error("a title was taken for a venue")
	}
}

func TestDecide(t *testing.T) {
	doi := ID{DOI, "10.1/x"}
	found := Answer{Found: true, Work: Work{Title: "Urban Heat Islands and Tree Canopy Cover", Publisher: "P", Venue: "Journal of Cities", Registry: "Crossref"}}
	for _, tc := range []struct {
		name       string
		a          Answer
		link       string
		want       Outcome
		noteSubstr string
	}{
		{"agrees", found, "Urban heat islands and tree canopy cover", Valid, "title agrees"},
		{"no title", found, "doi:10.1/x", Valid, "no title to compare"},
		{"venue only", found, "Journal of Cities", Valid, "no title to compare"},
		{"swapped", found, "Battery degradation in bus fleets", Mismatch, `DOI 10.1/x belongs to "Urban Heat Islands and Tree Canopy Cover"`},
		{"not registered", Answer{NotFoundBy: "doi.org"}, "x", Invalid, "DOI 10.1/x not registered at doi.org"},
		{"down", Answer{Err: unavailable("Crossref", "HTTP 503")}, "x", Unavailable, "registry unavailable: Crossref: HTTP 503"},
		{"retracted", Answer{Found: true, Work: Work{Title: "Urban Heat Islands and Tree Canopy Cover", Registry: "Crossref", Retracted: "retracted: Crossref lists retraction 10.1/y"}},
			"Urban heat islands and tree canopy cover", Valid, "; retracted: Crossref lists retraction 10.1/y"},
		{"other agency", Answer{Found: true, Work: Work{Registry: "doi.org"}}, "Anything", Valid, "registered at doi.org; no title to compare"},
	} {
		v := Decide(doi, tc.a, tc.link, "")
		if v.Outcome != tc.want || !strings.Contains(v.Notes, tc.noteSubstr) {
			t.Errorf("%s: %+v, want %v with %q", tc.name, v, tc.want, tc.noteSubstr)
		}
	}
	if v := Decide(ID{ArXiv, "2101.99999"}, Answer{NotFoundBy: "arXiv"}, "", ""); v.Notes != "registry: arXiv:2101.99999 not found in arXiv" {
		t.Errorf("arXiv not found: %q", v.Notes)
	}
}

// FuzzCompare: the comparison never panics, its score is a share, a title
// compared with itself agrees, and agreeing needs a comparison.
func FuzzCompare(f *testing.F) {
	f.Add("Single-Molecule FRET Studies on α-Synuclein", "single molecule fret studies", "- Smith (2020). Title. doi:10.1/x")
	f.Add("<i>E. coli</i> growth", "E coli growth rates", "")
	f.Fuzz(func(t *testing.T, reg, cited, line string) {
		c := Compare(reg, cited, line)
		if c.Score < 0 || c.Score > 1 || (c.Agree && !c.Compared) {
			t.Fatalf("Compare(%q, %q, %q) = %+v", reg, cited, line, c)
		}
		if s := Compare(reg, reg, ""); s.Compared && !s.Agree {
			t.Fatalf("%q does not agree with itself: %+v", reg, s)
		}
	})
}
