package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/engine/verify"
)

// Boundaries are the operator's limits on what a client may ask for, set
// once when `citegate mcp` starts (its flags and environment). A client's
// arguments may narrow them, never widen them: an agent, or whatever wrote
// into its context, is not the operator. The zero value is the strictest
// setting of each knob but Roots (every run directory is usable, each only
// inside its own root).
type Boundaries struct {
	// JudgeBaseURLs are the openai-compatible endpoints a client may name
	// as verify_citations' base_url (`--judge-base-url`). Nothing else is
	// accepted as a base URL: the anthropic and openai judges always call
	// their own API hosts, so each key only goes where its owner sends it.
	JudgeBaseURLs []string
	// ProviderEndpoints are the Bright Data and Apify endpoints a run's
	// documents may set (`--provider-endpoint`): a manifest or run-config a
	// client could have written must not send the provider keys elsewhere.
	ProviderEndpoints []string
	// Roots, when set (`--root DIR`), are the directories under which a
	// run's root must lie; unset, any run directory may be named.
	Roots []string
	// DomainAllowlist is the operator's --domain-allowlist: a client's
	// domain_allowlist may only name hosts under it.
	DomainAllowlist []string
	// The ceilings of verify_citations' caps; 0 is verify's default.
	MaxCitations       int
	PerSourceTimeoutMS int
	PerSourceMaxBytes  int
	MaxCostUSDTotal    *float64
	// JudgeTimeoutMS and JudgeConcurrency are the ceilings of one judge
	// call's time and of the calls run at once: the operator's model
	// server, its time and its load, are the operator's to spend.
	JudgeTimeoutMS   int
	JudgeConcurrency int
}

// policy applies the Boundaries and the fetch switch to every tool call
// before the engine runs (admit, verifyArgs) and, for online validation,
// where the engine resolves the run's mode (onlineGate).
type policy struct {
	allowFetch bool
	b          Boundaries
}

func newPolicy(o Options) *policy {
	return &policy{allowFetch: o.AllowFetch, b: o.Bounds}
}

// refused is the envelope of a call the operator's boundaries do not admit.
func refused(msg string, details map[string]any) error {
	if details == nil {
		details = map[string]any{}
	}
	return &engine.Error{Code: engine.CodeInvalidArgs, Message: msg, Details: details}
}

// verifyArgs turns a client's verify_citations arguments into the engine's,
// clamped to the operator's values. It refuses a base URL or domain the
// operator did not name rather than quietly dropping it, so the agent is
// told why.
func (p *policy) verifyArgs(a verifyArgs) (verify.Args, error) {
	if err := p.judgeEndpoint(a.Model, a.Provider, a.BaseURL); err != nil {
		return verify.Args{}, err
	}
	if err := p.domains(a.DomainAllowlist); err != nil {
		return verify.Args{}, err
	}
	cost := p.b.MaxCostUSDTotal
	if cost == nil {
		c := verify.DefaultMaxCostUSDTotal
		cost = &c
	}
	if a.MaxCostUSDTotal != nil && *a.MaxCostUSDTotal < *cost {
		cost = a.MaxCostUSDTotal
	}
	return verify.Args{Model: a.Model, Provider: a.Provider, BaseURL: a.BaseURL,
		AllowFetch: p.allowFetch && (a.AllowFetch == nil || *a.AllowFetch), DomainAllowlist: a.DomainAllowlist,
		MaxCostUSDTotal: cost, MaxCitations: narrow(a.MaxCitations, p.b.MaxCitations, verify.DefaultMaxCitations),
		PerSourceTimeoutMS: narrow(a.PerSourceTimeoutMS, p.b.PerSourceTimeoutMS, verify.DefaultPerSourceTimeoutMS),
		PerSourceMaxBytes:  narrow(a.PerSourceMaxBytes, p.b.PerSourceMaxBytes, verify.DefaultPerSourceMaxBytes),
		JudgeTimeoutMS:     narrow(a.JudgeTimeoutMS, p.b.JudgeTimeoutMS, verify.DefaultJudgeTimeoutMS),
		JudgeConcurrency:   narrow(a.JudgeConcurrency, min(p.b.JudgeConcurrency, verify.HardMaxJudgeConcurrency), verify.DefaultJudgeConcurrency),
		TraceID:            a.TraceID, NoAbstain: a.NoAbstain}, nil
}

