// Package mcp serves citegate's tools over the Model Context Protocol
// (`citegate mcp`, stdio), on the official Go SDK: the reference pipeline's
// five tools under the seeds' names, a run tool for the whole pipeline, and
// seed 002's verify_citations. A tool's result is the envelope the CLI
// prints ({"ok":true,...} or {"ok":false,"error":{...}}), as text content,
// with isError set for ok:false. Arguments are checked against the tool's
// input schema (unknown keys refused, as --args-json refuses them) and paths
// must be absolute, the tool specs' rule.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/verify"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options are the operator's choices for a server.
type Options struct {
	// Version is what the server reports as its version.
	Version string
	// AllowFetch is the operator's consent to fetch over MCP
	// (`citegate mcp --allow-fetch`, or CITEGATE_ALLOW_FETCH=1 /
	// IRIS_CITATION_ALLOW_FETCH=1 in the environment). Without it a
	// client's allow_fetch:true is not enough, and a run or validate whose
	// run config says online is refused.
	AllowFetch bool
	// AllowDecisions is the operator's consent to let a client record
	// operator decisions (`citegate mcp --allow-decisions`); off, the
	// decide tool only lists them. A run config a client could have
	// written is not consent, so there is no such field there.
	AllowDecisions bool
	// Bounds are the operator's other limits (see Boundaries).
	Bounds Boundaries
}

// NewServer builds the server with every tool registered on e.
func NewServer(e *engine.Engine, o Options) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "citegate", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "citegate checks the citations of deep-research wave files: extract → normalize → validate → " +
			"Gate C → render on a run directory (or deep_research_citations_run for all five), and verify_citations " +
			"checks whether cited sources support an agent output's claims. With no run directory yet, start with " +
			"deep_research_citations_init. Paths must be absolute. Each result is a JSON envelope: ok:false carries error.code and a message that says the fix.",
	})
	p := newPolicy(o)
	// The server's own engine: online validation asks the policy first.
	ec := *e
	ec.OnlineGate, ec.EndpointGate = p.onlineGate, p.endpointGate
	ceiling := engine.DefaultLadderPolicy()
	ec.PolicyCeiling = &ceiling
	e = &ec
	t := tools{e: e, o: o, p: p}
	errs := []error{add(s, p, "deep_research_citations_extract_urls", "Extract the URLs of the wave files' Sources sections (citations/extracted-urls.txt, found-by.json).",
		func(ctx context.Context, _ *mcp.CallToolRequest, a engine.ExtractArgs) (any, error) {
			return e.Extract(ctx, a)
		}),
		add(s, p, "deep_research_citations_normalize", "Normalize the extracted URLs and compute their cids (citations/normalized-urls.txt, url-map.json).",
			func(ctx context.Context, _ *mcp.CallToolRequest, a engine.NormalizeArgs) (any, error) {
				return e.Normalize(ctx, a)
			}),
		add(s, p, "deep_research_citations_validate", "Classify every normalized URL as valid, paywalled, blocked, mismatch or invalid (citations/citations.jsonl). Sends progress notifications when the request has a progress token.",
			t.validate),
		add(s, p, "deep_research_gate_c_compute", "Compute Gate C (may synthesis start?) from the extracted URLs and the citations; write:true also updates gates.json.",
			func(ctx context.Context, _ *mcp.CallToolRequest, a engine.GateCArgs) (any, error) {
				return e.GateC(ctx, a)
			}),
		add(s, p, "deep_research_citations_render_md", "Render citations/validated-citations.md from citations.jsonl.",
			func(ctx context.Context, _ *mcp.CallToolRequest, a engine.RenderArgs) (any, error) {
				return e.Render(ctx, a)
			}),
		add(s, p, "deep_research_citations_run", "Run extract → normalize → validate → Gate C → render on one run directory in one all-or-nothing commit. Sends progress notifications when the request has a progress token.",
			t.run),
		add(s, p, initTool, "Write a complete run directory (manifest.json, run-config.json, gates.json, wave-1/ and wave-2/ with the given markdown files, optionally offline-fixtures.json) so that deep_research_citations_run can run on it; the answer lists the files written and the next steps. Writes nothing when the directory already has such files, unless force is true.",
			func(ctx context.Context, _ *mcp.CallToolRequest, a initArgs) (any, error) {
				return t.init(ctx, a)
			}),
		add(s, p, decideTool, "Record a reviewer's decision on one citation of a run (status valid, paywalled or invalid with a note; exclude; undo), or list the decisions and the must-not-cite citations still undecided (list:true). The next deep_research_citations_run applies decisions the way offline fixtures apply. Changing decisions needs the operator's consent (citegate mcp --allow-decisions); listing does not.",
			t.decide),
		add(s, p, "verify_citations", "Extract the citations of an agent output, fetch the cited sources (only when the operator started the server with --allow-fetch) and judge whether each supports its claim. Returns per-citation verdicts and an overall support ratio (seed 002); passed is true or false only when a judge decided at least one citation, else null with a reason saying why (fetching off, no citations found).",
			t.verify),
	}
	return s, errors.Join(errs...)
}

