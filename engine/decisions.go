package engine

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
	"github.com/citegate/citegate/parse/icu"
)

// This file owns the operator decisions file: its type, reader, encoder,
// schema check and audit line, the command that changes it (Decide) and how
// a run applies it (decisionSet.lookup). A decision is the researcher's word
// on one citation — "I read it through the library: valid" — and it applies
// the way an offline fixture does, ahead of fixtures and the ladder. It is
// only ever written by an operator's command (citegate decide, the terminal
// UI, the MCP tool when the operator allows it); nothing read from a wave
// file or an agent's output becomes one.

// DecisionsFile is the operator decisions file's name in the run root. It
// lies beside offline-fixtures.json, not under citations/, because it is an
// input the operator owns, not an artifact a run rewrites.
const DecisionsFile = "operator-decisions.json"

// maxNoteRunes bounds a decision's note: a reason in a sentence, not a
// document (the schema says the same).
const maxNoteRunes = 500

// Decision actions.
const (
	// ActionStatus sets the citation's status (valid, paywalled, invalid).
	ActionStatus = "status"
	// ActionExclude keeps the citation out of synthesis: it is recorded
	// invalid, so Gate C counts it as must-not-cite rather than dropping it
	// from the denominator (a decision never makes a URL vanish).
	ActionExclude = "exclude"
)

// OperatorDecision is one decision, as operator_decisions.v1 stores it.
// At is the one value not derived from the inputs: when the decision was
// taken (the run copies it into the record's checked_at, so a run with the
// same decisions file stays byte-identical).
type OperatorDecision struct {
	NormalizedURL string `json:"normalized_url"`
	CID           string `json:"cid"`
	Action        string `json:"action"`
	Status        Status `json:"status"`
	// Overrides is the status the citation had when the decision was taken.
	Overrides Status `json:"overrides"`
	Note      string `json:"note"`
	Who       string `json:"who"`
	At        string `json:"at"`
}

// recordNotes is the citation record's notes for this decision: the
// fixtures' convention, prefixed so a reader sees a person decided.
func (d OperatorDecision) recordNotes() string {
	if d.Action == ActionExclude {
		if d.Note == "" {
			return "operator: excluded from synthesis"
		}
		return "operator: excluded from synthesis: " + d.Note
	}
	return "operator: " + d.Note
}

// DecisionsDoc is the whole file.
type DecisionsDoc struct {
	SchemaVersion string             `json:"schema_version"`
	RunID         string             `json:"run_id"`
	Decisions     []OperatorDecision `json:"decisions"`
}

func (r *RunDir) decisionsPath() string { return filepath.Join(r.Root, DecisionsFile) }

// loadDecisions reads and checks the run's decisions file; a run without one
// has no decisions (nil, nil). The file is citegate's own, so a file that
// breaks its schema or names another run is refused rather than read
// leniently: a hand edit must not quietly change what synthesis may cite.
func loadDecisions(run *RunDir) (*DecisionsDoc, error) {
	path := run.decisionsPath()
	data, err := fsx.ReadLimited(path, maxJSONBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, readError("operator decisions", path, "operator decisions missing", err)
	}
	var doc DecisionsDoc
	if err := decodeChecked(data, schema.OperatorDecisions, "operator decisions", "operator decisions unreadable JSON", path, &doc); err != nil {
		return nil, err
	}
	if doc.RunID != run.Manifest.RunID {
		return nil, newError(CodeSchemaValidation, "operator decisions run_id mismatch",
			map[string]any{"path": path, "expected": run.Manifest.RunID, "got": doc.RunID})
	}
	return &doc, nil
}

// encodeDecisions renders the file, decisions in collation order of their
// URL, and checks it against its schema.
func encodeDecisions(doc *DecisionsDoc, path string) ([]byte, error) {
	icu.SortBy(doc.Decisions, func(d OperatorDecision) string { return d.NormalizedURL })
	return marshalChecked(schema.OperatorDecisions, doc, path)
}