// narrow is a client's cap within the operator's ceiling (def when the
// operator set none); a client's 0 or less means the ceiling.
func narrow(client, ceiling, def int) int {
	if ceiling <= 0 {
		ceiling = def
	}
	if client <= 0 || client > ceiling {
		return ceiling
	}
	return client
}

// judgeEndpoint admits a base_url only for an openai-compatible or ollama
// judge and only when the operator listed it; the key a judge sends goes
// to that URL, so a URL the client invents would receive the operator's
// key. An ollama judge without a base_url calls Ollama's default address,
// which the operator must have listed too.
func (p *policy) judgeEndpoint(model, provider, base string) error {
	base = strings.TrimSpace(base)
	prov := strings.ToLower(strings.TrimSpace(provider))
	if base == "" && prov == judge.ProviderOllama {
		base = judge.DefaultOllamaBaseURL
	}
	if base == "" {
		return nil
	}
	if prov == "" {
		// A wrong model is the engine's error to report; it sends nothing.
		prov, _ = judge.InferProvider(model, base)
	}
	if prov != judge.ProviderOpenAICompatible && prov != judge.ProviderOllama {
		return refused(fmt.Sprintf("base_url is not accepted for provider %s over MCP: the %s judge calls its own API host only, "+
			"so its key never goes elsewhere. Leave base_url out", cmpOr(prov, "(none)"), cmpOr(prov, "this")),
			map[string]any{"provider": prov})
	}
	for _, allowed := range p.b.JudgeBaseURLs {
		if sameEndpoint(allowed, base) {
			return nil
		}
	}
	fix := "the operator lists it when starting the server: citegate mcp --judge-base-url URL"
	if len(p.b.JudgeBaseURLs) > 0 {
		fix = "use one of the operator's judge base URLs (" + strings.Join(p.b.JudgeBaseURLs, ", ") + "), or ask the operator to add it with --judge-base-url"
	}
	return refused("base_url is not one the operator allows: an "+prov+" judge sends the CITEGATE_JUDGE_API_KEY to it. To use it, "+fix,
		map[string]any{"allowed_base_urls": slices.Clone(p.b.JudgeBaseURLs)})
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sameEndpoint compares two base URLs as the judge uses them: scheme and
// host case-insensitively, the path without a trailing slash or "/v1".
func sameEndpoint(a, b string) bool {
	ua, err1 := url.Parse(strings.TrimSpace(a))
	ub, err2 := url.Parse(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || ua.User != nil || ub.User != nil || ua.RawQuery != "" || ub.RawQuery != "" {
		return false
	}
	path := func(u *url.URL) string {
		return strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) && path(ua) == path(ub)
}

// domains admits a client's domain_allowlist only within the operator's:
// the guard's list is a union, so a suffix outside it would widen it.
func (p *policy) domains(client []string) error {
	if len(p.b.DomainAllowlist) == 0 {
		return nil
	}
	for _, d := range client {
		d = strings.Trim(strings.ToLower(strings.TrimSpace(d)), ".")
		if d == "" {
			continue
		}
		if !slices.ContainsFunc(p.b.DomainAllowlist, func(op string) bool {
			op = strings.Trim(strings.ToLower(strings.TrimSpace(op)), ".")
			return d == op || strings.HasSuffix(d, "."+op)
		}) {
			return refused(fmt.Sprintf("domain_allowlist entry %q lies outside the operator's --domain-allowlist (%s): a client may narrow the list, not widen it",
				capText(d), strings.Join(p.b.DomainAllowlist, ", ")), map[string]any{})
		}
	}
	return nil
}

// capText shortens a client's string before an error quotes it.
func capText(s string) string {
	const limit = 200
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

// onlineGate is the engine's question before live validation (mode online,
// not a dry run): without the operator's --allow-fetch the run is refused,
// however its run-config reads — a client may have written it.
func (p *policy) onlineGate(modeSource string) error {
	if p.allowFetch {
		return nil
	}
	return &engine.Error{Code: engine.CodeInvalidArgs,
		Message: "this run is online (mode from " + modeSource + ") and would fetch the cited URLs, which over MCP needs the operator's consent. " +
			"The operator enables it by starting the server with `citegate mcp --allow-fetch` (or CITEGATE_ALLOW_FETCH=1). " +
			"Without it, pass online_dry_run: true (nothing is fetched; unsettled URLs are blocked) or use an offline run. Nothing was fetched or written",
		Details: map[string]any{"mode": engine.ModeOnline, "mode_source": modeSource, "fix": "citegate mcp --allow-fetch"}}
}

// endpointGate admits a provider endpoint that a run's documents set only
// when the operator listed it.
func (p *policy) endpointGate(provider, endpoint, source string) error {
	for _, allowed := range p.b.ProviderEndpoints {
		if sameEndpoint(allowed, endpoint) {
			return nil
		}
	}
	return &engine.Error{Code: engine.CodeInvalidArgs,
		Message: "this run names a " + provider + " endpoint (in " + source + ") that the operator did not list; the provider's " +
			"credentials would be sent there. The operator allows it by starting the server with `citegate mcp --provider-endpoint URL`, " +
			"or remove the endpoint from the run's documents. Nothing was fetched or written",
		Details: map[string]any{"provider": provider, "source": source, "fix": "citegate mcp --provider-endpoint URL"}}
}

// pathArg is one path a call names: its argument name and value, and
// whether the tool writes it.
type pathArg struct {
	name, value string
	output      bool
}

// admit checks the paths a pipeline tool's arguments name before the engine
// runs: the run's root (from its manifest) must be under an operator root
// when any is set, the manifest and every named path must lie inside that
// root once symlinks are resolved, no path may hold a ".." element, and a
// gates file the run writes must lie inside the root too. Tools without
// paths pass.
func (p *policy) admit(in any) error {
	var manifest, runDir string
	var paths []pathArg
	writesGates := false
	switch a := in.(type) {
	case engine.ExtractArgs:
		manifest = a.ManifestPath
		paths = []pathArg{{"extracted_urls_path", a.ExtractedURLsPath, true}, {"found_by_path", a.FoundByPath, true}}
	case engine.NormalizeArgs:
		manifest = a.ManifestPath
		paths = []pathArg{{"extracted_urls_path", a.ExtractedURLsPath, false},
			{"normalized_urls_path", a.NormalizedURLsPath, true}, {"url_map_path", a.URLMapPath, true}}
	case engine.ValidateArgs:
		manifest = a.ManifestPath
		paths = []pathArg{{"url_map_path", a.URLMapPath, false}, {"citations_path", a.CitationsPath, true},
			{"offline_fixtures_path", a.OfflineFixturesPath, false}, {"online_fixtures_path", a.OnlineFixturesPath, false}}
	case engine.GateCArgs:
		manifest, writesGates = a.ManifestPath, a.Write
		paths = []pathArg{{"citations_path", a.CitationsPath, false}, {"extracted_urls_path", a.ExtractedURLsPath, false}}
	case engine.RenderArgs:
		manifest = a.ManifestPath
		paths = []pathArg{{"citations_path", a.CitationsPath, false}, {"output_md_path", a.OutputMDPath, true}}
	case engine.RunArgs:
		manifest, runDir, writesGates = a.ManifestPath, a.RunDir, true
		if manifest == "" && filepath.IsAbs(runDir) {
			manifest = filepath.Join(runDir, "manifest.json")
		}
		paths = []pathArg{{"run_dir", runDir, false}, {"offline_fixtures_path", a.OfflineFixturesPath, false},
			{"online_fixtures_path", a.OnlineFixturesPath, false}}
	case engine.DecideArgs:
		runDir = a.Dir
		if filepath.IsAbs(runDir) {
			manifest = filepath.Join(runDir, "manifest.json")
		}
		paths = []pathArg{{"run_dir", runDir, false}}
	case engine.InitArgs:
		return p.admitInit(a)
	case initArgs:
		return p.admitInit(a.engine())
	default:
		return nil
	}
	for _, pa := range append([]pathArg{{"manifest_path", manifest, false}}, paths...) {
		if hasDotDot(pa.value) {
			return refused(pa.name+" holds a \"..\" element: name the file by its plain absolute path inside the run directory",
				map[string]any{"argument": pa.name})
		}
	}
	if !filepath.IsAbs(manifest) {
		return nil // the engine reports a missing or relative manifest_path
	}
	run, err := engine.LoadRun(manifest)
	if err != nil {
		return err
	}
	if err := p.underRoots(run.Root); err != nil {
		return err
	}
	if err := inside(run.Root, pathArg{"manifest_path", run.ManifestPath, false}); err != nil {
		return err
	}
	for _, pa := range paths {
		if err := inside(run.Root, pa); err != nil {
			return err
		}
	}
	if writesGates {
		if err := inside(run.Root, pathArg{"manifest.json artifacts.paths.gates_file", run.GatesPath(), true}); err != nil {
			return err
		}
	}
	return nil
}

// admitInit keeps init inside the operator's roots, when set: the run
// directory it creates and the wave files it copies into it.
func (p *policy) admitInit(a engine.InitArgs) error {
	if len(p.b.Roots) == 0 {
		return initTarget(a.Dir)
	}
	named := append([]string{a.Dir}, append(slices.Clone(a.Waves), a.Waves2...)...)
	for _, v := range named {
		if hasDotDot(v) {
			return refused("a path holds a \"..\" element: name it by its plain absolute path", map[string]any{})
		}
		if filepath.IsAbs(v) {
			if err := p.underRoots(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// underRoots checks that dir lies under one of the operator's roots.
func (p *policy) underRoots(dir string) error {
	if len(p.b.Roots) == 0 {
		return nil
	}
	for _, r := range p.b.Roots {
		if fsx.Contained(r, dir) == nil {
			return nil
		}
	}
	return refused("the run directory "+capText(dir)+" is outside the directories the operator allows (citegate mcp --root): "+
		strings.Join(p.b.Roots, ", ")+". Use a run under one of them", map[string]any{"roots": slices.Clone(p.b.Roots)})
}

// inside checks that a named path lies inside the run root once symlinks
// are resolved. What is read or written outside the run is the operator's
// to name (on the command line), not a client's.
func inside(root string, pa pathArg) error {
	if pa.value == "" || !filepath.IsAbs(pa.value) {
		return nil // unset takes the run's own default; relative is the engine's error
	}
	if fsx.Within(root, pa.value) && fsx.Contained(root, pa.value) == nil {
		return nil
	}
	verb := "read"
	if pa.output {
		verb = "write"
	}
	return refused(fmt.Sprintf("%s must lie inside the run directory %s: over MCP a tool does not %s files outside the run. "+
		"Leave it out to use the run's own file, or name a path under the run directory", pa.name, root, verb),
		map[string]any{"argument": pa.name, "run_root": root})
}

// hasDotDot reports a ".." element in a path as written.
func hasDotDot(p string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..")
}

// initTarget: without the operator's --root, a client's init may write only
// a new run directory — one that does not exist yet, is empty, or already
// holds a run rooted there — never into some other directory that happens
// to be writable.
func initTarget(dir string) error {
	if !filepath.IsAbs(dir) {
		return nil // the tool refuses it with its own message
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if m, err := engine.LoadRun(filepath.Join(dir, "manifest.json")); err == nil && sameDir(m.Root, dir) {
		return nil
	}
	return refused("dir is an existing directory that holds no run: init writes only a new directory, an empty one or an "+
		"existing run directory (the operator may allow others with citegate mcp --root DIR)", map[string]any{"argument": "dir"})
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
