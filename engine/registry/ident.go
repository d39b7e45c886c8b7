package registry

import (
	"net/url"
	"regexp"
	"strings"
)

// Kind is the registry an identifier belongs to.
type Kind string

// The identifier kinds the registry rung checks.
const (
	DOI    Kind = "doi"
	ArXiv  Kind = "arxiv"
	PubMed Kind = "pubmed"
	PMC    Kind = "pmc"
)

// ID is a scholarly identifier found in a cited URL or its link text. It
// rides alongside the citation: the normalized URL and cid never change.
type ID struct {
	Kind Kind
	// Value is the identifier in its canonical form: a DOI lower-cased
	// (DOIs are case-insensitive), an arXiv id without its version, a
	// PubMed id as digits, a PMC id as digits without "PMC".
	Value string
}

// String is the identifier as a reader writes it ("DOI 10.1/x", "arXiv:2101.00001").
func (id ID) String() string {
	switch id.Kind {
	case DOI:
		return "DOI " + id.Value
	case ArXiv:
		return "arXiv:" + id.Value
	case PubMed:
		return "PMID " + id.Value
	case PMC:
		return "PMC" + id.Value
	}
	return string(id.Kind) + ":" + id.Value
}

var (
	// doiRe is a DOI as Crossref recommends matching it: 10.NNNN+/suffix.
	doiRe = regexp.MustCompile(`^10\.\d{4,9}/\S+$`)
	// doiInText finds "doi:10.…" written in link text.
	doiInText = regexp.MustCompile(`(?i)\bdoi:\s*(10\.\d{4,9}/[^\s"<>]+)`)
	// arxivNew is yymm.nnnn(n) with an optional version; arxivOld is the
	// pre-2007 archive/yymmnnn form (math/0501001, hep-th/9901001v2,
	// math.GT/0309136).
	arxivNew  = regexp.MustCompile(`^(\d{4}\.\d{4,5})(v\d+)?$`)
	arxivOld  = regexp.MustCompile(`^([a-z][a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?$`)
	digits    = regexp.MustCompile(`^\d{1,9}$`)
	pmcDigits = regexp.MustCompile(`^(?i:pmc)(\d{1,9})$`)
)

// Recognize finds the identifier a citation carries: in the cited URL
// first (doi.org, arxiv.org, PubMed, PMC), then a "doi:" in the link text.
func Recognize(rawURL, linkText string) (ID, bool) {
	if id, ok := fromURL(rawURL); ok {
		return id, true
	}
	if m := doiInText.FindStringSubmatch(linkText); m != nil {
		return cleanDOI(m[1])
	}
	return ID{}, false
}

// fromURL recognises an identifier from the URL's host and path.
func fromURL(raw string) (ID, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ID{}, false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	host = strings.TrimPrefix(host, "www.")
	path := u.EscapedPath()
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	path = strings.TrimPrefix(path, "/")
	switch host {
	case "doi.org", "dx.doi.org":
		return cleanDOI(path)
	case "arxiv.org", "export.arxiv.org":
		return arxivFromPath(path)
	case "pubmed.ncbi.nlm.nih.gov":
		return pmid(strings.Trim(path, "/"))
	case "ncbi.nlm.nih.gov":
		return ncbiPath(path)
	case "pmc.ncbi.nlm.nih.gov":
		return pmcPath(strings.TrimPrefix(path, "articles/"))
	}
	return ID{}, false
}

// cleanDOI validates and canonicalises a DOI taken from a path or text:
// trailing punctuation a sentence adds is dropped, case folded.
func cleanDOI(s string) (ID, bool) {
	s = strings.TrimRight(strings.TrimSpace(s), ".,;:)]}>\"'")
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if !doiRe.MatchString(s) {
		return ID{}, false
	}
	return ID{DOI, strings.ToLower(s)}, true
}

// arxivFromPath reads abs/ID, pdf/ID[vN][.pdf] and html/ID.
func arxivFromPath(path string) (ID, bool) {
	for _, prefix := range []string{"abs/", "pdf/", "html/"} {
		if !strings.HasPrefix(path, prefix) {
			continue
		}
		p := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(path, prefix), "/"), ".pdf")
		if m := arxivNew.FindStringSubmatch(p); m != nil {
			return ID{ArXiv, m[1]}, true
		}
		if m := arxivOld.FindStringSubmatch(p); m != nil {
			return ID{ArXiv, m[1]}, true
		}
	}
	return ID{}, false
}

// ncbiPath reads www.ncbi.nlm.nih.gov/pubmed/ID and /pmc/articles/PMCID.
func ncbiPath(path string) (ID, bool) {
	switch {
	case strings.HasPrefix(path, "pubmed/"):
		return pmid(strings.Trim(strings.TrimPrefix(path, "pubmed/"), "/"))
	case strings.HasPrefix(path, "pmc/articles/"):
		return pmcPath(strings.TrimPrefix(path, "pmc/articles/"))
	}
	return ID{}, false
}

// pmcPath reads PMC1234567[/…].
func pmcPath(p string) (ID, bool) {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		p = p[:i]
	}
	if m := pmcDigits.FindStringSubmatch(p); m != nil {
		return ID{PMC, m[1]}, true
	}
	return ID{}, false
}

// pmid reads a PubMed id: digits, not all zero.
func pmid(p string) (ID, bool) {
	if !digits.MatchString(p) || strings.TrimLeft(p, "0") == "" {
		return ID{}, false
	}
	return ID{PubMed, strings.TrimLeft(p, "0")}, true
}
