package engine

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
	"github.com/citegate/citegate/parse/icu"
)

// InitArgs configures `citegate init`: a complete run directory from wave
// markdown a user already has, so that `citegate run DIR` works next.
type InitArgs struct {
	// Dir is the run directory (absolute; created if missing).
	Dir string `json:"dir"`
	// Waves and Waves2 are markdown files, or directories whose *.md files
	// (subdirectories included, as run reads a wave directory) are taken,
	// copied into wave-1/ and wave-2/. Entries run would not read (a FIFO,
	// a symlink) are named in the result's warnings.
	Waves  []string `json:"waves,omitempty"`
	Waves2 []string `json:"waves2,omitempty"`
	// Mode is offline (the default: nothing is fetched; statuses come from
	// offline-fixtures.json) or online.
	Mode string `json:"mode,omitempty"`
	// Tier is the validation tier (basic, standard, thorough; default
	// standard).
	Tier string `json:"tier,omitempty"`
	// RunID defaults to one made from the directory's name.
	RunID string `json:"run_id,omitempty"`
	// Query is the research question the manifest records (default: the
	// first wave file's title).
	Query string `json:"query,omitempty"`
	// FixturesTemplate writes offline-fixtures.json listing every URL the
	// waves cite as "valid", for the user to correct.
	FixturesTemplate bool `json:"fixtures_template,omitempty"`
	// Force replaces a previous run: the files init would otherwise refuse
	// (those it overwrites, citations/, and with wave files the other files
	// of wave-1/ and wave-2/) are moved into ReplacedDir/N/ in the same
	// commit, so the next run reads exactly the new set.
	Force bool `json:"force,omitempty"`
	// SourceTitles are further section titles read like "Sources"
	// (--source-titles), written into run-config.json's
	// effective.citations.source_section_titles for every later run.
	SourceTitles []string `json:"source_section_titles,omitempty"`
}

// InitResult is init's success envelope.
type InitResult struct {
	OK           bool     `json:"ok"`
	RunDir       string   `json:"run_dir"`
	ManifestPath string   `json:"manifest_path"`
	RunID        string   `json:"run_id"`
	Mode         string   `json:"mode"`
	Tier         string   `json:"tier"`
	WaveFiles    []string `json:"wave_files"`
	// Written lists every file init wrote, relative to the run directory.
	Written []string `json:"written"`
	// Replaced lists, relative to the run directory, the files of the
	// previous run that --force moved aside or overwrote; ReplacedDir is
	// where their old content now is.
	Replaced    []string `json:"replaced,omitempty"`
	ReplacedDir string   `json:"replaced_dir,omitempty"`
	// FixturesURLs counts the URLs the fixtures template lists.
	FixturesURLs *int `json:"fixtures_urls,omitempty"`
	// Next says what to do now.
	Next     []string `json:"next"`
	Warnings []string `json:"warnings,omitempty"`
}

var runIDUnsafe = regexp.MustCompile(`[^a-z0-9_]+`)

// Init writes a run directory: manifest.json (manifest.v1, artifacts.root
// the directory), run-config.json (run_config.v1 with the mode and tier
// explicit, so a run never goes online unasked), gates.json, the wave
// files, and with FixturesTemplate offline-fixtures.json. Everything is
// written in one commit (fsx.Commit) under the run directory's lock, the
// one run takes (RUN_LOCKED while another command holds it): an error
// leaves the directory as it was, and a run never reads a half-written
// set. A previous run's files that init would overwrite, or that would
// still count (see findPreviousRun), are refused unless Force, which moves
// them aside into ReplacedDir in the same commit.
func (e *Engine) Init(ctx context.Context, a InitArgs) (_ *InitResult, err error) {
	plan, err := e.planInit(ctx, &a)
	if err != nil {
		return nil, err
	}
	release, err := e.lockInitDir(a.Dir)
	if err != nil {
		return nil, err
	}
	defer func() { release(err != nil) }()
	prev, err := findPreviousRun(a.Dir, plan.files, len(plan.res.WaveFiles) > 0)
	if err != nil {
		return nil, err
	}
	res, files, remove := plan.res, plan.files, []string(nil)
	if !a.Force {
		if exist := prev.existing(); len(exist) > 0 {
			return nil, newError(CodeInvalidArgs, "init: the run directory already has these files; nothing was written (--force replaces them, moving them aside into "+ReplacedDir+"/)",
				map[string]any{"dir": a.Dir, "existing": exist})
		}
	} else if moved := prev.all(); len(moved) > 0 {
		if files, remove, res.ReplacedDir, err = prev.moveAside(a.Dir, files); err != nil {
			return nil, err
		}
		res.Replaced = moved
	}
	res.Warnings = append(res.Warnings, prev.warnings...)
	if err := fsx.Commit(ctx, fsx.Batch{Root: a.Dir, Files: files, Remove: remove}); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, cancelled()
		}
		return nil, newError(CodeWriteFailed, "init: cannot write the run directory; nothing was written", map[string]any{"dir": a.Dir, "reason": err.Error()})
	}
	if len(res.Replaced) > 0 {
		e.auditReplaced(res)
	}
	res.Next = initNext(a, res)
	return res, nil
}

