package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/verify"
)

// Command is a parsed command line: which command, and the engine arguments
// assembled from --args-json and flags (flags win).
type Command struct {
	Name string
	Help bool
	// Topic is `citegate help TOPIC`'s topic ("" lists them).
	Topic     string
	Extract   engine.ExtractArgs
	Normalize engine.NormalizeArgs
	Validate  engine.ValidateArgs
	GateC     engine.GateCArgs
	Render    engine.RenderArgs
	Run       engine.RunArgs
	Init      engine.InitArgs
	Relocate  engine.RelocateArgs
	Decide    engine.DecideArgs
	Verify    verify.Args
	// OutputFile is verify's agent output ("-" for stdin); for run,
	// --verify names a synthesis file to verify after Gate C.
	OutputFile string
	// Headless forces headless mode (progress on stderr, no terminal UI).
	Headless bool
	// DemoDir is where demo copies its run; empty means a fresh temp dir.
	DemoDir string
	// DemoKeep keeps the demo's temp directory after the run.
	DemoKeep bool
	// DemoOffline runs the demo on its offline fixtures instead of the
	// simulated web.
	DemoOffline bool
	// Net holds --allow-cidr, --domain-allowlist and --resolve.
	Net NetFlags
	// LogFile receives the progress log in terminal-UI mode, which never
	// prints over the screen.
	LogFile string
	// JUnitFile receives a JUnit XML report of the run (run, demo).
	JUnitFile string
	// Reports are the other CI reports (run, demo, verify).
	Reports Reports
	// AllowFetch is mcp's --allow-fetch: the operator lets verify_citations
	// fetch cited sources, and runs configured online fetch.
	AllowFetch bool
	// AllowDecisions is mcp's --allow-decisions: the operator lets a client
	// record decisions (deep_research_citations_decide).
	AllowDecisions bool
	// JudgeBaseURLs are mcp's --judge-base-url: the openai-compatible
	// endpoints a client may name. Roots are mcp's --root: the directories
	// whose runs a client may use. mcp's caps for verify_citations are in
	// Verify.
	JudgeBaseURLs []string
	// ProviderEndpoints are mcp's --provider-endpoint: the Bright Data and
	// Apify endpoints a run's documents may name (their credentials go
	// there).
	ProviderEndpoints []string
	Roots             []string
}

// UsageError is a command-line mistake; it maps to ExitUsage (see
// ReportUsage).
type UsageError struct {
	Command string
	Msg     string
	// Details go into the INVALID_ARGS envelope of a tool command.
	Details map[string]any
}

func (e *UsageError) Error() string { return e.Msg }

// binder registers flags into temporaries and applies only the flags the
// user set, so that --args-json can supply the rest.
type binder struct {
	fs      *flag.FlagSet
	applies map[string]func()
}

func (b *binder) str(name string, dst *string, usage string) {
	v := new(string)
	b.fs.StringVar(v, name, "", usage)
	b.applies[name] = func() { *dst = *v }
}

// path binds a path flag. A relative path is resolved against the working
// directory, so every path the command line takes may be relative; "-"
// (stdin, for --output-file) is kept. Paths given in --args-json keep the
// tool specs' rule (absolute only; the engine checks).
func (b *binder) path(name string, dst *string, usage string) {
	v := new(string)
	b.fs.StringVar(v, name, "", usage)
	b.applies[name] = func() { *dst = absPath(*v) }
}