// tools holds what the handlers that do more than call the engine need.
type tools struct {
	e *engine.Engine
	o Options
	p *policy
}

// add registers a tool whose arguments decode into In. The input schema is
// inferred from In's JSON fields (fields without omitempty are required;
// no other keys are allowed). The operator's policy admits the arguments
// before call runs.
func add[In any](s *mcp.Server, p *policy, name, description string, call func(context.Context, *mcp.CallToolRequest, In) (any, error)) error {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("mcp: schema for %s: %w", name, err)
	}
	singleTypes(schema)
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("mcp: resolve schema for %s: %w", name, err)
	}
	tool := &mcp.Tool{Name: name, Description: description, InputSchema: schema}
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := decodeArgs[In](req.Params.Arguments, resolved)
		if err != nil {
			return envelope(nil, err), nil
		}
		if err := p.admit(in); err != nil {
			return envelope(nil, err), nil
		}
		res, err := call(ctx, req, in)
		return envelope(res, err), nil
	})
	return nil
}

// decodeArgs checks raw arguments against the tool's schema and decodes them.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return in, argError("arguments are not JSON: " + err.Error())
	}
	raw, err := dropNulls(raw, doc) // doc loses its null keys too
	if err != nil {
		return in, argError("arguments: " + err.Error())
	}
	if err := schema.Validate(doc); err != nil {
		return in, argError("arguments do not match the tool's input schema (each property's description says what it takes): " + err.Error())
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, argError("arguments: " + err.Error())
	}
	return in, nil
}

func argError(msg string) error {
	return &engine.Error{Code: engine.CodeInvalidArgs, Message: msg, Details: map[string]any{}}
}

// envelope is a tool result: the CLI's envelope as text, isError for
// ok:false.
func envelope(res any, err error) *mcp.CallToolResult {
	v := res
	if err != nil {
		v = struct {
			OK    bool          `json:"ok"`
			Error *engine.Error `json:"error"`
		}{false, engine.AsError(err)}
	}
	b, merr := jsonx.MarshalFile(v)
	if merr != nil {
		b = []byte(`{"ok":false,"error":{"code":"WRITE_FAILED","message":"cannot encode result","details":{}}}` + "\n")
		err = merr
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, IsError: err != nil}
}

// decideTool is the MCP name of `citegate decide`.
const decideTool = "deep_research_citations_decide"

// decide records or lists decisions. Recording one is the operator's to
// allow: an agent, or whatever wrote into its context, is not the reviewer.
func (t tools) decide(ctx context.Context, _ *mcp.CallToolRequest, a engine.DecideArgs) (any, error) {
	if !a.List && !t.o.AllowDecisions {
		return nil, refused("recording decisions over MCP is off: the operator allows it by starting the server with "+
			"citegate mcp --allow-decisions (list:true works without it)", map[string]any{"fix": "citegate mcp --allow-decisions"})
	}
	a.Who, a.Via = "mcp-client", "mcp"
	return t.e.Decide(ctx, a)
}

func (t tools) validate(ctx context.Context, req *mcp.CallToolRequest, a engine.ValidateArgs) (any, error) {
	return withProgress(ctx, req, func(ch chan<- engine.Event) (any, error) { return t.e.Validate(ctx, a, ch) })
}

func (t tools) run(ctx context.Context, req *mcp.CallToolRequest, a engine.RunArgs) (any, error) {
	return withProgress(ctx, req, func(ch chan<- engine.Event) (any, error) { return t.e.Run(ctx, a, ch) })
}