// initPlan is everything init writes, rendered before the run directory is
// touched.
type initPlan struct {
	res   *InitResult
	files []fsx.File
}

// planInit checks the arguments (filling in their defaults), reads the
// waves and renders every file init writes, with the warnings run would
// give about them.
func (e *Engine) planInit(ctx context.Context, a *InitArgs) (*initPlan, error) {
	if !filepath.IsAbs(a.Dir) {
		return nil, newError(CodeInvalidArgs, "init: the run directory must be an absolute path", map[string]any{"dir": a.Dir})
	}
	a.Mode = cmp.Or(a.Mode, ModeOffline)
	if a.Mode != ModeOffline && a.Mode != ModeOnline {
		return nil, newError(CodeInvalidArgs, "init: --mode must be offline or online", map[string]any{"mode": a.Mode})
	}
	a.Tier = cmp.Or(a.Tier, "standard")
	if !slices.Contains([]string{"basic", "standard", "thorough"}, a.Tier) {
		return nil, newError(CodeInvalidArgs, "init: --tier must be basic, standard or thorough", map[string]any{"tier": a.Tier})
	}
	if st, err := os.Stat(a.Dir); err == nil && !st.IsDir() {
		return nil, newError(CodeInvalidArgs, "init: the run directory path is a file", map[string]any{"dir": a.Dir})
	}
	titles, err := sourceTitles(a.SourceTitles, &citationConfig{})
	if err != nil {
		return nil, err
	}
	waves, skipped, err := waveSources(a.Waves, "wave-1")
	if err != nil {
		return nil, err
	}
	waves2, skipped2, err := waveSources(a.Waves2, "wave-2")
	if err != nil {
		return nil, err
	}
	all := slices.Concat(waves, waves2)
	if a.FixturesTemplate && len(all) == 0 {
		return nil, newError(CodeInvalidArgs, "init: --fixtures-template needs wave files (--waves) to list their URLs", nil)
	}
	now := e.nowISO()
	runID := a.RunID
	if runID == "" {
		base := runIDUnsafe.ReplaceAllString(strings.ToLower(filepath.Base(a.Dir)), "_")
		runID = "dr_" + strings.Trim(base, "_")
		if runID == "dr_" {
			runID = "dr_run"
		}
	}
	query := cmp.Or(strings.TrimSpace(a.Query), firstTitle(all), "Citations of "+filepath.Base(a.Dir))
	sensitivity := "normal"
	if a.Mode == ModeOffline {
		sensitivity = "no_web"
	}

	res := &InitResult{OK: true, RunDir: a.Dir, ManifestPath: filepath.Join(a.Dir, "manifest.json"), RunID: runID,
		Mode: a.Mode, Tier: a.Tier, WaveFiles: []string{}, Written: []string{}}
	plan := &initPlan{res: res}
	add := func(rel string, data []byte) {
		plan.files = append(plan.files, fsx.File{Path: filepath.Join(a.Dir, filepath.FromSlash(rel)), Data: data})
		res.Written = append(res.Written, rel)
	}
	manifest, err := jsonx.MarshalFile(initManifest(runID, now, query, sensitivity, a.Dir))
	if err != nil {
		return nil, err
	}
	add("manifest.json", manifest)
	cfg, err := jsonx.MarshalFile(initRunConfig(runID, now, sensitivity, a.Mode, a.Tier, titles))
	if err != nil {
		return nil, err
	}
	add("run-config.json", cfg)
	gates, err := jsonx.MarshalFile(newGatesDoc(runID, now))
	if err != nil {
		return nil, err
	}
	add("gates.json", gates)
	for _, w := range all {
		add(w.rel, w.data)
		res.WaveFiles = append(res.WaveFiles, w.rel)
	}
	warnings, err := waveWarnings(ctx, all, titles)
	if err != nil {
		return nil, err
	}
	res.Warnings = slices.Concat(skipped, skipped2, warnings)
	if a.Mode == ModeOffline && a.FixturesTemplate {
		tmpl, n, warnings, err := fixturesTemplate(ctx, all, titles)
		if err != nil {
			return nil, err
		}
		add("offline-fixtures.json", tmpl)
		res.FixturesURLs, res.Warnings = &n, append(res.Warnings, warnings...)
	} else if a.FixturesTemplate {
		res.Warnings = append(res.Warnings, "--fixtures-template ignored: online mode fetches every URL")
	}
	return plan, nil
}

