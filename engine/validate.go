package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/ladder"
	"github.com/citegate/citegate/engine/registry"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
	"github.com/citegate/citegate/parse/icu"
)

// dryRunNotes is the reference's exact dry-run trail.
const dryRunNotes = "online ladder blocked: direct_fetch=skipped(dry-run); bright_data=skipped(dry-run); apify=skipped(dry-run)"

// ValidateResult is the tool's success envelope (the reference's fields plus
// validation_tier and counts).
type ValidateResult struct {
	OK                       bool            `json:"ok"`
	RunID                    string          `json:"run_id"`
	CitationsPath            string          `json:"citations_path"`
	Mode                     string          `json:"mode"`
	ModeSource               string          `json:"mode_source"`
	OnlineDryRun             *bool           `json:"online_dry_run"`
	OnlineDryRunSource       *string         `json:"online_dry_run_source"`
	ValidationTier           string          `json:"validation_tier"`
	ValidationTierSource     string          `json:"validation_tier_source"`
	EffectiveEndpoints       Endpoints       `json:"effective_endpoints"`
	EndpointSources          EndpointSources `json:"endpoint_sources"`
	RunPolicySource          string          `json:"run_policy_source"`
	LadderPolicy             LadderPolicy    `json:"citations_ladder_policy_v1"`
	Validated                int             `json:"validated"`
	Counts                   Counts          `json:"counts"`
	InputsDigest             string          `json:"inputs_digest"`
	OnlineFixturesPath       *string         `json:"online_fixtures_path"`
	OnlineFixturesLatestPath *string         `json:"online_fixtures_latest_path"`
	OnlineFixturesCount      int             `json:"online_fixtures_count"`
	BlockedURLsPath          *string         `json:"blocked_urls_path"`
	BlockedURLsQueuePath     *string         `json:"blocked_urls_queue_path"`
	BlockedURLsCount         int             `json:"blocked_urls_count"`
	// OperatorDecisions counts the URLs the operator's decisions settled
	// (operator-decisions.json); absent when none did.
	OperatorDecisions int `json:"operator_decisions,omitempty"`
	// Warnings are problems that did not stop the run, e.g. provider
	// credentials that may not be sent to the configured URL, or fixture
	// entries that were coerced or dropped.
	Warnings []string `json:"warnings,omitempty"`
}

// workItem is one distinct normalized URL: its representative url-map item
// (the first by url_original) and every original that maps to it.
type workItem struct {
	rep       URLMapItem
	originals []string
}

// decision is how one URL was settled, before redaction and provenance.
type decision struct {
	Verdict
	rung string
	// checkedAt is when the URL was settled; "" means manifest.updated_at
	// (fixtures and dry-run, for replay determinism).
	checkedAt string
	// redirects are the redacted hops before the final URL (live only).
	redirects []string
}

// validation is the in-memory result of the validate stage.
type validation struct {
	records []Citation
	digest  string
	// warnings are problems found on the way that did not stop it —
	// fixture entries read leniently, provider configurations that can
	// never work (see EventWarning) — in the order they were reported.
	warnings []string
	// reach tallies what the live URLs' direct fetches came to.
	reach reachCount
	// decided counts the URLs an operator's decision settled.
	decided int
}

type validateDigest struct {
	Schema              string       `json:"schema"`
	RunID               string       `json:"run_id"`
	Mode                string       `json:"mode"`
	ModeSource          string       `json:"mode_source"`
	EndpointSources     any          `json:"endpoint_sources"`
	BrightDataEndpoint  *string      `json:"bright_data_endpoint"`
	ApifyEndpoint       *string      `json:"apify_endpoint"`
	URLMap              []URLMapItem `json:"url_map"`
	FixtureDigest       *string      `json:"fixture_digest"`
	OnlineFixtureDigest *string      `json:"online_fixture_digest"`
	OnlineDryRun        *bool        `json:"online_dry_run"`
	// OperatorDecisions is the decisions file's digest, absent without one
	// (so a run without decisions keeps the reference's digest).
	OperatorDecisions *string      `json:"operator_decisions,omitempty"`
	RunPolicySource   string       `json:"run_policy_source"`
	LadderPolicy      LadderPolicy `json:"citations_ladder_policy_v1"`
}