// decisionSet is the decisions a run applies, by normalized URL.
type decisionSet struct {
	byURL  map[string]OperatorDecision
	digest string
}

func newDecisionSet(doc *DecisionsDoc) (*decisionSet, error) {
	if doc == nil {
		return nil, nil
	}
	digest, err := jsonx.Digest(doc)
	if err != nil {
		return nil, err
	}
	s := &decisionSet{byURL: make(map[string]OperatorDecision, len(doc.Decisions)), digest: digest}
	for _, d := range doc.Decisions {
		s.byURL[d.NormalizedURL] = d
	}
	return s, nil
}

// lookup settles a URL the operator decided, before fixtures and the ladder.
func (s *decisionSet) lookup(it URLMapItem) (decision, bool) {
	if s == nil {
		return decision{}, false
	}
	d, ok := s.byURL[it.NormalizedURL]
	if !ok {
		return decision{}, false
	}
	return decision{Verdict: Verdict{Status: d.Status, Notes: d.recordNotes(), URL: it.NormalizedURL},
		rung: operatorRung, checkedAt: d.At}, true
}

// operatorRung is the rung of a URL a decision settled (the event's and
// the audit's word for it).
const operatorRung = "operator"

// countRung counts the URLs settled by rung.
func countRung(rungs []string, rung string) int {
	n := 0
	for _, r := range rungs {
		if r == rung {
			n++
		}
	}
	return n
}

// DecideArgs is one `citegate decide` call (or the terminal UI's key, or the
// MCP tool's call).
type DecideArgs struct {
	// Dir is the run directory (absolute).
	Dir string `json:"run_dir" jsonschema:"Absolute path of the run directory (required)."`
	// URL names the citation: as written, normalized, or its cid.
	URL string `json:"url,omitempty" jsonschema:"The citation: its URL as written, its normalized URL, or its cid. Required unless list is true."`
	// Status is valid, paywalled or invalid.
	Status string `json:"status,omitempty" jsonschema:"valid, paywalled or invalid: the status the next run records for this citation. Needs note."`
	Note   string `json:"note,omitempty" jsonschema:"Why, in a sentence (required with status; at most 500 characters). Redacted before it is stored."`
	// Exclude keeps the citation out of synthesis (recorded invalid).
	Exclude bool `json:"exclude,omitempty" jsonschema:"true: exclude the citation from synthesis (the run records it invalid)."`
	// Undo removes the citation's decision.
	Undo bool `json:"undo,omitempty" jsonschema:"true: remove this citation's decision."`
	// List changes nothing and lists the decisions and what is left.
	List bool `json:"list,omitempty" jsonschema:"true: change nothing; list the decisions and the undecided must-not-cite citations."`
	// Who decided: $USER or --operator on the command line.
	Who string `json:"-"`
	// Via is the front end that took the decision (cli, tui, mcp), for the
	// audit line.
	Via string `json:"-"`
}

// Undecided is a must-not-cite citation without a decision.
type Undecided struct {
	NormalizedURL string `json:"normalized_url"`
	CID           string `json:"cid"`
	Status        Status `json:"status"`
}

// DecideResult is decide's envelope.
type DecideResult struct {
	OK            bool   `json:"ok"`
	RunID         string `json:"run_id"`
	DecisionsPath string `json:"decisions_path"`
	// Action is what happened: decided, excluded, undone or listed.
	Action   string            `json:"action"`
	Decision *OperatorDecision `json:"decision,omitempty"`
	// Decisions are every decision now in the file.
	Decisions []OperatorDecision `json:"decisions"`
	// Undecided are the must-not-cite citations of the last run that no
	// decision covers: what review still has to look at.
	Undecided []Undecided `json:"undecided"`
	Next      []string    `json:"next"`
}

// decideRequest is a checked DecideArgs: which action, with what.
type decideRequest struct {
	action string // decided, excluded, undone, listed
	status Status
	note   string
}