// lockInitDir creates the run directory if need be and takes its lock as
// every command that opens a run directory does (lockRun: RUN_LOCKED, and
// an interrupted commit repaired first). The lock is on the directory
// itself, so it must exist first. The returned function releases the lock;
// after a failure (failed true) it also removes a directory init created,
// if it is still empty, so that a failed init leaves nothing behind.
func (e *Engine) lockInitDir(dir string) (func(failed bool), error) {
	_, statErr := os.Lstat(dir)
	created := errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, newError(CodeWriteFailed, "init: cannot create the run directory", map[string]any{"dir": dir, "reason": err.Error()})
	}
	undo := func() {
		if created {
			_ = os.Remove(dir) // fails, as it should, unless empty
		}
	}
	release, err := e.lockRun(&RunDir{Root: dir})
	if err != nil {
		undo()
		return nil, err
	}
	return func(failed bool) {
		release()
		if failed {
			undo()
		}
	}, nil
}

// initNext is what the user does after init.
func initNext(a InitArgs, res *InitResult) []string {
	var next []string
	if len(res.WaveFiles) == 0 {
		next = append(next, "put the wave markdown files (each with a ## Sources section) in "+filepath.Join(a.Dir, "wave-1"))
	}
	if a.Mode == ModeOffline && res.FixturesURLs == nil {
		next = append(next, "offline mode settles every URL from "+filepath.Join(a.Dir, "offline-fixtures.json")+
			` ({"<url>": "valid|paywalled|blocked|mismatch|invalid", …}); write it, or run init again with --fixtures-template --force`)
	}
	if res.FixturesURLs != nil {
		next = append(next, "correct the statuses in "+filepath.Join(a.Dir, "offline-fixtures.json")+" (every URL is listed as valid)")
	}
	return append(next, "citegate run "+a.Dir)
}

// waveFileSource is one wave file to copy: its destination relative to the
// run directory and its content.
type waveFileSource struct {
	rel  string
	data []byte
}

// waveSources reads the given files and directories into destinations
// under dir. A directory contributes the files run would read in it — its
// *.md files, subdirectories included, found by the same walk (no symlink
// followed, no FIFO opened) — each at its path relative to the directory;
// the entries the walk skips are named in the returned warnings, in run's
// words. Destinations that collide get -2, -3… A file named on its own is
// read as named.
func waveSources(paths []string, dir string) ([]waveFileSource, []string, error) {
	var out []waveFileSource
	var skipped []string
	used := map[string]bool{}
	take := func(p, rel string) error {
		data, err := fsx.ReadLimited(p, maxWaveFileBytes)
		if err != nil {
			return readError("wave file", p, "wave file missing", err)
		}
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return newError(CodeInvalidInput, "wave file is not UTF-8 text", map[string]any{"path": p})
		}
		stem := strings.TrimSuffix(rel, path.Ext(rel))
		name := stem + ".md"
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s-%d.md", stem, i)
		}
		used[name] = true
		out = append(out, waveFileSource{rel: dir + "/" + name, data: data})
		return nil
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, readError("wave file", p, "wave file missing", err)
		}
		if !st.IsDir() {
			if err := take(p, filepath.Base(p)); err != nil {
				return nil, nil, err
			}
			continue
		}
		w := walk{label: func(s string) string { return s }}
		if err := w.markdown(p, p, dir); err != nil {
			return nil, nil, readError("wave dir", p, "wave dir missing", err)
		}
		skipped = append(skipped, w.warnings...)
		if len(w.files) == 0 {
			d := map[string]any{"path": p}
			if len(w.warnings) > 0 {
				d["skipped"] = w.warnings
			}
			return nil, nil, newError(CodeInvalidArgs, "init: the directory has no .md files", d)
		}
		for _, f := range w.files {
			if err := take(f.abs, relPOSIX(p, f.abs)); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, skipped, nil
}

