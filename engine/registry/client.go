package registry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Environment variables naming the registry base URLs (mirrors, tests).
const (
	EnvCrossref = "CITEGATE_CROSSREF_BASE"
	EnvDataCite = "CITEGATE_DATACITE_BASE"
	EnvDOI      = "CITEGATE_DOI_BASE"
	EnvArXiv    = "CITEGATE_ARXIV_BASE"
	EnvPubMed   = "CITEGATE_PUBMED_BASE"
	EnvOpenAlex = "CITEGATE_OPENALEX_BASE"
	// EnvContact is the operator's e-mail for Crossref's polite pool and
	// NCBI's email parameter.
	EnvContact = "CITEGATE_CONTACT_EMAIL"
)

// Bases are the registry API base URLs, without a trailing slash.
type Bases struct {
	DOI, Crossref, DataCite, ArXiv, PubMed, OpenAlex string
}

// DefaultBases are the public registries.
var DefaultBases = Bases{DOI: "https://doi.org", Crossref: "https://api.crossref.org", DataCite: "https://api.datacite.org",
	ArXiv: "https://export.arxiv.org", PubMed: "https://eutils.ncbi.nlm.nih.gov", OpenAlex: "https://api.openalex.org"}

// BasesFromEnv fills every base left empty in b from the environment, then
// from DefaultBases.
func BasesFromEnv(b Bases, getenv func(string) string) Bases {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	pick := func(have, env, def string) string {
		return strings.TrimRight(cmp.Or(have, strings.TrimSpace(getenv(env)), def), "/")
	}
	d := DefaultBases
	return Bases{DOI: pick(b.DOI, EnvDOI, d.DOI), Crossref: pick(b.Crossref, EnvCrossref, d.Crossref),
		DataCite: pick(b.DataCite, EnvDataCite, d.DataCite), ArXiv: pick(b.ArXiv, EnvArXiv, d.ArXiv),
		PubMed: pick(b.PubMed, EnvPubMed, d.PubMed), OpenAlex: pick(b.OpenAlex, EnvOpenAlex, d.OpenAlex)}
}

// Operator lists the bases that are not the public registries': the
// operator's mirrors and test servers, which a registry client's guard
// trusts as endpoints (netguard.TrustEndpoints) and no other guard does.
func (b Bases) Operator() []string {
	d := DefaultBases
	var out []string
	for _, p := range [][2]string{{b.DOI, d.DOI}, {b.Crossref, d.Crossref}, {b.DataCite, d.DataCite},
		{b.ArXiv, d.ArXiv}, {b.PubMed, d.PubMed}, {b.OpenAlex, d.OpenAlex}} {
		if p[0] != "" && p[0] != p[1] {
			out = append(out, p[0])
		}
	}
	return out
}

// Response is what a Getter returns: the status, header and body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Getter does one GET of a registry URL. The ladder's getter goes through
// netguard, the host politeness gate and its rate-limit handling.
type Getter func(ctx context.Context, url, accept string) (*Response, error)

// Work is what a registry says of an identifier.
type Work struct {
	Title, Publisher string
	// Venue is the journal, proceedings or book the work appeared in.
	Venue string
	// Registry names who answered: "doi.org", "Crossref", "DataCite",
	// "arXiv", "PubMed", "PMC", "OpenAlex".
	Registry string
	// Retracted, when not "", says the work was retracted or withdrawn
	// and how the registry said so.
	Retracted string
	// Abstract is the registry's abstract, when it gives one.
	Abstract string
}

// Answer is a registry lookup's outcome: Found with the Work, not found
// (Found false, Err nil; NotFoundBy names the registry), or Err when no
// registry could answer (down, refused, unreadable): that never makes a
// citation invalid.
type Answer struct {
	Found      bool
	Work       Work
	NotFoundBy string
	Err        error
	// Requests counts the registry requests this answer took.
	Requests int
}

// ErrUnavailable marks a registry that did not give a usable answer.
var ErrUnavailable = errors.New("registry unavailable")

func unavailable(who string, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", who, fmt.Sprintf(format, args...), ErrUnavailable)
}

// Client looks identifiers up in the registries.
type Client struct {
	Bases Bases
	// Contact is the operator's e-mail (polite pool); "" sends none.
	Contact string
	Get     Getter
}

// get fetches u and sorts out the statuses every registry shares: 2xx is
// an answer, 404 (and 410) not found, anything else unavailable.
func (c *Client) get(ctx context.Context, who, u, accept string) (*Response, bool, error) {
	r, err := c.Get(ctx, u, accept)
	return c.sort(who, r, err)
}

// sort is get's reading of an answer.
func (c *Client) sort(who string, r *Response, err error) (*Response, bool, error) {
	if err != nil {
		return nil, false, unavailable(who, "%v", err)
	}
	switch {
	case r.Status >= 200 && r.Status < 300:
		return r, true, nil
	case r.Status == http.StatusNotFound || r.Status == http.StatusGone:
		return r, false, nil
	}
	return nil, false, unavailable(who, "HTTP %d", r.Status)
}

// escapeDOI escapes a DOI for a URL path, keeping its slash readable as
// the registries document it.
func escapeDOI(doi string) string {
	return strings.ReplaceAll(url.PathEscape(doi), "%2F", "/")
}
