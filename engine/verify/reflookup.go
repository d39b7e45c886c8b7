// Looking up title-only references in the registries.

package verify

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine/registry"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// KindUnresolved is the resolve error of a citation whose reference gives
// no URL or DOI and that no registry knows: a phantom reference. It is
// reported, and named in the result's reason, but does not fail the
// document by itself: grey literature (internal reports, surveys) is in
// no registry either.
const KindUnresolved = "unresolved"

// refLookup finds title-only references through the registries, each
// reference once per Run.
type refLookup struct {
	client *registry.Client
	found  map[string]registry.Found
	// ids caches registry answers per identifier, each asked once per Run.
	ids map[registry.ID]registry.Answer
}

// newRefLookup's guard is the source guard's options plus the operator's
// registry bases as trusted endpoints; it fetches registry URLs only.
func newRefLookup(env Env, opts []netguard.Option) *refLookup {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	bases := registry.BasesFromEnv(env.Registries, getenv)
	guard := netguard.New(append(slices.Clone(opts), netguard.TrustEndpoints(bases.Operator()...))...)
	get := func(ctx context.Context, url, accept string) (*registry.Response, error) {
		r, err := guard.Fetch(ctx, netguard.Request{URL: url, Header: http.Header{"Accept": {accept}}})
		if err != nil {
			return nil, err
		}
		return &registry.Response{Status: r.StatusCode, Header: r.Header, Body: r.Body}, nil
	}
	return &refLookup{found: map[string]registry.Found{}, ids: map[registry.ID]registry.Answer{}, client: &registry.Client{Bases: bases,
		Contact: cmp.Or(strings.TrimSpace(env.Contact), strings.TrimSpace(getenv(registry.EnvContact))), Get: get}}
}

func (l *refLookup) find(ctx context.Context, ref string) registry.Found {
	if f, ok := l.found[ref]; ok {
		return f
	}
	f := l.client.FindReference(ctx, ref)
	l.found[ref] = f
	return f
}

// resolve gives a citation of a title-only reference the DOI of the work
// a registry found for it, or the unresolved error when the registries
// answered and none knows it; otherwise c is returned as it is.
func (l *refLookup) resolve(ctx context.Context, c parse.Citation) (parse.Citation, *ResolveError) {
	if c.Target != "" || c.Reference == "" {
		return c, nil
	}
	f := l.find(ctx, c.Reference)
	switch {
	case f.Work != nil:
		c.Target, c.TargetKind = f.Work.DOI, parse.CiteDOI
	case f.Err == nil:
		return c, &ResolveError{KindUnresolved, netguard.RedactText(f.Unresolved())}
	}
	return c, nil
}

// preflight is verify's preflight after a title-only reference was looked
// up (with fetching allowed): c, with the found work's DOI as its target,
// and its status and error ("" and nil for one verify fetches).
func (l *refLookup) preflight(ctx context.Context, a Args, c parse.Citation, raw string) (parse.Citation, string, *ResolveError) {
	if a.AllowFetch {
		var re *ResolveError
		if c, re = l.resolve(ctx, c); re != nil {
			return c, "error", re
		}
	}
	st, re := preflight(a, c, raw)
	if st == "" && a.AllowFetch && c.Reference == "" {
		if re := l.registered(ctx, c); re != nil {
			return c, "error", re
		}
	}
	return c, st, re
}

// KindNotRegistered is the resolve error of a cited DOI, arXiv or PubMed id
// its registry does not hold: a phantom reference. Unlike a title-only
// reference no registry finds (unresolved: grey literature is in no
// registry either), an identifier that does not exist is a finding, and
// fails the document as an unsupported claim does.
const KindNotRegistered = "not_registered"

// KindMismatch is the resolve error of a citation whose reference entry
// names one work and whose DOI (or arXiv or PubMed id) belongs to another:
// the registry's title clearly differs from the entry (the registry rung's
// title rule). It is reported, not judged — the fetched source would be the
// other work — and fails the document as an unsupported claim does.
const KindMismatch = "mismatch"

// EntryMismatchBelow is the title score under which a reference entry and
// its DOI's registry title name different works. It is stricter than the
// registry rung's (registry.MismatchBelow): agents label entries with page
// titles ("Lithium battery recycling - ScienceDirect") that share only part
// of the paper's title and must not fail a document, while a swapped DOI
// shares next to nothing (0.00 in the tests; swapped identifiers scored
// 0.00–0.50 against link texts on the rung's development set).
const EntryMismatchBelow = 0.25

// registered asks the identifier's registry about a cited DOI, arXiv or
// PubMed/PMC id (as written, or the target of a reference entry) and
// returns the unresolved error when the registry answered that no such
// work exists: a phantom reference, named as such rather than as the
// resolver's 404; and, for a reference entry, the mismatch error when the
// work the registry holds is clearly not the one the entry names. A registry that could not answer, or an id it knows,
// leaves the citation to the ordinary fetch. A work found by a title
// search (c.Reference set) is not asked again.
func (l *refLookup) registered(ctx context.Context, c parse.Citation) *ResolveError {
	target := c.Target
	if c.TargetKind == parse.CiteDOI {
		target = "https://doi.org/" + c.Target
	}
	id, ok := registry.Recognize(target, "")
	if !ok {
		return nil
	}
	a, ok := l.ids[id]
	if !ok {
		a = l.lookup(ctx, id)
		l.ids[id] = a
	}
	switch {
	case a.Err != nil:
		return nil
	case !a.Found:
		v := registry.Decide(id, a, "", "")
		return &ResolveError{KindNotRegistered, netguard.RedactText("unresolved: " + strings.TrimPrefix(v.Notes, "registry: "))}
	case c.Entry == "":
		return nil
	}
	// The entry is a whole reference line (authors, title, venue): the rule
	// asks how much of the registry's title it holds.
	if v := registry.Decide(id, a, "", c.Entry); v.Outcome == registry.Mismatch && v.Score < EntryMismatchBelow {
		return &ResolveError{KindMismatch, netguard.RedactText("mismatch: " + strings.TrimPrefix(v.Notes, "registry: ") +
			", not the work the reference entry names")}
	}
	return nil
}

func (l *refLookup) lookup(ctx context.Context, id registry.ID) registry.Answer {
	switch id.Kind {
	case registry.DOI:
		return l.client.LookupDOI(ctx, id.Value)
	case registry.ArXiv:
		return l.client.LookupArXiv(ctx, []string{id.Value})[id.Value]
	case registry.PubMed, registry.PMC:
		return l.client.LookupPubMed(ctx, id.Kind, []string{id.Value})[id.Value]
	}
	return registry.Answer{Err: registry.ErrUnavailable}
}