// absPath resolves p against the working directory; "" and "-" are kept.
func absPath(p string) string {
	if p == "" || p == "-" || filepath.IsAbs(p) {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func (b *binder) optBool(name string, dst **bool, usage string) {
	v := new(bool)
	b.fs.BoolVar(v, name, false, usage)
	b.applies[name] = func() { x := *v; *dst = &x }
}

func (b *binder) optBoolValue(name string, dst *bool, usage string) {
	v := new(bool)
	b.fs.BoolVar(v, name, false, usage)
	b.applies[name] = func() { *dst = *v }
}

func (b *binder) float(name string, dst **float64, usage string) {
	v := new(float64)
	b.fs.Float64Var(v, name, 0, usage)
	b.applies[name] = func() { x := *v; *dst = &x }
}

func (b *binder) integer(name string, dst *int, usage string) {
	v := new(int)
	b.fs.IntVar(v, name, 0, usage)
	b.applies[name] = func() { *dst = *v }
}

// paths binds a repeatable path flag; relative paths are resolved against
// the working directory when the command line is parsed.
func (b *binder) paths(name string, dst *[]string, usage string) {
	v := new(multiFlag)
	b.fs.Var(v, name, usage)
	b.applies[name] = func() { *dst = append(*dst, (*v)...) }
}

// list binds a comma-separated, repeatable flag: "--source-titles
// References,Bibliography" and two "--source-titles" give the same list.
func (b *binder) list(name string, dst *[]string, usage string) {
	v := new(csvList)
	b.fs.Var(v, name, usage)
	b.applies[name] = func() { *dst = append([]string{}, (*v)...) }
}

// csvList collects the values of a list flag; a blank value is an error.
type csvList []string

func (l *csvList) String() string { return strings.Join(*l, ",") }

func (l *csvList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return errors.New("blank title in the list")
		}
		*l = append(*l, p)
	}
	return nil
}

func (b *binder) boolean(name string, dst *bool, usage string) {
	b.fs.BoolVar(dst, name, false, usage)
}

// spec describes one command: its help text, its flags, and where
// --args-json decodes to.
type spec struct {
	summary  string
	usage    string
	exits    string
	argsJSON bool
	// tool marks the commands that mirror a tool spec: they print exactly
	// one JSON envelope on stdout, usage errors included.
	tool bool
	// required lists the arguments the command cannot run without; Parse
	// refuses a command line (flags and --args-json together) that leaves
	// one of them blank.
	required func(c *Command) []requiredArg
	// bind registers the flags and returns where --args-json decodes to.
	bind func(b *binder, c *Command) any
}

// requiredArg is one required argument: its flag, its --args-json key and
// the value the command line gave it.
type requiredArg struct{ flag, key, value string }

// manifestAndReason are the arguments every run-directory tool requires, as
// the reference's tools do.
func manifestAndReason(manifestPath, reason string) []requiredArg {
	return []requiredArg{{"manifest-path", "manifest_path", manifestPath}, {"reason", "reason", reason}}
}

const toolExits = "exit codes: 0 ok; 1 error envelope ({\"ok\":false,...}); 2 usage error"
const verifyExits = "exit codes: 0 passed; 4 not passed (fewer than half of the decided sources support their claims, or nothing checked: passed null, reason says why); 1 error envelope; 2 usage error"
const runExits = "exit codes: 0 Gate C passed; 4 Gate C failed; 1 pipeline error (error envelope on stdout); 2 usage error; 3 interrupted (nothing written)"

