package engine

import (
	"bufio"
	"cmp"
	"context"
	"path/filepath"
	"slices"

	"github.com/citegate/citegate/engine/gate"

	"github.com/citegate/citegate/engine/verify"
	"golang.org/x/sync/errgroup"
)

// RunArgs configures the whole pipeline on one run directory.
type RunArgs struct {
	ManifestPath string `json:"manifest_path" jsonschema:"Absolute path of the run directory's manifest.json (required). Relative paths are refused. The tool deep_research_citations_init (or citegate init DIR) writes a run directory with one."`
	// RunDir is the directory `run DIR` was given (its manifest.json is
	// ManifestPath): the run must be that directory (see loadRunArgs).
	RunDir       string `json:"run_dir,omitempty" jsonschema:"Absolute path of the run directory holding manifest_path. When given, the run is held to it: the manifest's root must be this directory and nothing outside it is read or written. Default: none (the manifest's artifacts.root is used)."`
	IncludeWave2 *bool  `json:"include_wave2,omitempty" jsonschema:"Also read the wave-2 files: true or false. Default true."`
	// SourceTitles are section titles extract reads like "Sources"; nil
	// takes run-config.json's (see ExtractArgs.SourceTitles).
	SourceTitles []string `json:"source_section_titles,omitempty" jsonschema:"Further section titles whose lists are read like a 'Sources' section, e.g. ['References', 'Bibliography']. Default: run-config.json's effective.citations.source_section_titles (set by init), else only the built-in titles."`
	// OfflineFixturesPath defaults to <runRoot>/offline-fixtures.json when
	// that file exists.
	OfflineFixturesPath string `json:"offline_fixtures_path,omitempty" jsonschema:"Absolute path of an offline fixtures JSON file: the status of each URL (valid, paywalled, blocked, mismatch, invalid), read only in offline mode. Default: the run directory's offline-fixtures.json when it exists."`
	OnlineFixturesPath  string `json:"online_fixtures_path,omitempty" jsonschema:"Absolute path of an online fixtures JSON file: statuses for the URLs it lists (same shapes as offline fixtures), used in online or dry-run mode instead of checking those URLs on the network; ignored in offline mode. Default: none."`
	OnlineDryRun        *bool  `json:"online_dry_run,omitempty" jsonschema:"Online mode only: true checks nothing on the network and records each URL as blocked by a dry run; false fetches. Default: run-config.json's mode (dry_run), else false. Ignored in offline mode."`
	Reason              string `json:"reason,omitempty" jsonschema:"Why the run is made, in a few words (optional; default 'citegate run'); recorded in the run's logs/audit.jsonl; at most 1000 characters."`
	// Recheck limits live checking to these normalized URLs; every other
	// URL keeps its record from the existing citations.jsonl (the TUI's
	// "re-run the blocked ones"). Empty checks everything.
	Recheck []string `json:"-"`
	// VerifyOutput, when non-nil, is a synthesis to check against this
	// run's citations (`run --verify FILE`); the result is written to
	// citations/verify.json in the same commit as every other artifact.
	VerifyOutput []byte `json:"-"`
}

// RunArtifacts lists every file a run wrote (absolute paths).
type RunArtifacts struct {
	ExtractedURLs        string  `json:"extracted_urls"`
	FoundBy              string  `json:"found_by"`
	NormalizedURLs       string  `json:"normalized_urls"`
	URLMap               string  `json:"url_map"`
	Citations            string  `json:"citations"`
	Gates                string  `json:"gates"`
	Report               string  `json:"report"`
	Audit                string  `json:"audit"`
	OnlineFixtures       *string `json:"online_fixtures,omitempty"`
	OnlineFixturesLatest *string `json:"online_fixtures_latest,omitempty"`
	BlockedURLs          *string `json:"blocked_urls,omitempty"`
	BlockedURLsQueue     *string `json:"blocked_urls_queue,omitempty"`
}