// workList picks one representative per normalized_url (the first by
// url_original) and sorts. Its input is already redacted.
func workList(items []URLMapItem) []workItem {
	// The pipeline's url map is in this order already: it is read as it is
	// then, and only a map in another order (another tool's, a hand-edited
	// one) is copied to be sorted.
	byNormalized := []func(URLMapItem) string{func(i URLMapItem) string { return i.NormalizedURL }, func(i URLMapItem) string { return i.URLOriginal }}
	clean := items
	if !icu.IsSortedBy(items, byNormalized...) {
		clean = append([]URLMapItem(nil), items...)
		icu.SortBy(clean, byNormalized...)
	}
	// Changes between neighbours bound the distinct URLs from above (equal
	// ones not adjacent only add changes): sized by them, not by the
	// originals, which are half as many again.
	changes := 0
	for i := range clean {
		if i == 0 || clean[i].NormalizedURL != clean[i-1].NormalizedURL {
			changes++
		}
	}
	work := make([]workItem, 0, changes)
	index := make(map[string]int, changes)
	// Most URLs have one original: their lists share one backing array,
	// each clipped so that a second original reallocates.
	firsts := make([]string, len(clean))
	for _, it := range clean {
		if i, ok := index[it.NormalizedURL]; ok {
			work[i].originals = append(work[i].originals, it.URLOriginal)
			continue
		}
		index[it.NormalizedURL] = len(work)
		firsts[len(work)] = it.URLOriginal
		work = append(work, workItem{rep: it, originals: firsts[len(work) : len(work)+1 : len(work)+1]})
	}
	for i := range work {
		icu.Sort(work[i].originals)
	}
	return work
}

// provenance builds every citation's found_by: forWork[i] is work[i]'s
// entries, original by original in w.originals order, each original's
// entries ordered by wave, perspective and file; first[i] is the original
// whose entries come first in forWork[i] ("" when it has none), which a
// live check reads its source line and link text from. Its input is
// already redacted.
//
// All entries are laid out in one array in work order, so a citation whose
// URL was written several ways gets a slice of it, not a copy: a large run
// has one entry per occurrence, and per-URL lists — grown by appends, or
// copied for every URL with more than one original — cost as much again
// as the entries (41 MB of copies at 20,000 files).
func provenance(work []workItem, items []FoundByItem) (forWork [][]FoundByEntry, first []string) {
	order, ranges := itemsByURL(items)
	// Each original's range, looked up once, in the order the loop below
	// takes them.
	n := 0
	for _, w := range work {
		n += len(w.originals)
	}
	rs := make([][2]int32, 0, n)
	total := 0
	for _, w := range work {
		for _, o := range w.originals {
			r := ranges[o]
			rs = append(rs, r)
			total += int(r[1] - r[0])
		}
	}
	backing := make([]FoundByEntry, total)
	forWork, first = make([][]FoundByEntry, len(work)), make([]string, len(work))
	pos := 0
	for i, w := range work {
		start := pos
		for _, o := range w.originals {
			r, from := rs[0], pos
			rs = rs[1:]
			for k := r[0]; k < r[1]; k++ {
				j := k
				if order != nil {
					j = order[k]
				}
				backing[pos] = entryOf(items[j])
				pos++
			}
			list := backing[from:pos:pos]
			icu.SortBy(list,
				func(e FoundByEntry) string { return padInt(e.Wave) },
				func(e FoundByEntry) string { return e.PerspectiveID },
				func(e FoundByEntry) string { return e.ArtifactPath })
			if len(list) > 0 && first[i] == "" {
				first[i] = o
			}
		}
		forWork[i] = backing[start:pos:pos]
	}
	return forWork, first
}

