package registry

import (
	"strings"
	"testing"
)

func TestRecognize(t *testing.T) {
	for _, tc := range []struct {
		url, text string
		want      ID
		ok        bool
	}{
		{"https://doi.org/10.1038/nature14539", "", ID{DOI, "10.1038/nature14539"}, true},
		{"http://dx.doi.org/10.1016/J.CELL.2020.01.001", "", ID{DOI, "10.1016/j.cell.2020.01.001"}, true},
		{"HTTPS://DOI.ORG/10.1002/(SICI)1097-4571(199806)49:8%3C693::AID-ASI4%3E3.0.CO;2-0", "", ID{DOI, "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0"}, true},
		{"https://doi.org/10.1000%2F182", "", ID{DOI, "10.1000/182"}, true},
		{"https://www.doi.org/10.5061/dryad.abc12?utm=x#frag", "", ID{DOI, "10.5061/dryad.abc12"}, true},
		{"https://doi.org/", "", ID{}, false},
		{"https://doi.org/11.1234/x", "", ID{}, false},
		{"https://example.com/paper", "Smith 2020, doi:10.1145/3292500.3330701.", ID{DOI, "10.1145/3292500.3330701"}, true},
		{"https://example.com/paper", "DOI: 10.1145/3292500.3330701", ID{DOI, "10.1145/3292500.3330701"}, true},
		{"https://arxiv.org/abs/1706.03762", "", ID{ArXiv, "1706.03762"}, true},
		{"https://arxiv.org/abs/1706.03762v7", "", ID{ArXiv, "1706.03762"}, true},
		{"https://arxiv.org/pdf/2401.01234v2.pdf", "", ID{ArXiv, "2401.01234"}, true},
		{"https://arxiv.org/pdf/2401.01234v2", "", ID{ArXiv, "2401.01234"}, true},
		{"http://export.arxiv.org/abs/math/0501001", "", ID{ArXiv, "math/0501001"}, true},
		{"https://arxiv.org/abs/hep-th/9901001v2", "", ID{ArXiv, "hep-th/9901001"}, true},
		{"https://arxiv.org/abs/math.GT/0309136", "", ID{ArXiv, "math.GT/0309136"}, true},
		{"https://arxiv.org/list/cs.LG/recent", "", ID{}, false},
		{"https://arxiv.org/abs/17060.3762", "", ID{}, false},
		{"https://pubmed.ncbi.nlm.nih.gov/31234567/", "", ID{PubMed, "31234567"}, true},
		{"https://pubmed.ncbi.nlm.nih.gov/031234567", "", ID{PubMed, "31234567"}, true},
		{"https://pubmed.ncbi.nlm.nih.gov/000/", "", ID{}, false},
		{"https://pubmed.ncbi.nlm.nih.gov/?term=cancer", "", ID{}, false},
		{"https://www.ncbi.nlm.nih.gov/pubmed/12345", "", ID{PubMed, "12345"}, true},
		{"https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6385743/", "", ID{PMC, "6385743"}, true},
		{"https://pmc.ncbi.nlm.nih.gov/articles/PMC6385743/", "", ID{PMC, "6385743"}, true},
		{"https://pmc.ncbi.nlm.nih.gov/articles/pmc6385743", "", ID{PMC, "6385743"}, true},
		{"ftp://doi.org/10.1000/182", "", ID{}, false},
		{"https://doi.org.evil.example/10.1000/182", "", ID{}, false},
		{"https://example.com/10.1000/182", "", ID{}, false},
	} {
		got, ok := Recognize(tc.url, tc.text)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Recognize(%q, %q) = %+v, %v; want %+v, %v", tc.url, tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

func TestIDString(t *testing.T) {
	for id, want := range map[ID]string{{DOI, "10.1/x"}: "DOI 10.1/x", {ArXiv, "2101.00001"}: "arXiv:2101.00001",
		{PubMed, "1"}: "PMID 1", {PMC, "2"}: "PMC2"} {
		if got := id.String(); got != want {
			t.Errorf("%+v: %q, want %q", id, got, want)
		}
	}
}

// FuzzRecognize: recognition never panics, and what it recognises is in
// canonical form: a DOI starts 10. and is lower case, arXiv has no
// version, PubMed and PMC ids are digits without leading zeros.
func FuzzRecognize(f *testing.F) {
	for _, s := range []string{"https://doi.org/10.1038/x", "https://arxiv.org/abs/1706.03762v7", "https://pubmed.ncbi.nlm.nih.gov/1/",
		"https://pmc.ncbi.nlm.nih.gov/articles/PMC1/", "https://arxiv.org/abs/math/0501001", "https://doi.org/10.1000%2F%"} {
		f.Add(s, "doi:10.1/"+s)
	}
	f.Fuzz(func(t *testing.T, u, text string) {
		id, ok := Recognize(u, text)
		if !ok {
			if id != (ID{}) {
				t.Fatalf("not recognised but %+v", id)
			}
			return
		}
		switch id.Kind {
		case DOI:
			if !strings.HasPrefix(id.Value, "10.") || strings.ToLower(id.Value) != id.Value || strings.ContainsAny(id.Value, " \t\n") {
				t.Fatalf("DOI %q not canonical", id.Value)
			}
		case ArXiv:
			if !arxivNew.MatchString(id.Value) && !arxivOld.MatchString(id.Value) || strings.Contains(id.Value, "v") && arxivNew.MatchString(id.Value) {
				t.Fatalf("arXiv %q not canonical", id.Value)
			}
		case PubMed, PMC:
			if !digits.MatchString(id.Value) || id.Value[0] == '0' {
				t.Fatalf("%s %q not canonical", id.Kind, id.Value)
			}
		default:
			t.Fatalf("unknown kind %q", id.Kind)
		}
	})
}