// GateCSummary is Gate C's outcome in a run summary.
type GateCSummary struct {
	Status   string       `json:"status"`
	Metrics  gate.Metrics `json:"metrics"`
	Warnings []string     `json:"warnings"`
	// Notes is the reference's sentence, as gates.json holds it; it counts
	// blocked and mismatch as "invalid".
	Notes string `json:"notes"`
	// Line is the outcome for people, naming each must-not-cite status
	// (GateCLine); the terminal, stderr and the JUnit report print it.
	Line string `json:"line"`
	// NotChecked says what the run was given but did not check (URLs in
	// lists not read as Sources, wave files with no URL), "" when nothing:
	// a pass covers only what was checked.
	NotChecked string `json:"not_checked,omitempty"`
}

// RunSummary is what `citegate run` prints on stdout.
type RunSummary struct {
	OK               bool              `json:"ok"`
	RunID            string            `json:"run_id"`
	Mode             string            `json:"mode"`
	ModeSource       string            `json:"mode_source"`
	OnlineDryRun     *bool             `json:"online_dry_run"`
	ValidationTier   string            `json:"validation_tier"`
	Artifacts        RunArtifacts      `json:"artifacts"`
	TotalFound       int               `json:"total_found"`
	UniqueFound      int               `json:"unique_found"`
	UniqueNormalized int               `json:"unique_normalized"`
	Counts           Counts            `json:"counts"`
	GateC            GateCSummary      `json:"gate_c"`
	InputsDigests    map[string]string `json:"inputs_digests"`
	// Verify is the --verify step's result (citations/verify.json).
	Verify *verify.Result `json:"verify,omitempty"`
	// Warnings are problems that did not stop the run (see
	// engine.EventWarning): wave directory entries that were not read,
	// then provider configuration problems.
	Warnings []string `json:"warnings,omitempty"`
	// origin lets the CI reports find each citation's places again.
	origin reportOrigin
}

// Passed reports whether Gate C passed.
func (s *RunSummary) Passed() bool { return s.GateC.Status == "pass" }