// firstTitle is the first level-one heading of the first wave file.
func firstTitle(waves []waveFileSource) string {
	if len(waves) == 0 {
		return ""
	}
	for _, line := range strings.Split(string(waves[0].data), "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok && strings.TrimSpace(t) != "" {
			return truncate(strings.TrimSpace(t), 200)
		}
	}
	return ""
}

// fixturesTemplate lists every URL the waves cite, normalized as run
// normalizes it (after redaction), each "valid", in collation order: the
// offline fixtures format's map shape.
func fixturesTemplate(ctx context.Context, waves []waveFileSource, titles []string) ([]byte, int, []string, error) {
	seen := map[string]bool{}
	var urls, warnings []string
	for _, w := range waves {
		links, err := parse.SourcesWith(ctx, w.data, parse.SourcesOptions{Titles: titles})
		if err != nil {
			return nil, 0, nil, newError(CodeInvalidInput, "wave file too complex to parse", map[string]any{"path": w.rel, "reason": err.Error()})
		}
		for _, l := range links {
			red, _ := netguard.RedactURL(l.URL)
			n, perr := normalizeOne(red, "")
			if perr != nil {
				warnings = append(warnings, fmt.Sprintf("%s: %s is not listed: %s", w.rel, red, perr.Message))
				continue
			}
			if !seen[n] {
				seen[n] = true
				urls = append(urls, n)
			}
		}
	}
	icu.Sort(urls)
	var b bytes.Buffer
	b.WriteString("{")
	for i, u := range urls {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		b.Write(jsonx.AppendString(nil, u))
		b.WriteString(`: "valid"`)
	}
	if len(urls) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes(), len(urls), warnings, nil
}

// initManifest is a minimal complete manifest.v1 for a citations run.
func initManifest(runID, now, query, sensitivity, root string) map[string]any {
	return map[string]any{
		"schema_version": "manifest.v1", "run_id": runID, "created_at": now, "updated_at": now, "revision": 1,
		"mode": "standard", "status": "running",
		"query": map[string]any{"text": query, "constraints": map[string]any{}, "sensitivity": sensitivity},
		"stage": map[string]any{"current": "citations", "started_at": now, "history": []any{}},
		"limits": map[string]any{"max_wave1_agents": 6, "max_wave2_agents": 6, "max_summary_kb": 5,
			"max_total_summary_kb": 60, "max_review_iterations": 4},
		"agents": map[string]any{"policy": "existing-runtime-only"},
		"artifacts": map[string]any{"root": root, "paths": map[string]any{
			"wave1_dir": "wave-1", "wave2_dir": "wave-2", "citations_dir": "citations", "summaries_dir": "summaries",
			"synthesis_dir": "synthesis", "logs_dir": "logs", "gates_file": "gates.json", "perspectives_file": "perspectives.json",
			"citations_file": "citations/citations.jsonl", "summary_pack_file": "summaries/summary-pack.json", "pivot_file": "pivot.json",
		}},
		"metrics": map[string]any{}, "failures": []any{},
	}
}

// initRunConfig is run-config.json with the mode and tier explicit, and
// the further Sources titles when there are some.
func initRunConfig(runID, now, sensitivity, mode, tier string, titles []string) map[string]any {
	citations := map[string]any{"mode": mode, "validation_tier": tier,
		"endpoints": map[string]any{"brightdata": nil, "apify": nil}}
	if len(titles) > 0 {
		citations["source_section_titles"] = titles
	}
	return map[string]any{
		"schema_version": "run_config.v1", "run_id": runID, "created_at": now,
		"effective": map[string]any{"sensitivity": sensitivity, "citations": citations},
	}
}

// waveWarnings are the warnings run would give about the waves' lists
// (fileWarnings), said at init, when the waves are still easy to fix.
func waveWarnings(ctx context.Context, waves []waveFileSource, titles []string) ([]string, error) {
	var out []string
	opt := parse.SourcesOptions{Titles: titles}
	for _, w := range waves {
		links, err := parse.SourcesWith(ctx, w.data, opt)
		if err != nil {
			return nil, parseError(w.rel, err)
		}
		near, err := parse.NearMisses(ctx, w.data, opt, links)
		if err != nil {
			return nil, parseError(w.rel, err)
		}
		out = append(out, fileWarnings(w.rel, len(links), near)...)
	}
	return out, nil
}
