package engine

import (
	"context"
	"errors"
	"path/filepath"
	"unicode/utf8"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// The engine's adapter to engine/verify: `citegate verify` and `run --verify`
// call verify.Run with the engine's network options, and a run's verification
// reports each settled citation as an event for the front ends.

// ReadVerifyFile reads run's --verify synthesis file before the run starts,
// so that an unreadable file fails before anything is written; the
// verification itself runs inside the run's commit (RunArgs.VerifyOutput),
// in the headless path and in the terminal UI alike.
func ReadVerifyFile(file string) ([]byte, error) {
	out, err := fsx.ReadLimited(file, verify.MaxOutputBytes)
	if err != nil {
		return nil, &Error{Code: CodeNotFound, Message: "--verify file unreadable", Details: map[string]any{"path": file, "reason": err.Error()}}
	}
	return out, nil
}

// Verify is `citegate verify`: verify.Run with the engine's network options,
// environment and DOI resolver, its errors as envelopes.
func (e *Engine) Verify(ctx context.Context, output []byte, a verify.Args) (*verify.Result, error) {
	return e.verify(ctx, output, a, nil)
}

func (e *Engine) verify(ctx context.Context, output []byte, a verify.Args, settled verify.Settled) (*verify.Result, error) {
	env := verify.Env{GuardOptions: e.GuardOptions, Getenv: e.Net.Getenv, DOIResolver: e.Net.DOIResolver,
		Registries: e.Net.Registries, Contact: e.Net.Contact}
	res, err := verify.Run(ctx, env, output, a, settled)
	var ae *verify.ArgError
	switch {
	case errors.As(err, &ae):
		return nil, newError(CodeInvalidArgs, ae.Message, ae.Details)
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, cancelled()
	case err != nil:
		return nil, err
	}
	return res, nil
}

// verifyRecords is `run --verify`: it checks a synthesis against the
// citations the run just validated, with the offline lexical judge, and
// returns the result and its verify.json encoding; each citation goes out
// on em as an EventVerified as soon as it is settled. Every source the
// synthesis cites that the records mark blocked, invalid or mismatch is a
// not_citable finding; sources are fetched only in online mode. Run writes
// verify.json in its own commit, so a run with --verify writes everything or
// nothing.
func (e *Engine) verifyRecords(ctx context.Context, mode string, records []Citation, output []byte, em *emitter) (*verify.Result, []byte, error) {
	statuses := make(map[string]Status, len(records))
	for _, r := range records {
		statuses[r.NormalizedURL] = r.Status
	}
	gate := func(u string) (string, bool, bool) {
		st, ok := statuses[u]
		return string(st), st.Citable(), ok
	}
	res, err := e.verify(ctx, output, verify.Args{Model: "lexical", AllowFetch: mode == ModeOnline, GateStatus: gate,
		FetchOff: "run --verify fetches sources only in online mode"},
		verifyProgress(em, statuses))
	if err != nil {
		return nil, nil, err
	}
	data, err := jsonx.MarshalFile(res)
	if err != nil {
		return nil, nil, err
	}
	return res, data, nil
}

// verifyPath is citations/verify.json, beside citations.jsonl.
func verifyPath(citationsPath string) string {
	return filepath.Join(filepath.Dir(citationsPath), "verify.json")
}

// maxShownPassage bounds the judge's text an EventVerified carries: enough
// for an operator to check a verdict against the source, small enough for a
// screen and for an event stream that holds up to HardMaxCitations of them
// (the offline judge reads a whole page, up to the 5 MiB body cap).
const maxShownPassage = 4000

// VerifiedClaim is one citation of a `run --verify` synthesis as the front
// ends show it while the run verifies: the entry verify.json will hold, and
// what the operator needs to judge it that verify.json leaves out.
type VerifiedClaim struct {
	// Claim is the text the citation supports (parse.Citation.Claim),
	// redacted.
	Claim string
	// Citation is the citation's entry in verify.json, exactly.
	Citation verify.Citation
	// GateC is the status this run's citations.jsonl gives the cited
	// source; empty when the run did not validate it, or the citation
	// names no source.
	GateC Status
	// Passage is the text the judge read, redacted; when that is longer
	// than maxShownPassage bytes, the passages of it most relevant to the
	// claim. Empty when no judge read anything.
	Passage string
	// PassageBytes is the length of the whole text the judge read, so a
	// front end can say how much of it Passage shows.
	PassageBytes int
}

// verifyProgress reports each citation Verify settles as an EventVerified
// on em, carrying the claim, the verify.json entry, the Gate C status the
// run's records give its source, and the judge's text. Like every emit, it
// gives up when ctx is cancelled. Nothing is computed when em has no
// consumer.
func verifyProgress(em *emitter, citable map[string]Status) verify.Settled {
	return func(ctx context.Context, i, total int, c parse.Citation, vc verify.Citation, passage string) error {
		if em == nil || em.ch == nil {
			if ctx.Err() != nil {
				return cancelled()
			}
			return nil
		}
		key := verify.CitableKey(c)
		claim := &VerifiedClaim{Claim: netguard.RedactText(c.Claim), Citation: vc, GateC: citable[key],
			Passage: shownPassage(passage, c.Claim), PassageBytes: len(passage)}
		return em.emit(ctx, Event{Kind: EventVerified, Index: i, Total: total, URL: key, Verified: claim})
	}
}

// shownPassage is the part of the judge's text an EventVerified carries:
// all of it up to maxShownPassage bytes, else the passages most relevant to
// the claim within that budget (cut on a rune boundary, should the page's
// lead that Passages always keeps exceed it), redacted like every text
// that reaches a screen.
func shownPassage(text, claim string) string {
	if len(text) > maxShownPassage {
		text = judge.Passages(text, claim, maxShownPassage)
	}
	if len(text) > maxShownPassage {
		cut := maxShownPassage
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + " …"
	}
	return netguard.RedactText(text)
}