// itemsByURL indexes found-by items by url_original: ranges[url] is the
// half-open range of its items in order (nil: in items itself), items kept
// in their order within a URL. found-by lists a URL's items together, so
// order is nil unless the items are not grouped (a hand-edited
// found-by.json); then they are ordered by URL, stably.
func itemsByURL(items []FoundByItem) (order []int32, ranges map[string][2]int32) {
	groups := 0
	for i := range items {
		if i == 0 || items[i].URLOriginal != items[i-1].URLOriginal {
			groups++
		}
	}
	ranges = make(map[string][2]int32, groups)
	url := func(k int) string { return items[k].URLOriginal }
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && url(j) == url(i) {
			j++
		}
		if _, again := ranges[url(i)]; again {
			order = make([]int32, len(items))
			for k := range order {
				order[k] = int32(k)
			}
			slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(items[a].URLOriginal, items[b].URLOriginal) })
			url = func(k int) string { return items[order[k]].URLOriginal }
			clear(ranges)
			i = 0
			continue
		}
		ranges[url(i)] = [2]int32{int32(i), int32(j)}
		i = j
	}
	return order, ranges
}

// entryOf is a found-by item as a citation's provenance entry.
func entryOf(it FoundByItem) FoundByEntry {
	wave := 1
	if it.Wave == "wave-2" {
		wave = 2
	}
	pid := cmp.Or(it.PerspectiveID, "unknown")
	path := it.ArtifactPath
	if path == "" {
		// Not cmp.Or: its arguments are all evaluated, and this Sprintf
		// ran for every occurrence of a run.
		path = fmt.Sprintf("wave-%d/%s.md", wave, pid)
	}
	return FoundByEntry{Wave: wave, PerspectiveID: pid, AgentType: "unknown", ArtifactPath: path, SourceLine: it.SourceLine}
}

// preLadder settles, without fetching, what the live ladder must not touch
// (a URL that carried userinfo) or need not (a fresh cache entry). A URL
// that carried credentials is never cached: its redacted form would stand
// for every token.
func preLadder(cache verdictCache, w workItem, it ladder.Item, tier string) (decision, bool) {
	if _, creds := netguard.RedactURL(w.rep.URLOriginal); creds {
		return decision{Verdict: Verdict{Status: StatusInvalid, Notes: "online ladder: userinfo not allowed; never fetched", URL: w.rep.NormalizedURL}, rung: "preflight"}, true
	}
	if it.Credentialed {
		return decision{}, false
	}
	if cache == nil {
		return decision{}, false
	}
	if d, at, ok := cache.get(w.rep.NormalizedURL, verdictContext(tier, it.Citation)); ok {
		d.checkedAt = at
		return d, true
	}
	return decision{}, false
}

// newLiveItem prepares a URL for the ladder: the original to fetch (secrets
// and all, from memory) and how the wave cited it: the first provenance
// entry's source line and the text of that very link (not the first link of
// the line, which a second link on it used to get).
func newLiveItem(i int, w workItem, lc liveContext, foundBy []FoundByEntry, first string) ladder.Item {
	it := ladder.Item{Index: i, URL: w.rep.NormalizedURL, CID: w.rep.CID, Fetch: w.rep.URLOriginal}
	if raw, ok := lc.originals[w.rep.URLOriginal]; ok {
		it.Fetch = raw
	}
	// Anything redaction touched carried credentials of some kind.
	it.Credentialed = it.Fetch != w.rep.URLOriginal || strings.Contains(w.rep.URLOriginal, "REDACTED")
	if len(foundBy) > 0 {
		it.Citation.SourceLine = foundBy[0].SourceLine
		it.Citation.LinkText = lc.texts.lookup(foundBy[0], first)
	}
	// The identifier rides alongside: the URL and cid stay as they are.
	it.Scholar, _ = registry.Recognize(w.rep.NormalizedURL, it.Citation.LinkText)
	return it
}