// verifyArgs are seed 002's verify_citations parameters: the output text
// and verify.Args's. It is its own type, not verify.Args embedded, because
// allow_fetch must be tri-state here (absent means "as the operator
// allows") and the input schema is inferred from exactly these fields.
type verifyArgs struct {
	Output             string   `json:"output" jsonschema:"The agent output itself, as TEXT (markdown), not a file path: the server reads no file for it. Its citations ([N], (Author, Year) and footnote markers resolved through the output's own reference list, and bare URLs) are checked. Required; at most 16 MiB."`
	Model              string   `json:"model" jsonschema:"Judge model (required): lexical (offline word-overlap judge: no API key, no cost); an Anthropic model: claude-haiku-4-5-20251001, claude-haiku-4-5, claude-sonnet-4-6, claude-sonnet-4-5-20250929, claude-opus-4-5-20251101, claude-opus-4-6, claude-opus-4-7, claude-opus-4-8; an OpenAI model: gpt-4o-mini, gpt-4o, o1-mini; or any model name with provider openai-compatible and base_url. API keys come from the server's environment."`
	Provider           string   `json:"provider,omitempty" jsonschema:"Judge provider: anthropic, openai, openai-compatible, ollama (Ollama's native API) or lexical. Default: inferred from base_url (a port 11434 without /v1 is ollama, another host openai-compatible), else from model (claude-... is anthropic, gpt-... and o1-... are openai, lexical is lexical); any other model needs openai-compatible or ollama with base_url."`
	BaseURL            string   `json:"base_url,omitempty" jsonschema:"Base URL of the judge's API, e.g. http://127.0.0.1:8080 for a local openai-compatible server. Default: the provider's official API. The operator's settings decide which endpoints and keys may be used."`
	AllowFetch         *bool    `json:"allow_fetch,omitempty" jsonschema:"Fetch the cited sources: true or false. Default: true when the operator started the server with --allow-fetch. Without the operator's --allow-fetch nothing is fetched and true does not change that: each citation reports fetch_disabled and passed is null."`
	DomainAllowlist    []string `json:"domain_allowlist,omitempty" jsonschema:"Fetch only sources whose host is one of these domains or under them, e.g. ['nature.com', 'who.int']. Default: any public host (private and local addresses are always refused)."`
	MaxCostUSDTotal    *float64 `json:"max_cost_usd_total,omitempty" jsonschema:"Cap on the total judge cost of this call in US dollars, checked before each judge call with a pessimistic estimate. Default 1.00. The lexical judge costs nothing."`
	MaxCitations       int      `json:"max_citations,omitempty" jsonschema:"Check at most this many citations, in order of appearance. Default 20; at most 50."`
	PerSourceTimeoutMS int      `json:"per_source_timeout_ms,omitempty" jsonschema:"Time limit for fetching one source, in milliseconds. Default 10000."`
	PerSourceMaxBytes  int      `json:"per_source_max_bytes,omitempty" jsonschema:"Most bytes read from one source. Default 5242880 (5 MiB); the operator's cap may be lower."`
	JudgeTimeoutMS     int      `json:"judge_timeout_ms,omitempty" jsonschema:"Time limit for one judge call, in milliseconds. Default and most: the operator's (60000 unless set); a client may ask for less."`
	JudgeConcurrency   int      `json:"judge_concurrency,omitempty" jsonschema:"Judge calls run at once. Default and most: the operator's (4 unless set); a client may ask for fewer."`
	TraceID            string   `json:"trace_id,omitempty" jsonschema:"Optional label for this call (seed 002's trace_id); accepted for compatibility, not used in the result."`
	NoAbstain          bool     `json:"no_abstain,omitempty" jsonschema:"true turns every uncertain verdict into the judge's best guess, so verdicts are only supported or unsupported. Default false."`
}

// verify runs verify_citations. Fetching needs the operator's consent
// (Options.AllowFetch); with it, allow_fetch defaults to true (seed 002:
// "defaults to IRIS_CITATION_ALLOW_FETCH=1") and a client may still pass
// false. Without it, allow_fetch:true is refused, each source reported
// fetch-disabled, as the CLI does without --allow-fetch. The judge's
// endpoint and the caps are the policy's (verifyArgs).
func (t tools) verify(ctx context.Context, _ *mcp.CallToolRequest, a verifyArgs) (any, error) {
	if len(a.Output) > verify.MaxOutputBytes {
		return nil, &engine.Error{Code: engine.CodeInvalidInput, Message: "output over 16 MiB", Details: map[string]any{}}
	}
	va, err := t.p.verifyArgs(a)
	if err != nil {
		return nil, err
	}
	va.FetchOff = fetchOff(t.o.AllowFetch)
	res, err := t.e.Verify(ctx, []byte(a.Output), va)
	return withHint(res, a.Output), err
}
