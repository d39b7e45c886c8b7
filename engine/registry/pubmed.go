package registry

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// pubmedBatch is how many ids one esummary request carries (NCBI accepts
// comma lists; a few hundred keep the URL short).
const pubmedBatch = 200

// esummaryDoc is E-utilities esummary's JSON: result.uids lists the ids
// answered, and each id's summary, or an error for an unknown id.
type esummaryDoc struct {
	Result map[string]json.RawMessage `json:"result"`
}

type esummaryItem struct {
	UID             string   `json:"uid"`
	Title           string   `json:"title"`
	FullJournalName string   `json:"fulljournalname"`
	Source          string   `json:"source"`
	PubType         []string `json:"pubtype"`
	Error           string   `json:"error"`
}

// LookupPubMed asks esummary for ids of kind PubMed (db=pubmed) or PMC
// (db=pmc), in comma-list batches.
func (c *Client) LookupPubMed(ctx context.Context, kind Kind, ids []string) map[string]Answer {
	out := map[string]Answer{}
	for start := 0; start < len(ids); start += pubmedBatch {
		batch := ids[start:min(start+pubmedBatch, len(ids))]
		for id, a := range c.esummary(ctx, kind, batch) {
			out[id] = a
		}
	}
	return out
}

func (c *Client) esummary(ctx context.Context, kind Kind, ids []string) map[string]Answer {
	db, who := "pubmed", "PubMed"
	if kind == PMC {
		db, who = "pmc", "PMC"
	}
	q := url.Values{"db": {db}, "id": {strings.Join(ids, ",")}, "retmode": {"json"}, "tool": {"citegate"}}
	if c.Contact != "" {
		q.Set("email", c.Contact)
	}
	out := make(map[string]Answer, len(ids))
	set := func(a Answer) {
		for i, id := range ids {
			a.Requests = 0
			if i == 0 {
				a.Requests = 1
			}
			out[id] = a
		}
	}
	r, ok, err := c.get(ctx, who, c.Bases.PubMed+"/entrez/eutils/esummary.fcgi?"+q.Encode(), "application/json")
	if err == nil && !ok {
		err = unavailable(who, "HTTP %d", r.Status)
	}
	var doc esummaryDoc
	if err == nil && (json.Unmarshal(r.Body, &doc) != nil || doc.Result == nil) {
		err = unavailable(who, "unreadable esummary answer")
	}
	if err != nil {
		set(Answer{Err: err})
		return out
	}
	set(Answer{NotFoundBy: who})
	for _, id := range ids {
		raw, ok := doc.Result[id]
		var it esummaryItem
		if !ok || json.Unmarshal(raw, &it) != nil || it.Error != "" || it.Title == "" {
			continue
		}
		w := Work{Registry: who, Title: plainText(it.Title), Publisher: firstNonEmpty(it.FullJournalName, it.Source),
			Venue: it.Source}
		for _, t := range it.PubType {
			if strings.EqualFold(t, "Retracted Publication") {
				w.Retracted = "retracted: " + who + " lists it as a Retracted Publication"
			}
		}
		a := out[id]
		a.Found, a.Work, a.NotFoundBy = true, w, ""
		out[id] = a
	}
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