// decide settles one URL without network: an operator's decision, offline fixtures, or in online mode
// the preflight, online fixture replay and dry-run. ok=false means the URL
// needs the live ladder.
func decide(guard *netguard.Guard, cfg *citationConfig, w workItem, ops *decisionSet, offline, online *fixtureSet) (decision, bool) {
	if d, ok := ops.lookup(w.rep); ok {
		return d, true
	}
	fromFixture := func(fx *fixtureEntry, rung, defaultURL, notesPrefix string) decision {
		st := Status(fx.Status)
		if !st.Known() {
			st = StatusInvalid
		}
		notes := fx.Notes
		if notes == "" {
			notes = notesPrefix + string(st)
			if rung == "offline-fixture" && st == StatusValid {
				notes = "ok"
			}
		}
		return decision{Verdict: Verdict{Status: st, Notes: notes, URL: cmp.Or(fx.URL, defaultURL), HTTPStatus: fx.HTTPStatus, Title: fx.Title, Publisher: fx.Publisher, EvidenceSnippet: fx.EvidenceSnippet}, rung: rung, checkedAt: fx.CheckedAt}
	}
	if cfg.mode == ModeOffline {
		fx := offline.lookup(w.rep)
		if fx == nil {
			return decision{Verdict: Verdict{Status: StatusInvalid, Notes: "offline fixture not found for normalized_url", URL: w.rep.NormalizedURL}, rung: "offline-fixture"}, true
		}
		return fromFixture(fx, "offline-fixture", w.rep.NormalizedURL, "offline fixture status="), true
	}
	target, err := guard.Preflight(w.rep.NormalizedURL)
	if err != nil {
		return decision{Verdict: Verdict{Status: StatusInvalid, Notes: "online ladder: " + netguard.Reason(err), URL: w.rep.NormalizedURL}, rung: "preflight"}, true
	}
	if fx := online.lookup(w.rep); fx != nil {
		d := fromFixture(fx, "online-fixture", target.URL, "online fixture status=")
		// A capture's notes already name their rung ("online ladder: x" or
		// "online ladder blocked: …"); marking them again would break
		// byte-identical replay.
		if !strings.Contains(d.Notes, "online ladder") {
			d.Notes += "; online ladder: fixture"
		}
		return d, true
	}
	if cfg.onlineDryRun {
		return decision{Verdict: Verdict{Status: StatusBlocked, Notes: dryRunNotes, URL: target.URL}, rung: "dry-run"}, true
	}
	return decision{}, false
}

// liveContext is what the live ladder needs beyond the artifacts: the
// original URLs (memory only) and, for a re-run, the earlier results to keep.
type liveContext struct {
	originals map[string]string
	// texts are the link texts of the provenance items (memory only).
	texts linkTexts
	// keep maps normalized URLs to earlier records that are not checked
	// again (a re-run of the blocked URLs keeps everything else).
	keep map[string]Citation
}