func checkDecideArgs(a DecideArgs) (decideRequest, *Error) {
	picked := 0
	for _, on := range []bool{a.Status != "", a.Exclude, a.Undo, a.List} {
		if on {
			picked++
		}
	}
	if picked != 1 {
		return decideRequest{}, newError(CodeInvalidArgs, "give exactly one of status, exclude, undo or list", map[string]any{})
	}
	if !a.List && strings.TrimSpace(a.URL) == "" {
		return decideRequest{}, newError(CodeInvalidArgs, "url must be non-empty: name the citation (its URL, normalized URL or cid)", map[string]any{})
	}
	note := netguard.RedactText(strings.Join(strings.Fields(a.Note), " "))
	if len([]rune(note)) > maxNoteRunes {
		return decideRequest{}, newError(CodeInvalidArgs, "note too long: at most 500 characters", map[string]any{"length": len([]rune(note))})
	}
	switch {
	case a.List:
		return decideRequest{action: "listed"}, nil
	case a.Undo:
		return decideRequest{action: "undone"}, nil
	case a.Exclude:
		return decideRequest{action: "excluded", status: StatusInvalid, note: note}, nil
	}
	st := Status(a.Status)
	if st != StatusValid && st != StatusPaywalled && st != StatusInvalid {
		return decideRequest{}, newError(CodeInvalidArgs, "status must be valid, paywalled or invalid (blocked and mismatch are what checking finds, not a decision)",
			map[string]any{"status": netguard.RedactText(a.Status)})
	}
	if note == "" {
		return decideRequest{}, newError(CodeInvalidArgs, "note must be non-empty: say in a sentence why (e.g. \"read through the library\")", map[string]any{})
	}
	return decideRequest{action: "decided", status: st, note: note}, nil
}

// Decide records, removes or lists operator decisions. A change is written
// whole or not at all (one fsx commit) under the run directory's lock, and
// logged in logs/audit.jsonl; the next run, or a recompute, applies it.
func (e *Engine) Decide(ctx context.Context, a DecideArgs) (*DecideResult, error) {
	req, aerr := checkDecideArgs(a)
	if aerr != nil {
		return nil, aerr
	}
	dir, aerr := requireAbs("run_dir", a.Dir, true)
	if aerr != nil {
		return nil, aerr
	}
	run, err := LoadRun(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	if err := checkOutputs(run, run.decisionsPath()); err != nil {
		return nil, err
	}
	release, err := e.lockRun(run)
	if err != nil {
		return nil, err
	}
	defer release()
	records, err := readCitations(run.citationsPath("citations.jsonl"))
	if err != nil {
		if ae := AsError(err); ae.Code == CodeNotFound {
			ae.Message = "no citations yet: run the run directory first (citegate run " + dir + ")"
			return nil, ae
		}
		return nil, err
	}
	doc, err := loadDecisions(run)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		doc = &DecisionsDoc{SchemaVersion: string(schema.OperatorDecisions), RunID: run.Manifest.RunID, Decisions: []OperatorDecision{}}
	}
	res := &DecideResult{OK: true, RunID: run.Manifest.RunID, DecisionsPath: run.decisionsPath(), Action: req.action,
		Next: []string{"citegate run " + dir}}
	if req.action != "listed" {
		rec, ferr := findCitation(records, a.URL)
		if ferr != nil {
			return nil, ferr
		}
		d, cerr := changeDecisions(doc, req, rec, cmp.Or(netguard.RedactText(strings.TrimSpace(a.Who)), "operator"), e.nowISO())
		if cerr != nil {
			return nil, cerr
		}
		data, err := encodeDecisions(doc, run.decisionsPath())
		if err != nil {
			return nil, err
		}
		if err := e.commit(ctx, run, []pendingWrite{{path: run.decisionsPath(), message: "cannot write operator decisions", data: data}}, nil); err != nil {
			return nil, err
		}
		res.Decision = &d
		e.auditDecision(run, req.action, d, a.Via)
	}
	res.Decisions = slices.Clone(doc.Decisions)
	res.Undecided = undecided(records, doc)
	return res, nil
}