var specs = map[string]spec{
	"extract": {
		summary: "extract Sources URLs from wave markdown (deep_research_citations_extract_urls)",
		usage:   "citegate extract --manifest-path PATH --reason TEXT [flags]", exits: toolExits, argsJSON: true, tool: true,
		required: func(c *Command) []requiredArg { return manifestAndReason(c.Extract.ManifestPath, c.Extract.Reason) },
		bind: func(b *binder, c *Command) any {
			a := &c.Extract
			b.path("manifest-path", &a.ManifestPath, "path to manifest.json (required; relative to the working directory)")
			b.optBool("include-wave2", &a.IncludeWave2, "scan the wave-2 directory too (default true)")
			b.list("source-titles", &a.SourceTitles, "also read the sections with these titles, comma-separated, like Sources (e.g. References,Bibliography; default: run-config.json effective.citations.source_section_titles)")
			b.path("extracted-urls-path", &a.ExtractedURLsPath, "output path (default <runRoot>/citations/extracted-urls.txt)")
			b.path("found-by-path", &a.FoundByPath, "output path (default <runRoot>/citations/found-by.json)")
			b.str("reason", &a.Reason, "audit reason (required)")
			return a
		},
	},
	"normalize": {
		summary: "normalize extracted URLs and compute cids (deep_research_citations_normalize)",
		usage:   "citegate normalize --manifest-path PATH --reason TEXT [flags]", exits: toolExits, argsJSON: true, tool: true,
		required: func(c *Command) []requiredArg { return manifestAndReason(c.Normalize.ManifestPath, c.Normalize.Reason) },
		bind: func(b *binder, c *Command) any {
			a := &c.Normalize
			b.path("manifest-path", &a.ManifestPath, "path to manifest.json (required; relative to the working directory)")
			b.path("extracted-urls-path", &a.ExtractedURLsPath, "input path (default <runRoot>/citations/extracted-urls.txt)")
			b.path("normalized-urls-path", &a.NormalizedURLsPath, "output path (default <runRoot>/citations/normalized-urls.txt)")
			b.path("url-map-path", &a.URLMapPath, "output path (default <runRoot>/citations/url-map.json)")
			b.str("reason", &a.Reason, "audit reason (required)")
			return a
		},
	},
	"validate": {
		summary: "classify every normalized URL and write citations.jsonl (deep_research_citations_validate)",
		usage:   "citegate validate --manifest-path PATH --reason TEXT [flags]", exits: toolExits, argsJSON: true, tool: true,
		required: func(c *Command) []requiredArg { return manifestAndReason(c.Validate.ManifestPath, c.Validate.Reason) },
		bind: func(b *binder, c *Command) any {
			a := &c.Validate
			b.path("manifest-path", &a.ManifestPath, "path to manifest.json (required; relative to the working directory)")
			b.path("url-map-path", &a.URLMapPath, "input path (default <runRoot>/citations/url-map.json)")
			b.path("citations-path", &a.CitationsPath, "output path (default <runRoot>/citations/citations.jsonl)")
			b.path("offline-fixtures-path", &a.OfflineFixturesPath, "offline fixtures path (required in offline mode unless <runRoot>/offline-fixtures.json exists)")
			b.path("online-fixtures-path", &a.OnlineFixturesPath, "online fixtures to replay (online mode)")
			b.optBool("online-dry-run", &a.OnlineDryRun, "online mode without network: every URL not settled by preflight or fixture is blocked")
			b.str("reason", &a.Reason, "audit reason (required)")
			b.boolean("headless", &c.Headless, "progress on stderr (this command has no terminal UI)")
			bindNet(b, &c.Net)
			return a
		},
	},
	"gate-c": {
		summary: "compute Gate C from extracted URLs and citations (deep_research_gate_c_compute)",
		usage:   "citegate gate-c --manifest-path PATH --reason TEXT [--write] [flags]", exits: toolExits, argsJSON: true, tool: true,
		required: func(c *Command) []requiredArg { return manifestAndReason(c.GateC.ManifestPath, c.GateC.Reason) },
		bind: func(b *binder, c *Command) any {
			a := &c.GateC
			b.path("manifest-path", &a.ManifestPath, "path to manifest.json (required; relative to the working directory)")
			b.path("citations-path", &a.CitationsPath, "input path (default <runRoot>/citations/citations.jsonl)")
			b.path("extracted-urls-path", &a.ExtractedURLsPath, "input path (default <runRoot>/citations/extracted-urls.txt)")
			b.str("reason", &a.Reason, "audit reason (required)")
			b.boolean("write", &a.Write, "also apply the update to gates.json (gates_write semantics)")
			return a
		},
	},
	"render": {
		summary: "render the citations report (deep_research_citations_render_md)",
		usage:   "citegate render --manifest-path PATH --reason TEXT [flags]", exits: toolExits, argsJSON: true, tool: true,
		required: func(c *Command) []requiredArg { return manifestAndReason(c.Render.ManifestPath, c.Render.Reason) },
		bind: func(b *binder, c *Command) any {
			a := &c.Render
			b.path("manifest-path", &a.ManifestPath, "path to manifest.json (required; relative to the working directory)")
			b.path("citations-path", &a.CitationsPath, "input path (default <runRoot>/citations/citations.jsonl)")
			b.path("output-md-path", &a.OutputMDPath, "output path (default <runRoot>/citations/validated-citations.md)")
			b.str("reason", &a.Reason, "audit reason (required)")
			return a
		},
	},
	"run": {
		summary: "run extract → normalize → validate → Gate C → render on one run directory",
		usage:   "citegate run [RUN_DIR | --manifest-path PATH] [flags]", exits: runExits, argsJSON: true,
		bind: func(b *binder, c *Command) any {
			bindRun(b, c)
			return &c.Run
		},
	},
	"verify": {
		summary: "check whether each cited source supports its claim (the verify_citations tool)",
		usage:   "citegate verify --output-file PATH|- --model MODEL [--allow-fetch] [flags]", exits: verifyExits, argsJSON: true, tool: true,
		required: func(c *Command) []requiredArg {
			return []requiredArg{{"output-file", "", c.OutputFile}, {"model", "model", c.Verify.Model}}
		},
		bind: func(b *binder, c *Command) any {
			a := &c.Verify
			b.path("output-file", &c.OutputFile, "the agent output to check (a synthesis, a wave file), or - for stdin (required)")
			b.str("model", &a.Model, "judge model: lexical (offline, no key), claude-…, gpt-…, or any model your --base-url server serves (required)")
			b.str("provider", &a.Provider, "anthropic | openai | openai-compatible | ollama | lexical (default: from --base-url — api.anthropic.com, api.openai.com, port 11434 without /v1 ollama, any other host openai-compatible — else from --model)")
			b.str("base-url", &a.BaseURL, "judge API base URL, e.g. http://127.0.0.1:11434 (Ollama); reachable for judge calls only, loopback and any port included, never for sources; it gets CITEGATE_JUDGE_API_KEY, if set")
			b.integer("judge-timeout-ms", &a.JudgeTimeoutMS, "timeout of one judge call (default 60000)")
			b.integer("judge-concurrency", &a.JudgeConcurrency, "judge calls run at once (default 4, at most 32)")
			b.optBoolValue("allow-fetch", &a.AllowFetch, "fetch the cited sources (refused by default)")
			b.float("max-cost-usd-total", &a.MaxCostUSDTotal, "stop before a judge call would exceed this total (default 1.00)")
			b.integer("max-citations", &a.MaxCitations, "citations to check (default 20, hard cap 50)")
			b.integer("per-source-timeout-ms", &a.PerSourceTimeoutMS, "per-source fetch timeout (default 10000)")
			b.integer("per-source-max-bytes", &a.PerSourceMaxBytes, "per-source body cap (default 5 MiB)")
			b.str("trace-id", &a.TraceID, "trace id to record")
			b.optBoolValue("no-abstain", &a.NoAbstain, "never answer uncertain: every verdict is the judge's best guess (forced choice)")
			bindReports(b, c, false)
			bindGuard(b, &c.Net)
			return a
		},
	},
	"init": {
		summary: "create a run directory from your wave markdown files, ready for run",
		usage:   "citegate init [DIR] [--waves FILE|DIR ...] [--waves2 FILE|DIR ...] [--mode offline|online] [--tier basic|standard|thorough] [--fixtures-template] [--source-titles T,...] [flags]",
		exits:   "exit codes: 0 written; 1 error envelope (nothing written); 2 usage error",
		bind: func(b *binder, c *Command) any {
			a := &c.Init
			b.paths("waves", &a.Waves, "a wave-1 markdown file, or a directory of them (repeatable; paths after it are taken too)")
			b.paths("waves2", &a.Waves2, "a wave-2 markdown file, or a directory of them (repeatable)")
			b.str("mode", &a.Mode, "offline (default: statuses from offline-fixtures.json, nothing fetched) or online")
			b.str("tier", &a.Tier, "validation tier: basic, standard (default) or thorough")
			b.str("run-id", &a.RunID, "run id (default dr_<directory name>)")
			b.str("query", &a.Query, "the research question, for the manifest (default: the first wave file's title)")
			b.boolean("fixtures-template", &a.FixturesTemplate, "offline mode: write offline-fixtures.json listing every cited URL as valid, to edit")
			b.boolean("force", &a.Force, "replace a previous run: its files (waves, citations/, manifest…) are moved aside into .citegate-replaced/N/")
			b.list("source-titles", &a.SourceTitles, "also read the sections with these titles, comma-separated, like Sources (e.g. References,Bibliography); written into run-config.json effective.citations.source_section_titles")
			return nil
		},
	},
	"relocate": {
		summary: "make a copied or moved run directory its own run (points its manifest at it)",
		usage:   "citegate relocate RUN_DIR",
		exits:   "exit codes: 0 relocated (or already in place); 1 error envelope (nothing written); 2 usage error",
		bind:    func(b *binder, c *Command) any { return nil },
	},
	"decide": {
		summary: "record your decision on a citation (valid, paywalled, invalid, excluded); the next run applies it",
		usage:   "citegate decide RUN_DIR URL (--status valid|paywalled|invalid --note TEXT | --exclude [--note TEXT] | --undo) [--operator NAME]\n       citegate decide RUN_DIR --list",
		exits:   "exit codes: 0 recorded (or listed); 1 error envelope (nothing written); 2 usage error",
		bind: func(b *binder, c *Command) any {
			a := &c.Decide
			b.str("status", &a.Status, "the status the next run records: valid, paywalled or invalid (needs --note)")
			b.str("note", &a.Note, "why, in a sentence (required with --status; at most 500 characters; redacted)")
			b.boolean("exclude", &a.Exclude, "keep the citation out of synthesis (the run records it invalid)")
			b.boolean("undo", &a.Undo, "remove the citation's decision")
			b.boolean("list", &a.List, "change nothing: list the decisions and the must-not-cite citations still undecided")
			b.str("operator", &a.Who, "who decides, for the file and the audit log (default $USER)")
			return nil
		},
	},
	"mcp": {
		summary: "serve the tools to an agent over the Model Context Protocol (stdio)",
		usage:   "citegate mcp [--allow-fetch] [--allow-decisions] [--judge-base-url URL ...] [--provider-endpoint URL ...] [--root DIR ...] [verify caps] [network flags]",
		exits:   "exit codes: 0 the client closed the connection; 1 the server failed; 2 usage error; 3 interrupted",
		bind: func(b *binder, c *Command) any {
			b.boolean("allow-decisions", &c.AllowDecisions, "let a client record operator decisions with deep_research_citations_decide (off: it may only list them)")
			b.boolean("allow-fetch", &c.AllowFetch, "let verify_citations fetch cited sources and runs configured online validate live (also CITEGATE_ALLOW_FETCH=1 or IRIS_CITATION_ALLOW_FETCH=1); off, a client's allow_fetch:true is not enough and an online run is refused")
			b.list("judge-base-url", &c.JudgeBaseURLs, "an openai-compatible or ollama judge endpoint a client may name as base_url, comma-separated or repeated (default: none; CITEGATE_JUDGE_API_KEY, if set, is sent there)")
			b.list("provider-endpoint", &c.ProviderEndpoints, "a Bright Data or Apify endpoint a run's manifest or run-config.json may name, comma-separated or repeated (default: none; the provider's credentials are sent there)")
			b.paths("root", &c.Roots, "a directory whose run directories a client may use (repeatable; default: any run directory, each only inside its own root)")
			v := &c.Verify
			b.integer("max-citations", &v.MaxCitations, "verify_citations: most citations a call checks; a client may ask for fewer (default 20, hard cap 50)")
			b.integer("per-source-timeout-ms", &v.PerSourceTimeoutMS, "verify_citations: longest per-source fetch timeout a client may use (default 10000)")
			b.integer("per-source-max-bytes", &v.PerSourceMaxBytes, "verify_citations: largest per-source body cap a client may use (default 5 MiB)")
			b.float("max-cost-usd-total", &v.MaxCostUSDTotal, "verify_citations: highest total judge cost a client may allow (default 1.00)")
			b.integer("judge-timeout-ms", &v.JudgeTimeoutMS, "verify_citations: longest judge-call timeout a client may use (default 60000)")
			b.integer("judge-concurrency", &v.JudgeConcurrency, "verify_citations: most judge calls a client may run at once (default 4, at most 32)")
			bindNet(b, &c.Net)
			return nil
		},
	},
	"demo": {
		summary: "run the embedded demo against a simulated web in this process (or --offline on fixtures)",
		usage:   "citegate demo [--dir DIR] [--offline] [--headless]", exits: runExits,
		bind: func(b *binder, c *Command) any {
			b.str("dir", &c.DemoDir, "directory to copy the demo run into and keep (default: a new temp dir, removed on exit)")
			b.boolean("keep", &c.DemoKeep, "keep the demo's temp directory after the run")
			b.boolean("offline", &c.DemoOffline, "use the demo's offline fixtures instead of the simulated web")
			b.path("log-file", &c.LogFile, "in the terminal UI, write the progress log to this file (nothing is printed over the screen)")
			b.boolean("headless", &c.Headless, "no terminal UI: JSON summary on stdout, progress on stderr (also without a terminal)")
			bindReports(b, c, true)
			return nil
		},
	},
}