// validate decides every URL and builds the citation records. On em it
// reports, in this order: the fixtures' warnings; one queued event per URL,
// in work-list order; a finished event for each URL settled without the
// ladder (fixture, preflight, dry run, cache or kept record), in work-list
// order; the ladder's configuration warnings; the live URLs' attempt,
// attempt-done and retry-wait events, each URL's ending with its finished
// event, interleaved across URLs as the ladder works; and, when too few
// hosts answered, the unreachable warning.
func (e *Engine) validate(ctx context.Context, run *RunDir, cfg *citationConfig, urlMap []URLMapItem,
	in *validateInputs, foundBy []FoundByItem, lc liveContext, em *emitter) (*validation, error) {
	offline, online, ops := in.offline, in.online, in.decisions
	for _, f := range []*fixtureSet{offline, online} {
		if err := f.ready(); err != nil {
			return nil, err
		}
	}
	work := workList(urlMap)
	guard := e.guard(cfg.policy)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	fr, err := e.openFleet(ctx, cfg, cancel)
	if err != nil {
		return nil, err
	}
	defer fr.close()
	cache := e.verdictCache(ctx, fr, cfg)
	forWork, first := provenance(work, foundBy)
	// A URL settled without the ladder gets its record at once: holding
	// every decision until the records are built kept a second copy of each
	// verdict (34 MB at 20,000 files).
	defaultCheckedAt := cmp.Or(strings.TrimSpace(run.Manifest.UpdatedAt), e.nowISO())
	records := make([]Citation, len(work))
	rungs := make([]string, len(work))
	settled := make([]bool, len(work))
	var live []ladder.Item
	var reach reachCount
	for i, w := range work {
		d, ok := decide(guard, cfg, w, ops, offline, online)
		if rec, kept := lc.keep[w.rep.NormalizedURL]; !ok && kept {
			d, ok = decision{Verdict: rec.Verdict(), rung: "previous", checkedAt: rec.CheckedAt}, true
		}
		var it ladder.Item
		if !ok {
			it = newLiveItem(i, w, lc, forWork[i], first[i])
			d, ok = preLadder(cache, w, it, cfg.tier)
		}
		if ok {
			records[i] = buildRecord(w, d, forWork[i], cmp.Or(d.checkedAt, defaultCheckedAt))
			rungs[i], settled[i] = d.rung, true
			continue
		}
		live = append(live, it)
	}
	// Every decision a fixture can make is made: its entries and indexes
	// are not needed again (warnings, source path and digest stay), and a
	// large run's fixtures would otherwise stay beside the records about to
	// be built.
	offline.release()
	online.release()
	if err := fr.err(); err != nil {
		return nil, err
	}
	// Entries of a hand-written fixtures file read leniently are reported
	// before any URL is checked, and so is a fleet store that cannot be
	// reached.
	var warnings []string
	if err := emitWarnings(ctx, em, len(work), &warnings, append(fixtureWarnings(offline, online), fr.drain()...)); err != nil {
		return nil, err
	}
	for i, w := range work {
		if err := em.emit(ctx, Event{Kind: EventQueued, Index: i, Total: len(work), URL: w.rep.NormalizedURL, CID: w.rep.CID}); err != nil {
			return nil, err
		}
	}
	finished := func(i int, rung string, redirects []string) error {
		return em.emit(ctx, Event{Kind: EventFinished, Index: i, Total: len(work), URL: work[i].rep.NormalizedURL,
			CID: work[i].rep.CID, Rung: rung, Redirects: redirects, Citation: &records[i]})
	}
	finish := func(i int, d decision) error {
		records[i] = buildRecord(work[i], d, forWork[i], cmp.Or(d.checkedAt, defaultCheckedAt))
		return finished(i, d.rung, d.redirects)
	}
	for i := range work {
		if settled[i] {
			if err := finished(i, rungs[i], nil); err != nil {
				return nil, err
			}
		}
	}
	if len(live) > 0 {
		var (
			mu       sync.Mutex
			firstErr error
		)
		lad := e.newLadder(run, cfg, guard, fr, cache, func(ev Event) error {
			ev.Total = len(work)
			return em.emit(ctx, ev)
		})
		if err := emitWarnings(ctx, em, len(work), &warnings, lad.Warnings()); err != nil {
			return nil, err
		}
		lad.Run(ctx, live, func(it *ladder.Item, ld ladder.Decision, at string) {
			d := decision{Verdict: ld.Verdict, rung: ld.Rung, redirects: ld.Redirects, checkedAt: at}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ld.Reached:
				reach.reached++
			case ld.Unreached:
				reach.unreached = append(reach.unreached, it.URL)
			}
			if err := finish(it.Index, d); err != nil && firstErr == nil {
				firstErr = err
			}
			if !it.Credentialed && cache != nil && ld.Rung != rungCache {
				cache.put(&records[it.Index], verdictContext(cfg.tier, it.Citation))
			}
		})
		if err := fr.err(); err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, cancelled()
		}
		// A store lost mid-run is said once, after the ladder.
		if err := emitWarnings(ctx, em, len(work), &warnings, fr.drain()); err != nil {
			return nil, err
		}
		if firstErr != nil {
			return nil, firstErr
		}
		if reach.down() {
			w := unreachableWarning(len(reach.unreached))
			warnings = append(warnings, w)
			if err := em.emit(ctx, Event{Kind: EventWarning, Total: len(work), Detail: w}); err != nil {
				return nil, err
			}
		}
	}

	dg := validateDigest{
		Schema: "citations_validate.inputs.v1", RunID: run.Manifest.RunID, Mode: cfg.mode, ModeSource: cfg.modeSource,
		EndpointSources: struct {
			BrightData string `json:"brightData"`
			Apify      string `json:"apify"`
		}{cfg.endpointSources.BrightData, cfg.endpointSources.Apify},
		BrightDataEndpoint: cfg.endpoints.BrightData, ApifyEndpoint: cfg.endpoints.Apify,
		RunPolicySource: cfg.policySource, LadderPolicy: cfg.policy,
	}
	if ops != nil {
		dg.OperatorDecisions = &ops.digest
	}
	dg.URLMap = make([]URLMapItem, len(work))
	for i, w := range work {
		dg.URLMap[i] = w.rep
	}
	if cfg.mode == ModeOffline {
		dg.FixtureDigest = &offline.digest
	} else {
		od := emptyFixtureDigest()
		if online != nil {
			od = online.digest
		}
		dg.OnlineFixtureDigest = &od
		dg.OnlineDryRun = &cfg.onlineDryRun
	}
	digest, err := jsonx.Digest(dg)
	if err != nil {
		return nil, err
	}
	return &validation{records: records, digest: digest, warnings: warnings, reach: reach, decided: countRung(rungs, operatorRung)}, nil
}