// Run executes extract → normalize → validate → Gate C → render, then verify
// when VerifyOutput is set. Everything is computed and schema-checked in
// memory first and written only at the end, so a failure or cancellation
// leaves the previous artifacts untouched. Events, if non-nil, receives the
// stream and is closed when Run returns.
//
// It reads top to bottom in the order data flows: open the run directory
// (openPipeline), compute every stage (stages), encode every artifact
// (encode), commit them in one step, and summarize.
func (e *Engine) Run(ctx context.Context, a RunArgs, events chan<- Event) (*RunSummary, error) {
	if events != nil {
		defer close(events)
	}
	p, release, err := e.openPipeline(a)
	if err != nil {
		return nil, err
	}
	defer release()
	em := &emitter{ch: events}
	if err := e.stages(ctx, p, a, em); err != nil {
		return nil, err
	}
	out, err := e.encode(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := e.commit(ctx, p.run, out.writes, out.remove); err != nil {
		return nil, err
	}
	return e.summarize(p, out, cmp.Or(a.Reason, "citegate run")), nil
}

// pipeline is one run's state as it flows through the stages.
type pipeline struct {
	run  *RunDir
	in   *validateInputs
	keep map[string]Citation // records a limited re-run keeps
	art  RunArtifacts

	x        *extraction
	nz       *normalization
	v        *validation
	g        *GateCResult
	md       func(w *bufio.Writer) error
	mdDigest string
	verified *verify.Result
	verifyJS []byte
	titles   []string // the Sources titles extract read
}

// openPipeline loads and locks the run directory, resolves the validate
// inputs (the default offline fixtures file included), checks every output
// path, and loads the records a limited re-run keeps.
func (e *Engine) openPipeline(a RunArgs) (*pipeline, func(), error) {
	if err := checkReasonLength(a.Reason); err != nil {
		return nil, nil, err
	}
	run, err := loadRunArgs(a)
	if err != nil {
		return nil, nil, err
	}
	release, err := e.lockRun(run)
	if err != nil {
		return nil, nil, err
	}
	p, err := preparePipeline(run, a)
	if err == nil {
		err = e.askOnline(p.in.cfg)
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return p, release, nil
}

func preparePipeline(run *RunDir, a RunArgs) (*pipeline, error) {
	offline := a.OfflineFixturesPath
	if offline == "" {
		def, err := runOfflineFixtures(run)
		if err != nil {
			return nil, err
		}
		offline = def
	}
	in, err := resolveValidateInputs(run, ValidateArgs{ManifestPath: run.ManifestPath, OfflineFixturesPath: offline,
		OnlineFixturesPath: a.OnlineFixturesPath, OnlineDryRun: a.OnlineDryRun})
	if err != nil {
		return nil, err
	}
	art := RunArtifacts{
		ExtractedURLs: run.citationsPath("extracted-urls.txt"), FoundBy: run.citationsPath("found-by.json"),
		NormalizedURLs: run.citationsPath("normalized-urls.txt"), URLMap: run.citationsPath("url-map.json"),
		Citations: in.citationsPath, Gates: run.gatesPath(), Report: run.citationsPath("validated-citations.md"),
		Audit: run.auditPath(),
	}
	if err := checkOutputs(run, art.ExtractedURLs, art.FoundBy, art.NormalizedURLs, art.URLMap, art.Citations,
		art.Report, art.Gates, gatesAuditPath(run)); err != nil {
		return nil, err
	}
	keep, err := keptRecords(in.citationsPath, a.Recheck)
	if err != nil {
		return nil, err
	}
	return &pipeline{run: run, in: in, keep: keep, art: art}, nil
}

// stages computes extract → normalize → validate → Gate C → render →
// verify in memory, announcing each stage on the event stream.
func (e *Engine) stages(ctx context.Context, p *pipeline, a RunArgs, em *emitter) (err error) {
	run, in := p.run, p.in
	stage := func(name string) error { return em.emit(ctx, Event{Kind: EventStage, Stage: name}) }

	raiseHeap, releaseHeap := e.boundHeap()
	defer releaseHeap()
	if err := stage("extract"); err != nil {
		return err
	}
	titles, err := sourceTitles(a.SourceTitles, in.cfg)
	if err != nil {
		return err
	}
	p.titles = titles
	live := in.cfg.mode == ModeOnline && !in.cfg.onlineDryRun
	if p.x, err = e.extract(ctx, run, a.IncludeWave2 == nil || *a.IncludeWave2, titles, live); err != nil {
		return err
	}
	for _, w := range p.x.warnings {
		if err := em.emit(ctx, Event{Kind: EventWarning, Detail: w}); err != nil {
			return err
		}
	}

	raiseHeap()
	if err := stage("normalize"); err != nil {
		return err
	}
	if p.nz, err = normalizeDistinct(run.Manifest.RunID, p.x.unique); err != nil {
		return err
	}

	if err := stage("validate"); err != nil {
		return err
	}
	lc := liveContext{originals: p.x.raw, keep: p.keep, texts: p.x.texts}
	if p.v, err = e.validate(ctx, run, in.cfg, p.nz.urlMap.Items, in, p.x.foundBy.Items, lc, em); err != nil {
		return err
	}

	if err := stage("gate-c"); err != nil {
		return err
	}
	// nz.normalized is exactly Gate C's U for these extracted URLs, so the
	// pipeline does not normalize them a second time.
	p.g, err = gateC(p.nz.normalized, statusPairs(p.v.records), e.nowISO(),
		[]string{relPOSIX(run.Root, p.art.Citations), relPOSIX(run.Root, p.art.ExtractedURLs)})
	if err != nil {
		return err
	}
	if p.v.reach.down() {
		markNotChecked(p.g, len(p.v.reach.unreached))
	}

	if err := stage("render"); err != nil {
		return err
	}
	if p.md, p.mdDigest, err = render(run.Manifest.RunID, p.v.records, p.warnings()...); err != nil {
		return err
	}

	if a.VerifyOutput != nil {
		if err := stage("verify"); err != nil {
			return err
		}
		if p.verified, p.verifyJS, err = e.verifyRecords(ctx, in.cfg.mode, p.v.records, a.VerifyOutput, em); err != nil {
			return err
		}
	}
	return nil
}

// encoded is every artifact of a run, rendered and checked, ready for one
// commit.
type encoded struct {
	writes   []pendingWrite
	remove   []string
	gatesDoc *GatesDoc
	prevRev  int
	online   *onlineFiles
}

// encode renders and checks every artifact before the first byte is
// written. The encodings are independent, so they share the cores.
func (e *Engine) encode(ctx context.Context, p *pipeline) (*encoded, error) {
	var (
		out             encoded
		writes, nzFiles []pendingWrite
		citations       func(w *bufio.Writer) error
		gates           []byte
	)
	art := p.art
	var eg errgroup.Group
	eg.Go(func() (err error) {
		writes, err = p.x.files(art.ExtractedURLs, art.FoundBy)
		return err
	})
	eg.Go(func() (err error) {
		citations, err = encodeCitations(p.v.records, art.Citations)
		return err
	})
	eg.Go(func() (err error) {
		if nzFiles, err = p.nz.files(art.NormalizedURLs, art.URLMap); err != nil {
			return err
		}
		if out.gatesDoc, err = e.loadGates(p.run, art.Gates); err != nil {
			return err
		}
		out.prevRev = out.gatesDoc.Revision
		if gates, err = e.applyGate(out.gatesDoc, "C", p.g.Update.C, p.g.InputsDigest, art.Gates); err != nil {
			return err
		}
		if p.in.cfg.mode == ModeOnline {
			out.online, err = e.renderOnlineArtifacts(p.run, p.in, p.v)
		}
		return err
	})
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, cancelled()
	}
	out.writes = append(append(writes, nzFiles...),
		pendingWrite{path: art.Citations, message: "cannot write citations.jsonl", stream: citations},
		pendingWrite{path: art.Report, message: "cannot write validated-citations.md", stream: p.md},
		pendingWrite{path: art.Gates, message: "cannot write gates.json", data: gates})
	if out.online != nil {
		// One commit for everything, so a failing side artifact cannot leave
		// the main artifacts already replaced.
		out.writes = append(out.writes, out.online.pending()...)
		out.remove = out.online.removals()
	}
	if p.verifyJS != nil {
		out.writes = append(out.writes, pendingWrite{path: verifyPath(art.Citations), message: "cannot write verify.json", data: p.verifyJS})
	}
	return &out, nil
}

// warnings are the run's warnings, in the order they were found: extract's,
// then validate's.
func (p *pipeline) warnings() []string {
	return append(slices.Clone(p.x.warnings), p.v.warnings...)
}

// summarize is the run's result on stdout, and its audit lines (the same
// the individual tools would write).
func (e *Engine) summarize(p *pipeline, out *encoded, reason string) *RunSummary {
	run, in, x, nz, v, g := p.run, p.in, p.x, p.nz, p.v, p.g
	art := p.art
	vres := &ValidateResult{OK: true, RunID: run.Manifest.RunID, CitationsPath: art.Citations, Mode: in.cfg.mode,
		Validated: len(v.records), InputsDigest: v.digest, OperatorDecisions: v.decided}
	if out.online != nil {
		out.online.fill(vres)
		art.OnlineFixtures, art.OnlineFixturesLatest = vres.OnlineFixturesPath, vres.OnlineFixturesLatestPath
		art.BlockedURLs, art.BlockedURLsQueue = vres.BlockedURLsPath, vres.BlockedURLsQueuePath
	}
	sum := &RunSummary{
		OK: true, RunID: run.Manifest.RunID, Mode: in.cfg.mode, ModeSource: in.cfg.modeSource, ValidationTier: in.cfg.tier,
		Artifacts: art, TotalFound: x.totalFound, UniqueFound: len(x.unique), UniqueNormalized: len(nz.normalized),
		Counts: countStatuses(v.records), Warnings: p.warnings(),
		GateC: GateCSummary{Status: g.Status, Metrics: g.Metrics, Warnings: g.Update.C.Warnings, Notes: g.Update.C.Notes,
			Line: gate.Line(g.Status, g.counts, x.unchecked.String(), g.Update.C.Warnings...), NotChecked: x.unchecked.String()},
		InputsDigests: map[string]string{"extract": x.digest, "normalize": nz.digest, "validate": v.digest,
			"gate_c": g.InputsDigest, "render": p.mdDigest},
		Verify: p.verified, origin: reportOrigin{root: run.Root, titles: p.titles},
	}
	if in.cfg.mode == ModeOnline {
		sum.OnlineDryRun = &in.cfg.onlineDryRun
	}
	e.auditRun(run, reason, sum, x.warnings, vres, g, out.prevRev, out.gatesDoc.Revision, len(v.records), p.mdDigest)
	return sum
}

// keptRecords loads the earlier citations that a re-run limited to recheck
// keeps as they are.
func keptRecords(citationsPath string, recheck []string) (map[string]Citation, error) {
	if len(recheck) == 0 {
		return nil, nil
	}
	records, err := readCitations(citationsPath)
	if err != nil {
		return nil, err
	}
	again := map[string]bool{}
	for _, u := range recheck {
		again[u] = true
	}
	keep := map[string]Citation{}
	for _, r := range records {
		if !again[r.NormalizedURL] {
			keep[r.NormalizedURL] = r
		}
	}
	return keep, nil
}

// auditRun writes the same audit lines the individual tools would.
func (e *Engine) auditRun(run *RunDir, reason string, sum *RunSummary, extractWarnings []string, vres *ValidateResult, g *GateCResult, prevRev, newRev, rendered int, renderDigest string) {
	a := sum.Artifacts
	e.auditExtract(run, reason, &ExtractResult{RunID: sum.RunID, ExtractedURLsPath: a.ExtractedURLs, FoundByPath: a.FoundBy,
		TotalFound: sum.TotalFound, UniqueFound: sum.UniqueFound, InputsDigest: sum.InputsDigests["extract"], Warnings: extractWarnings})
	e.auditNormalize(run, reason, &NormalizeResult{RunID: sum.RunID, NormalizedURLsPath: a.NormalizedURLs, URLMapPath: a.URLMap,
		UniqueNormalized: sum.UniqueNormalized, InputsDigest: sum.InputsDigests["normalize"]})
	e.auditValidate(run, reason, vres)
	e.auditGateC(run, reason, g)
	auditGates(filepath.Dir(a.Gates), e.nowISO(), sum.RunID, reason, prevRev, newRev, g.InputsDigest, "C")
	e.auditRender(run, reason, &RenderResult{OutputMDPath: a.Report, Rendered: rendered, InputsDigest: renderDigest})
}

// RunInfo describes a run before it starts, for a front end's header.
type RunInfo struct {
	RunID, Mode, Tier string
	OnlineDryRun      bool
}

// Describe loads the manifest and run config the way Run will and reports
// the run id, mode and tier, without touching anything.
func (e *Engine) Describe(a RunArgs) (RunInfo, error) {
	run, err := loadRunArgs(a)
	if err != nil {
		return RunInfo{}, err
	}
	cfg, err := resolveConfig(run, a.OnlineDryRun)
	if err != nil {
		return RunInfo{}, err
	}
	return RunInfo{RunID: run.Manifest.RunID, Mode: cfg.mode, Tier: cfg.tier, OnlineDryRun: cfg.onlineDryRun}, nil
}

// BlockedURLs lists the normalized URLs a citations.jsonl marks blocked: what
// a "re-run the blocked ones" passes as RunArgs.Recheck.
func BlockedURLs(citationsPath string) ([]string, error) {
	records, err := readCitations(citationsPath)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range records {
		if r.Status == StatusBlocked {
			out = append(out, r.NormalizedURL)
		}
	}
	return out, nil
}
