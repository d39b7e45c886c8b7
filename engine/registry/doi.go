package registry

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// LookupDOI settles a DOI: registration at doi.org (the handle API), then
// metadata from Crossref, or DataCite for a DOI Crossref does not hold.
// A DOI the handle API does not know is not registered. A DOI registered
// with another agency (mEDRA, JaLC, …) is found without a title. When a
// metadata API fails, the answer is unavailable even for a registered
// DOI: the title cannot be compared, so the ordinary ladder decides.
func (c *Client) LookupDOI(ctx context.Context, doi string) Answer {
	var a Answer
	registered, herr := c.handle(ctx, doi)
	a.Requests++
	if herr == nil && !registered {
		return Answer{NotFoundBy: "doi.org", Requests: a.Requests}
	}
	w, found, cerr := c.crossref(ctx, doi)
	a.Requests++
	if cerr == nil && found {
		return Answer{Found: true, Work: w, Requests: a.Requests}
	}
	w, found, derr := c.datacite(ctx, doi)
	a.Requests++
	switch {
	case derr == nil && found:
		return Answer{Found: true, Work: w, Requests: a.Requests}
	case herr == nil && cerr == nil && derr == nil:
		// Registered, and neither Crossref nor DataCite holds it: another
		// agency's DOI (mEDRA, JaLC, …). It exists; there is no title.
		return Answer{Found: true, Work: Work{Registry: "doi.org"}, Requests: a.Requests}
	}
	return Answer{Err: errors.Join(herr, cerr, derr), Requests: a.Requests}
}

// handleReply is the doi.org handle API's answer: responseCode 1 is a
// handle with values, 100 handle not found, 200 values not found (the
// handle exists).
type handleReply struct {
	ResponseCode int    `json:"responseCode"`
	Handle       string `json:"handle"`
}

// handle asks {DOI base}/api/handles/{doi} whether the DOI is registered.
func (c *Client) handle(ctx context.Context, doi string) (bool, error) {
	r, ok, err := c.get(ctx, "doi.org", c.Bases.DOI+"/api/handles/"+escapeDOI(doi), "application/json")
	if err != nil {
		return false, err
	}
	var h handleReply
	if jerr := json.Unmarshal(r.Body, &h); jerr != nil {
		return false, unavailable("doi.org", "unreadable handle API answer")
	}
	switch h.ResponseCode {
	case 1, 200:
		return true, nil
	case 100:
		return false, nil
	}
	if !ok {
		return false, nil
	}
	return false, unavailable("doi.org", "handle API responseCode %d", h.ResponseCode)
}

// crossrefWork is the part of a Crossref /works/{doi} message read here.
type crossrefWork struct {
	Status  string `json:"status"`
	Message struct {
		Title     []string       `json:"title"`
		Subtitle  []string       `json:"subtitle"`
		Publisher string         `json:"publisher"`
		Container []string       `json:"container-title"`
		Abstract  string         `json:"abstract"`
		UpdateTo  []crossrefUpd  `json:"update-to"`
		UpdatedBy []crossrefUpd  `json:"updated-by"`
		Relation  map[string]any `json:"relation"`
	} `json:"message"`
}

type crossrefUpd struct {
	DOI   string `json:"DOI"`
	Type  string `json:"type"`
	Label string `json:"label"`
}

// crossref reads {Crossref base}/works/{doi}, with the polite pool's
// mailto when a contact is configured.
func (c *Client) crossref(ctx context.Context, doi string) (Work, bool, error) {
	u := c.Bases.Crossref + "/works/" + escapeDOI(doi)
	if c.Contact != "" {
		u += "?mailto=" + queryEscape(c.Contact)
	}
	r, ok, err := c.get(ctx, "Crossref", u, "application/json")
	if err != nil || !ok {
		return Work{}, false, err
	}
	var cw crossrefWork
	if err := json.Unmarshal(r.Body, &cw); err != nil || cw.Status != "ok" {
		return Work{}, false, unavailable("Crossref", "unreadable answer")
	}
	m := cw.Message
	w := Work{Registry: "Crossref", Publisher: strings.TrimSpace(m.Publisher), Abstract: plainText(m.Abstract)}
	if len(m.Title) > 0 {
		w.Title = plainText(m.Title[0])
	}
	if len(m.Container) > 0 {
		w.Venue = plainText(m.Container[0])
	}
	w.Retracted = crossrefRetraction(w.Title, m.UpdateTo, m.UpdatedBy)
	return w, true, nil
}

// crossrefRetraction says whether Crossref marks the work retracted or
// withdrawn: an updated-by entry of that type (the retracted work), an
// update-to entry (the DOI is itself the retraction notice), or a title
// a publisher prefixed "RETRACTED".
func crossrefRetraction(title string, updateTo, updatedBy []crossrefUpd) string {
	retraction := func(t string) bool {
		t = strings.ToLower(t)
		return t == "retraction" || t == "withdrawal" || t == "removal"
	}
	for _, u := range updatedBy {
		if retraction(u.Type) {
			return "retracted: Crossref lists " + strings.ToLower(u.Type) + " " + u.DOI
		}
	}
	for _, u := range updateTo {
		if retraction(u.Type) {
			return "retraction notice: this DOI is the " + strings.ToLower(u.Type) + " of " + u.DOI
		}
	}
	if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(title)), "RETRACTED") {
		return "retracted: the registry title says so"
	}
	return ""
}

// dataciteDOI is the part of a DataCite JSON:API /dois/{doi} answer read
// here. Its publisher is a string, or an object with a name when asked
// for with publisher=true.
type dataciteDOI struct {
	Data struct {
		Attributes struct {
			Titles []struct {
				Title     string `json:"title"`
				TitleType string `json:"titleType"`
			} `json:"titles"`
			Publisher    json.RawMessage `json:"publisher"`
			Descriptions []struct {
				Description     string `json:"description"`
				DescriptionType string `json:"descriptionType"`
			} `json:"descriptions"`
			State string `json:"state"`
		} `json:"attributes"`
	} `json:"data"`
}

// datacite reads {DataCite base}/dois/{doi}.
func (c *Client) datacite(ctx context.Context, doi string) (Work, bool, error) {
	r, ok, err := c.get(ctx, "DataCite", c.Bases.DataCite+"/dois/"+escapeDOI(doi), "application/vnd.api+json")
	if err != nil || !ok {
		return Work{}, false, err
	}
	var d dataciteDOI
	if err := json.Unmarshal(r.Body, &d); err != nil {
		return Work{}, false, unavailable("DataCite", "unreadable answer")
	}
	at := d.Data.Attributes
	w := Work{Registry: "DataCite"}
	for _, t := range at.Titles {
		if t.TitleType == "" {
			w.Title = plainText(t.Title)
			break
		}
	}
	var pub struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(at.Publisher, &w.Publisher) != nil && json.Unmarshal(at.Publisher, &pub) == nil {
		w.Publisher = pub.Name
	}
	for _, ds := range at.Descriptions {
		if ds.DescriptionType == "Abstract" {
			w.Abstract = plainText(ds.Description)
			break
		}
	}
	return w, true, nil
}

var spaces = regexp.MustCompile(`\s+`)

// plainText drops JATS/HTML markup and collapses whitespace.
func plainText(s string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(markup.ReplaceAllString(s, " "), " "))
}

// queryEscape escapes a query value, keeping "@" readable.
func queryEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "%40", "@")
}