// changeDecisions applies req to doc and returns the decision it set or
// removed.
func changeDecisions(doc *DecisionsDoc, req decideRequest, rec Citation, who, now string) (OperatorDecision, *Error) {
	i := slices.IndexFunc(doc.Decisions, func(d OperatorDecision) bool { return d.NormalizedURL == rec.NormalizedURL })
	if req.action == "undone" {
		if i < 0 {
			return OperatorDecision{}, newError(CodeNotFound, "no decision to undo for this citation",
				map[string]any{"normalized_url": rec.NormalizedURL})
		}
		d := doc.Decisions[i]
		doc.Decisions = slices.Delete(doc.Decisions, i, i+1)
		return d, nil
	}
	d := OperatorDecision{NormalizedURL: rec.NormalizedURL, CID: rec.CID, Action: ActionStatus, Status: req.status,
		Overrides: rec.Status, Note: req.note, Who: who, At: now}
	if req.action == "excluded" {
		d.Action = ActionExclude
	}
	if i >= 0 {
		// A second decision on a citation replaces the first; what the
		// citation was found to be stays the status it overrides.
		d.Overrides = doc.Decisions[i].Overrides
		doc.Decisions[i] = d
	} else {
		doc.Decisions = append(doc.Decisions, d)
	}
	return d, nil
}

// findCitation finds the record a decide call names: by normalized URL, cid,
// URL as written or as recorded, then by the normalized, redacted form of
// what was given.
func findCitation(records []Citation, given string) (Citation, *Error) {
	given = strings.TrimSpace(given)
	match := func(key func(Citation) string, v string) (Citation, bool) {
		for _, r := range records {
			if key(r) == v {
				return r, true
			}
		}
		return Citation{}, false
	}
	keys := []func(Citation) string{
		func(r Citation) string { return r.NormalizedURL }, func(r Citation) string { return r.CID },
		func(r Citation) string { return r.URLOriginal }, func(r Citation) string { return r.URL },
	}
	redacted, _ := netguard.RedactURL(given)
	for _, k := range keys {
		if r, ok := match(k, redacted); ok {
			return r, nil
		}
	}
	if n, err := parse.Normalize(redacted); err == nil {
		if r, ok := match(keys[0], n); ok {
			return r, nil
		}
	}
	return Citation{}, newError(CodeNotFound, "not a citation of this run: give its URL, normalized URL or cid as citations/citations.jsonl lists it",
		map[string]any{"url": redacted})
}

// undecided lists the must-not-cite records no decision covers.
func undecided(records []Citation, doc *DecisionsDoc) []Undecided {
	decided := map[string]bool{}
	for _, d := range doc.Decisions {
		decided[d.NormalizedURL] = true
	}
	out := []Undecided{}
	for _, r := range records {
		if !r.Status.Citable() && !decided[r.NormalizedURL] {
			out = append(out, Undecided{NormalizedURL: r.NormalizedURL, CID: r.CID, Status: r.Status})
		}
	}
	return out
}

// auditDecision is the decision's line in logs/audit.jsonl. The URL and the
// note were redacted when the decision was made.
func (e *Engine) auditDecision(run *RunDir, action string, d OperatorDecision, via string) {
	run.audit(struct {
		TS            string `json:"ts"`
		Kind          string `json:"kind"`
		RunID         string `json:"run_id"`
		Action        string `json:"action"`
		NormalizedURL string `json:"normalized_url"`
		CID           string `json:"cid"`
		Status        Status `json:"status"`
		Overrides     Status `json:"overrides"`
		Note          string `json:"note"`
		Who           string `json:"who"`
		Via           string `json:"via"`
	}{e.nowISO(), "operator_decision", run.Manifest.RunID, action, d.NormalizedURL, d.CID, d.Status, d.Overrides, d.Note,
		d.Who, cmp.Or(via, "cli")})
}