func bindRun(b *binder, c *Command) {
	a := &c.Run
	b.path("manifest-path", &a.ManifestPath, "path to manifest.json (or give RUN_DIR, not both)")
	b.optBool("include-wave2", &a.IncludeWave2, "scan the wave-2 directory too (default true)")
	b.list("source-titles", &a.SourceTitles, "also read the sections with these titles, comma-separated, like Sources (e.g. References,Bibliography; default: run-config.json effective.citations.source_section_titles)")
	b.path("offline-fixtures-path", &a.OfflineFixturesPath, "offline fixtures (default <runRoot>/offline-fixtures.json if present)")
	b.path("online-fixtures-path", &a.OnlineFixturesPath, "online fixtures to replay (online mode)")
	b.optBool("online-dry-run", &a.OnlineDryRun, "online mode without network")
	b.str("reason", &a.Reason, "audit reason (default \"citegate run\")")
	b.boolean("headless", &c.Headless, "no terminal UI: JSON summary on stdout, progress on stderr (also without a terminal)")
	b.path("log-file", &c.LogFile, "in the terminal UI, write the progress log to this file (nothing is printed over the screen)")
	b.path("verify", &c.OutputFile, "after Gate C, verify this synthesis file with the lexical judge against the run's citations (writes citations/verify.json)")
	bindReports(b, c, true)
	bindNet(b, &c.Net)
}

