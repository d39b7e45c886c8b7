package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Searching for a reference that gives only a title, authors and a year
// (verify's title-only reference-list entries): Crossref's
// query.bibliographic, then OpenAlex's search. A candidate is the work when
// its title is found in the reference: at least FoundAbove of the
// candidate title's content words are in the reference's text. Search
// engines always return something, so this is stricter than the citation
// rule's MismatchBelow.
const (
	FoundAbove   = 0.8
	searchRows   = 5
	maxCandNotes = 3
)

// Candidate is a work a search returned.
type Candidate struct {
	DOI, Title, Registry string
	Score                float64
}

// Found is a reference search's outcome: the work (when one candidate's
// title is in the reference), the candidates considered, and the
// registries asked. Err is set when no registry could answer.
type Found struct {
	Work       *Candidate
	Candidates []Candidate
	Searched   []string
	Err        error
}

// FindReference looks a title-only reference up: Crossref first, then
// OpenAlex when Crossref has no match or cannot answer.
func (c *Client) FindReference(ctx context.Context, ref string) Found {
	var f Found
	var errs []error
	for _, s := range []struct {
		name   string
		search func(context.Context, string) ([]Candidate, error)
	}{{"Crossref", c.searchCrossref}, {"OpenAlex", c.searchOpenAlex}} {
		cands, err := s.search(ctx, ref)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.Searched = append(f.Searched, s.name)
		for _, cd := range cands {
			cd.Registry = s.name
			if cmp := Compare(cd.Title, "", ref); cmp.Compared {
				cd.Score = cmp.Score
			}
			f.Candidates = append(f.Candidates, cd)
			if cd.Score >= FoundAbove && (f.Work == nil || cd.Score > f.Work.Score) {
				w := cd
				f.Work = &w
			}
		}
		if f.Work != nil {
			return f
		}
	}
	if len(f.Searched) == 0 && len(errs) > 0 {
		f.Err = errs[0]
	}
	return f
}

// Unresolved is the note of a reference no registry knows: "unresolved:
// no such work found in Crossref, OpenAlex (candidates: …)".
func (f Found) Unresolved() string {
	msg := "unresolved: no such work found in " + strings.Join(f.Searched, ", ")
	var parts []string
	for i, cd := range f.Candidates {
		if i == maxCandNotes {
			break
		}
		parts = append(parts, fmt.Sprintf("%q (%s, score %.2f)", clipNote(cd.Title), cd.DOI, cd.Score))
	}
	if len(parts) > 0 {
		msg += " (candidates: " + strings.Join(parts, "; ") + ")"
	}
	return msg
}

// searchCrossref asks {Crossref}/works?query.bibliographic=….
func (c *Client) searchCrossref(ctx context.Context, ref string) ([]Candidate, error) {
	q := url.Values{"query.bibliographic": {ref}, "rows": {itoa(searchRows)}, "select": {"DOI,title"}}
	if c.Contact != "" {
		q.Set("mailto", c.Contact)
	}
	r, ok, err := c.get(ctx, "Crossref", c.Bases.Crossref+"/works?"+q.Encode(), "application/json")
	if err == nil && !ok {
		err = unavailable("Crossref", "HTTP %d", r.Status)
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Status  string `json:"status"`
		Message struct {
			Items []struct {
				DOI   string   `json:"DOI"`
				Title []string `json:"title"`
			} `json:"items"`
		} `json:"message"`
	}
	if json.Unmarshal(r.Body, &doc) != nil || doc.Status != "ok" {
		return nil, unavailable("Crossref", "unreadable search answer")
	}
	var out []Candidate
	for _, it := range doc.Message.Items {
		if len(it.Title) > 0 && it.DOI != "" {
			out = append(out, Candidate{DOI: strings.ToLower(it.DOI), Title: plainText(it.Title[0])})
		}
	}
	return out, nil
}

// searchOpenAlex asks {OpenAlex}/works?search=….
func (c *Client) searchOpenAlex(ctx context.Context, ref string) ([]Candidate, error) {
	q := url.Values{"search": {ref}, "per-page": {itoa(searchRows)}, "select": {"doi,display_name"}}
	if c.Contact != "" {
		q.Set("mailto", c.Contact)
	}
	r, ok, err := c.get(ctx, "OpenAlex", c.Bases.OpenAlex+"/works?"+q.Encode(), "application/json")
	if err == nil && !ok {
		err = unavailable("OpenAlex", "HTTP %d", r.Status)
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Results []struct {
			DOI   string `json:"doi"`
			Title string `json:"display_name"`
		} `json:"results"`
	}
	if json.Unmarshal(r.Body, &doc) != nil {
		return nil, unavailable("OpenAlex", "unreadable search answer")
	}
	var out []Candidate
	for _, it := range doc.Results {
		d := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(it.DOI), "https://doi.org/"), "http://doi.org/")
		if it.Title != "" && strings.HasPrefix(d, "10.") {
			out = append(out, Candidate{DOI: d, Title: plainText(it.Title)})
		}
	}
	return out, nil
}
