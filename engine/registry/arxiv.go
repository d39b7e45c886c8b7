package registry

import (
	"context"
	"encoding/xml"
	"maps"
	"net/http"
	"net/url"
	"strings"
)

// arxivBatch is how many ids one export API query asks for; the API takes
// comma-separated id_list queries and answers one entry per id.
const arxivBatch = 50

// atomFeed is the part of the arXiv export API's Atom feed read here.
type atomFeed struct {
	Entries []struct {
		ID      string `xml:"http://www.w3.org/2005/Atom id"`
		Title   string `xml:"http://www.w3.org/2005/Atom title"`
		Summary string `xml:"http://www.w3.org/2005/Atom summary"`
		Comment string `xml:"http://arxiv.org/schemas/atom comment"`
		Journal string `xml:"http://arxiv.org/schemas/atom journal_ref"`
	} `xml:"http://www.w3.org/2005/Atom entry"`
}

// LookupArXiv asks the export API for ids (without versions), in batches
// of arxivBatch; the answer maps every id asked for. An id the feed has no
// entry for, or answers with an error entry, is not found.
func (c *Client) LookupArXiv(ctx context.Context, ids []string) map[string]Answer {
	out := map[string]Answer{}
	for start := 0; start < len(ids); start += arxivBatch {
		batch := ids[start:min(start+arxivBatch, len(ids))]
		for id, a := range c.arxivBatch(ctx, batch) {
			out[id] = a
		}
	}
	return out
}

func (c *Client) arxivBatch(ctx context.Context, ids []string) map[string]Answer {
	out := make(map[string]Answer, len(ids))
	share := func(a Answer) { // one request answered the whole batch
		for i, id := range ids {
			a.Requests = 0
			if i == 0 {
				a.Requests = 1
			}
			out[id] = a
		}
	}
	q := url.Values{"id_list": {strings.Join(ids, ",")}, "max_results": {itoa(len(ids))}}
	r, err := c.Get(ctx, c.Bases.ArXiv+"/api/query?"+q.Encode(), "application/atom+xml")
	if err == nil && r.Status == http.StatusBadRequest && len(ids) > 1 {
		// One id the API calls malformed fails the whole query: ask for
		// each alone, so only that one goes without an answer.
		for _, id := range ids {
			maps.Copy(out, c.arxivBatch(ctx, []string{id}))
		}
		return out
	}
	if err == nil && r.Status == http.StatusBadRequest && strings.Contains(string(r.Body), "incorrect_id_format") {
		share(Answer{NotFoundBy: "arXiv"})
		return out
	}
	r, ok, err := c.sort("arXiv", r, err)
	if err == nil && !ok {
		err = unavailable("arXiv", "HTTP %d", r.Status)
	}
	var feed atomFeed
	if err == nil && xml.Unmarshal(r.Body, &feed) != nil {
		err = unavailable("arXiv", "unreadable Atom feed")
	}
	if err != nil {
		share(Answer{Err: err})
		return out
	}
	share(Answer{NotFoundBy: "arXiv"})
	for _, e := range feed.Entries {
		id, ok := arxivEntryID(e.ID)
		if !ok || out[id].Found || strings.EqualFold(strings.TrimSpace(e.Title), "Error") {
			continue
		}
		w := Work{Registry: "arXiv", Title: plainText(e.Title), Publisher: "arXiv", Abstract: plainText(e.Summary)}
		if withdrawn(e.Comment) || withdrawn(e.Summary) {
			w.Retracted = "withdrawn: the arXiv record says the paper was withdrawn"
		}
		a := out[id]
		a.Found, a.Work, a.NotFoundBy = true, w, ""
		out[id] = a
	}
	return out
}

// arxivEntryID reads the id of an entry's http://arxiv.org/abs/ID[vN].
func arxivEntryID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	i := strings.Index(s, "/abs/")
	if i < 0 {
		return "", false
	}
	id, ok := arxivFromPath(s[i+1:])
	return id.Value, ok
}

func withdrawn(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "has been withdrawn") || strings.Contains(s, "paper is withdrawn") ||
		strings.HasPrefix(strings.TrimSpace(s), "withdrawn")
}