var commandOrder = []string{"init", "run", "decide", "relocate", "demo", "mcp", "extract", "normalize", "validate", "gate-c", "render", "verify"}

// Usage is the top-level help text.
func Usage() string {
	var b strings.Builder
	b.WriteString("citegate — stop phantom citations before synthesis\n\nusage: citegate <command> [flags]\n\ncommands:\n")
	for _, n := range commandOrder {
		fmt.Fprintf(&b, "  %-10s %s\n", n, specs[n].summary)
	}
	fmt.Fprintf(&b, "  %-10s %s\n", "version", "print citegate's version (also --version)")
	b.WriteString("\nRun 'citegate <command> --help' for its flags and exit codes.\n")
	b.WriteString("Tool commands also take --args-json '<object>': the tool spec's JSON arguments verbatim.\n")
	return b.String()
}

// CommandUsage is one command's help text, flags and exit codes included.
func CommandUsage(name string) string {
	s, ok := specs[name]
	if !ok {
		return Usage()
	}
	fs, _, _, _ := newFlagSet(name, s, &Command{})
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nusage: %s\n\nflags:\n", s.summary, s.usage)
	var flags strings.Builder
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	// The flag package accepts one dash or two and prints one; the README
	// and every example use two.
	b.WriteString(flagLine.ReplaceAllString(flags.String(), "$1--$2"))
	fmt.Fprintf(&b, "\n%s\n", s.exits)
	return b.String()
}

