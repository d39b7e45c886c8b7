package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

var statuses = []string{"valid", "paywalled", "blocked", "mismatch", "invalid", "(missing)"}

// row is one cited URL's outcome.
type row struct {
	Host      string   `json:"host"`
	Behaviour string   `json:"behaviour"`
	URL       string   `json:"url"`
	Label     string   `json:"label"`
	Note      string   `json:"note"`
	Accepts   []string `json:"acceptable"`
	Status    string   `json:"status"`
	OK        bool     `json:"accepted"`
	HTTP      *int     `json:"http_status,omitempty"`
	Notes     string   `json:"notes"`
}

// tierResult is one split at one tier.
type tierResult struct {
	Split string        `json:"split"`
	Tier  string        `json:"tier"`
	exit  int           // citegate's exit status
	wall  time.Duration // citegate's wall time
	Rows  []row         `json:"rows"`
}

// score labels each cited URL with its record's status.
func score(sp *Spec, tier string, recs []record) *tierResult {
	got := matchRecords(sp, recs)
	res := &tierResult{Split: sp.Split, Tier: tier}
	for _, h := range sp.Hosts {
		for _, c := range h.URLs {
			r := row{Host: h.Host, Behaviour: h.Behaviour, URL: c.URL, Label: c.Label, Note: c.Note, Accepts: c.accepts(), Status: "(missing)"}
			if rec := got[c.URL]; rec != nil {
				r.Status, r.Notes, r.HTTP = rec.Status, rec.Notes, rec.HTTPStatus
			}
			r.OK = slices.Contains(r.Accepts, r.Status)
			res.Rows = append(res.Rows, r)
		}
	}
	return res
}

// tally counts rows by a predicate.
func (t *tierResult) tally(keep func(row) bool) (n int) {
	for _, r := range t.Rows {
		if keep(r) {
			n++
		}
	}
	return n
}

func (t *tierResult) headline() string {
	realN := t.tally(func(r row) bool { return realLabel(r.Label) })
	realInv := t.tally(func(r row) bool { return realLabel(r.Label) && r.Status == "invalid" })
	realBad := t.tally(func(r row) bool { return realLabel(r.Label) && !r.OK })
	softN := t.tally(func(r row) bool { return r.Label == "soft404" })
	softOK := t.tally(func(r row) bool { return r.Label == "soft404" && r.Status == "invalid" })
	missN := t.tally(func(r row) bool { return r.Label == "missing" })
	missOK := t.tally(func(r row) bool { return r.Label == "missing" && r.Status == "invalid" })
	return fmt.Sprintf("%s/%s: real pages invalid %d/%d (not acceptable %d); soft 404s invalid %d/%d; hard 404s invalid %d/%d; citegate exit %d, %.1f s",
		t.Split, t.Tier, realInv, realN, realBad, softOK, softN, missOK, missN, t.exit, t.wall.Seconds())
}

// writeReport writes report.md and report.json.
func writeReport(out string, specs []*Spec, results []*tierResult) error {
	var b strings.Builder
	b.WriteString("# citegate's site probe on emulated hosts\n\n")
	b.WriteString("Labels: `real` must not be `invalid` (valid, paywalled or blocked accepted); `real_js` (a script-rendered page behind an app shell) must be `blocked`; `soft404` and `missing` (a real 404) must be `invalid`.\n\n")
	for _, sp := range specs {
		n := sp.counts()
		fmt.Fprintf(&b, "Split `%s`: %d hosts; %d real, %d real_js, %d soft404, %d missing.\n\n", sp.Split, len(sp.Hosts), n["real"], n["real_js"], n["soft404"], n["missing"])
	}
	b.WriteString("## Headlines\n\n")
	for _, t := range results {
		b.WriteString("- " + t.headline() + "\n")
	}
	b.WriteString("\n")
	for _, t := range results {
		writeTier(&b, t)
	}
	writeProbes(&b, out)
	if err := os.WriteFile(filepath.Join(out, "report.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(results, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "report.json"), append(raw, '\n'), 0o644)
}

// writeTier writes one split and tier: the matrix per behaviour and label,
// then the real pages made invalid and the soft 404s missed.
func writeTier(b *strings.Builder, t *tierResult) {
	fmt.Fprintf(b, "## `%s` at `%s`\n\n", t.Split, t.Tier)
	type key struct{ behaviour, label string }
	cells := map[key]map[string]int{}
	var keys []key
	for _, r := range t.Rows {
		k := key{r.Behaviour, r.Label}
		if cells[k] == nil {
			cells[k] = map[string]int{}
			keys = append(keys, k)
		}
		cells[k][r.Status]++
		if r.OK {
			cells[k]["ok"]++
		}
		cells[k]["n"]++
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].label != keys[j].label {
			return keys[i].label > keys[j].label // soft404, real_js, real, missing
		}
		return keys[i].behaviour < keys[j].behaviour
	})
	b.WriteString("| behaviour | label | n | accepted | " + strings.Join(statuses, " | ") + " |\n|---|---|---|---|" + strings.Repeat("---|", len(statuses)) + "\n")
	for _, k := range keys {
		c := cells[k]
		fmt.Fprintf(b, "| %s | %s | %d | %d |", k.behaviour, k.label, c["n"], c["ok"])
		for _, s := range statuses {
			fmt.Fprintf(b, " %d |", c[s])
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	list := func(title string, keep func(row) bool) {
		var rows []row
		for _, r := range t.Rows {
			if keep(r) {
				rows = append(rows, r)
			}
		}
		fmt.Fprintf(b, "### %s (%d)\n\n", title, len(rows))
		if len(rows) == 0 {
			b.WriteString("None.\n\n")
			return
		}
		b.WriteString("| URL | behaviour | label note | got | http | citegate notes |\n|---|---|---|---|---|---|\n")
		for _, r := range rows {
			http := ""
			if r.HTTP != nil {
				http = fmt.Sprint(*r.HTTP)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", r.URL, r.Behaviour, cell(r.Note), r.Status, http, cell(r.Notes))
		}
		b.WriteString("\n")
	}
	list("Real pages made invalid", func(r row) bool { return realLabel(r.Label) && r.Status == "invalid" })
	list("Other real pages not accepted", func(r row) bool { return realLabel(r.Label) && !r.OK && r.Status != "invalid" })
	list("Soft 404s and hard 404s not invalid", func(r row) bool { return !realLabel(r.Label) && !r.OK })
}

func cell(s string) string {
	s = strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "/")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// writeProbes summarises, per run and host, the probe requests the server
// saw (requests.jsonl has them all).
func writeProbes(b *strings.Builder, out string) {
	f, err := os.Open(filepath.Join(out, "requests.jsonl"))
	if err != nil {
		return
	}
	defer f.Close()
	type req struct {
		Tag, Host, URI, Location string
		Probe                    bool
		Status                   int
	}
	per := map[string][]string{}
	var order []string
	total := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var r req
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		total++
		if !r.Probe {
			continue
		}
		k := r.Tag + " " + r.Host
		if per[k] == nil {
			order = append(order, k)
		}
		s := fmt.Sprintf("`%s` → %d", r.URI, r.Status)
		if r.Location != "" {
			s += " → " + r.Location
		}
		per[k] = append(per[k], s)
	}
	fmt.Fprintf(b, "## Probe requests seen by the server\n\n%d requests in all (requests.jsonl). Per run and host, every request whose path holds `%s`:\n\n", total, probeMarker)
	sort.Strings(order)
	for _, k := range order {
		fmt.Fprintf(b, "- %s: %s\n", k, strings.Join(per[k], "; "))
	}
	b.WriteString("\n")
}