// recordURL is the form a record's url and url_original take: the WHATWG
// serialization, as the reference's redaction step writes them (a
// hand-written fixture url "https://Example.COM/a" is recorded as
// "https://example.com/a"); a value that does not parse is kept as it is,
// as there. Extracted and fetched URLs are already in this form.
func recordURL(raw string) string {
	if href, ok := parse.Href(raw); ok {
		return href
	}
	return raw
}

func emptyFixtureDigest() string {
	f, err := emptyFixtureSet()
	if err != nil {
		return ""
	}
	return f.digest
}

// buildRecord turns a decision into a redacted citation.v1 record.
func buildRecord(w workItem, d decision, foundBy []FoundByEntry, checkedAt string) Citation {
	original, origCreds := netguard.RedactURL(recordURL(w.rep.URLOriginal))
	url, urlCreds := netguard.RedactURL(recordURL(d.URL))
	rec := Citation{SchemaVersion: "citation.v1", NormalizedURL: w.rep.NormalizedURL, CID: w.rep.CID,
		URLOriginal: original, CheckedAt: checkedAt}
	v := d.Verdict
	v.URL, v.Notes, v.Title = url, netguard.RedactText(v.Notes), netguard.RedactText(v.Title)
	v.Publisher, v.EvidenceSnippet = netguard.RedactText(v.Publisher), netguard.RedactText(v.EvidenceSnippet)
	rec.setVerdict(v)
	// Shared with provenance's array (see provenance), clipped so that an
	// append can never write into the next citation's entries.
	rec.FoundBy = slices.Clip(foundBy)
	if rec.FoundBy == nil {
		rec.FoundBy = []FoundByEntry{}
	}
	const userinfoNote = "userinfo redacted; marked invalid per redaction policy"
	if (origCreds || urlCreds) && !strings.Contains(rec.Notes, userinfoNote) {
		rec.Status = StatusInvalid
		if rec.Notes != "" {
			rec.Notes += "; "
		}
		rec.Notes += userinfoNote
	}
	return rec
}

