package engine

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/verify"
)

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
	env := verify.Env{GuardOptions: e.GuardOptions, Getenv: e.Net.Getenv, DOIResolver: e.Net.DOIResolver}
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