// flagLine matches the start of a flag's line in PrintDefaults's output.
var flagLine = regexp.MustCompile(`(?m)^(  )-([A-Za-z])`)

// newFlagSet registers a command's flags. target is where --args-json
// decodes to (nil when the command takes none), argsJSON its raw value.
func newFlagSet(name string, s spec, c *Command) (fs *flag.FlagSet, b *binder, argsJSON *string, target any) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	b = &binder{fs: fs, applies: map[string]func(){}}
	target = s.bind(b, c)
	argsJSON = new(string)
	if s.argsJSON {
		fs.StringVar(argsJSON, "args-json", "", "the tool spec's JSON argument object (flags override its keys)")
	}
	return fs, b, argsJSON, target
}

// parseFailure turns a flag-parsing error into help or a usage error.
// An unknown flag names the nearest known one ("did you mean --headless?").
func parseFailure(c *Command, fs *flag.FlagSet, err error) (*Command, error) {
	if errors.Is(err, flag.ErrHelp) {
		c.Help = true
		return c, nil
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		msg = "unknown flag " + name
		if near := Closest(strings.TrimLeft(name, "-"), known); near != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", near)
		}
	}
	return nil, &UsageError{Command: c.Name, Msg: msg}
}

// Parse turns arguments into a Command. It returns *UsageError for mistakes.
func Parse(args []string) (*Command, error) {
	if len(args) == 0 {
		return nil, &UsageError{Msg: "no command given"}
	}
	name := args[0]
	if name == "-h" || name == "--help" {
		return &Command{Name: "", Help: true}, nil
	}
	if name == "help" {
		switch {
		case len(args) > 2:
			return nil, &UsageError{Msg: "help takes at most one topic (citegate help lists them)"}
		case len(args) == 2:
			return &Command{Name: "help", Topic: args[1]}, nil
		}
		return &Command{Name: "help"}, nil
	}
	if name == "--version" || name == "-version" || name == "version" {
		if len(args) == 2 && (args[1] == "--help" || args[1] == "-h") {
			return &Command{Name: "", Help: true}, nil
		}
		if len(args) > 1 {
			return nil, &UsageError{Msg: fmt.Sprintf("%s takes no arguments", name)}
		}
		return &Command{Name: "version"}, nil
	}
	s, ok := specs[name]
	if !ok {
		names := []string{"help", "version"}
		for n := range specs {
			names = append(names, n)
		}
		if near := Closest(name, names); near != "" {
			return nil, &UsageError{Msg: fmt.Sprintf("unknown command %q (did you mean %q?)", name, near)}
		}
		return nil, &UsageError{Msg: fmt.Sprintf("unknown command %q", name)}
	}
	c := &Command{Name: name}
	fs, b, argsJSON, target := newFlagSet(name, s, c)
	if err := fs.Parse(args[1:]); err != nil {
		return parseFailure(c, fs, err)
	}
	rest := fs.Args()
	runDirManifest, runDir := "", ""
	if (name == "run" || name == "relocate") && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		dir, err := filepath.Abs(rest[0])
		if err != nil {
			return nil, &UsageError{Command: name, Msg: err.Error()}
		}
		runDir, runDirManifest = dir, filepath.Join(dir, "manifest.json")
		// The flag package stops at the first operand; flags may follow RUN_DIR.
		if err := fs.Parse(rest[1:]); err != nil {
			return parseFailure(c, fs, err)
		}
		rest = fs.Args()
	}
	if name == "init" {
		var err error
		if rest, err = parseInitOperands(fs, c, rest); err != nil {
			return nil, err
		}
	}
	if name == "decide" {
		var err error
		if rest, err = parseDecideOperands(fs, c, rest); err != nil {
			return nil, err
		}
	}
	if len(rest) > 0 {
		return nil, &UsageError{Command: name, Msg: fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	if *argsJSON != "" {
		dec := json.NewDecoder(bytes.NewReader([]byte(*argsJSON)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(target); err != nil {
			return nil, &UsageError{Command: name, Msg: "--args-json: " + err.Error()}
		}
		if dec.More() {
			return nil, &UsageError{Command: name, Msg: "--args-json: trailing data after the object"}
		}
	}
	fs.Visit(func(f *flag.Flag) {
		if apply, ok := b.applies[f.Name]; ok {
			apply()
		}
	})
	if name == "relocate" {
		if runDir == "" {
			return nil, &UsageError{Command: name, Msg: "missing RUN_DIR: the run directory to relocate"}
		}
		c.Relocate.Dir = runDir
	}
	if name == "run" && runDirManifest == "" && c.Run.ManifestPath == "" && c.Run.RunDir == "" {
		// No run named: the one in the working directory, as init's default.
		dir, err := os.Getwd()
		if err != nil {
			return nil, &UsageError{Command: name, Msg: "no RUN_DIR given and the working directory is unknown: " + err.Error()}
		}
		runDir, runDirManifest = dir, filepath.Join(dir, "manifest.json")
	}
	if name == "run" && runDirManifest != "" {
		if c.Run.ManifestPath != "" && c.Run.ManifestPath != runDirManifest {
			return nil, &UsageError{Command: name, Msg: fmt.Sprintf("give RUN_DIR or --manifest-path, not both (RUN_DIR means %s; --manifest-path says %s)",
				runDirManifest, c.Run.ManifestPath)}
		}
		c.Run.ManifestPath, c.Run.RunDir = runDirManifest, runDir
	}
	if name == "init" {
		if err := absInitPaths(c); err != nil {
			return nil, err
		}
	}
	if _, err := c.Net.Options(); err != nil {
		return nil, &UsageError{Command: name, Msg: err.Error()}
	}
	if err := checkRequired(name, s, c); err != nil {
		return nil, err
	}
	return c, nil
}

// checkRequired refuses a command line that leaves a required argument blank.
// The engine checks these too, but as a tool result (exit 1); a missing
// argument is a mistake in the command line, so it gets the usage text.
func checkRequired(name string, s spec, c *Command) error {
	if s.required == nil {
		return nil
	}
	var missing, keys []string
	for _, r := range s.required(c) {
		if strings.TrimSpace(r.value) != "" {
			continue
		}
		m := "--" + r.flag
		if r.key != "" && s.argsJSON {
			m += " (" + r.key + " in --args-json)"
		}
		missing = append(missing, m)
		keys = append(keys, orFlag(r.key, r.flag))
	}
	if len(missing) == 0 {
		return nil
	}
	return &UsageError{Command: name, Msg: "missing required argument: " + strings.Join(missing, ", "),
		Details: map[string]any{"missing": keys}}
}

// orFlag names an argument by its --args-json key, or by its flag when it
// has none.
func orFlag(key, flag string) string {
	if key != "" {
		return key
	}
	return flag
}