// Validate runs the validate tool. Events, if non-nil, receives the per-URL
// stream and is closed when Validate returns.
func (e *Engine) Validate(ctx context.Context, a ValidateArgs, events chan<- Event) (*ValidateResult, error) {
	if events != nil {
		defer close(events)
	}
	run, _, release, err := e.openTool(a.Reason, a.ManifestPath)
	if err != nil {
		return nil, err
	}
	defer release()
	in, err := resolveValidateInputs(run, a)
	if err != nil {
		return nil, err
	}
	if err := e.askOnline(in.cfg); err != nil {
		return nil, err
	}
	if err := checkOutputs(run, in.citationsPath); err != nil {
		return nil, err
	}
	urlMap, err := loadURLMap(run, in.urlMapPath)
	if err != nil {
		return nil, err
	}
	foundBy, err := loadFoundBy(run)
	if err != nil {
		return nil, err
	}
	em := &emitter{ch: events}
	if err := em.emit(ctx, Event{Kind: EventStage, Stage: "validate"}); err != nil {
		return nil, err
	}
	var lc liveContext
	if in.cfg.mode == ModeOnline && !in.cfg.onlineDryRun {
		lc.originals, lc.texts = recoverOriginals(ctx, run, foundBy, in.cfg.sourceTitles)
	}
	v, err := e.validate(ctx, run, in.cfg, urlMap, in, foundBy, lc, em)
	if err != nil {
		return nil, err
	}
	res, err := e.writeValidation(ctx, run, in, v)
	if err != nil {
		return nil, err
	}
	e.auditValidate(run, a.Reason, res)
	return res, nil
}

// writeValidation writes citations.jsonl and, in online mode, the side
// artifacts, in one commit, and assembles the result envelope.
func (e *Engine) writeValidation(ctx context.Context, run *RunDir, in *validateInputs, v *validation) (*ValidateResult, error) {
	data, err := encodeCitations(v.records, in.citationsPath)
	if err != nil {
		return nil, err
	}
	cfg := in.cfg
	ws := []pendingWrite{{path: in.citationsPath, message: "cannot write citations.jsonl", stream: data}}
	var online *onlineFiles
	var remove []string
	if cfg.mode == ModeOnline {
		if online, err = e.renderOnlineArtifacts(run, in, v); err != nil {
			return nil, err
		}
		ws = append(ws, online.pending()...)
		remove = online.removals()
	}
	if err := e.commit(ctx, run, ws, remove); err != nil {
		return nil, err
	}
	res := &ValidateResult{
		OK: true, RunID: run.Manifest.RunID, CitationsPath: in.citationsPath, Mode: cfg.mode, ModeSource: cfg.modeSource,
		ValidationTier: cfg.tier, ValidationTierSource: cfg.tierSource,
		EffectiveEndpoints: cfg.endpoints, EndpointSources: cfg.endpointSources,
		RunPolicySource: cfg.policySource, LadderPolicy: cfg.policy,
		Validated: len(v.records), Counts: countStatuses(v.records), InputsDigest: v.digest, Warnings: v.warnings,
		OperatorDecisions: v.decided,
	}
	if cfg.mode == ModeOnline {
		res.OnlineDryRun, res.OnlineDryRunSource = &cfg.onlineDryRun, &cfg.onlineDryRunSource
		online.fill(res)
	}
	return res, nil
}

// fixtureWarnings are the fixtures files' warnings, offline then online.
func fixtureWarnings(sets ...*fixtureSet) []string {
	var out []string
	for _, f := range sets {
		if f != nil {
			out = append(out, f.warnings...)
		}
	}
	return out
}

// emitWarnings says each warning as an event and adds it to warnings.
func emitWarnings(ctx context.Context, em *emitter, total int, warnings *[]string, ws []string) error {
	for _, w := range ws {
		*warnings = append(*warnings, w)
		if err := em.emit(ctx, Event{Kind: EventWarning, Total: total, Detail: w}); err != nil {
			return err
		}
	}
	return nil
}
