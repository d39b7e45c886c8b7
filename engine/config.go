package engine

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
)

// Citation modes. The reference's third mode, dry_run, is expressed here as
// online mode with OnlineDryRun set (seed 000 allows only offline|online).
const (
	ModeOffline = "offline"
	ModeOnline  = "online"
)

// LadderPolicy is run-config/policy.json's citations_ladder_policy_v1 block:
// each key as written, or its default when left out. The range of each key
// is in engine/schema/schemas/run_policy.v1.json; readPolicy refuses a value
// outside it.
type LadderPolicy struct {
	DirectFetchTimeoutMS   int     `json:"direct_fetch_timeout_ms"`
	EndpointTimeoutMS      int     `json:"endpoint_timeout_ms"`
	MaxRedirects           int     `json:"max_redirects"`
	MaxBodyBytes           int     `json:"max_body_bytes"`
	DirectFetchMaxAttempts int     `json:"direct_fetch_max_attempts"`
	BrightDataMaxAttempts  int     `json:"bright_data_max_attempts"`
	ApifyMaxAttempts       int     `json:"apify_max_attempts"`
	BackoffInitialMS       int     `json:"backoff_initial_ms"`
	BackoffMultiplier      float64 `json:"backoff_multiplier"`
	BackoffMaxMS           int     `json:"backoff_max_ms"`
}

// DefaultLadderPolicy holds seed 000's limits (5 s per hop, 5 redirects,
// 2 MB). Unlike the reference (one attempt each, 5 s for an endpoint), the
// direct rung gets three attempts so 429/5xx/timeouts are retried, the
// providers two, and a provider call 60 s: Apify renders pages in a browser.
func DefaultLadderPolicy() LadderPolicy {
	return LadderPolicy{
		DirectFetchTimeoutMS: 5000, EndpointTimeoutMS: 60000, MaxRedirects: 5, MaxBodyBytes: 2097152,
		DirectFetchMaxAttempts: 3, BrightDataMaxAttempts: 2, ApifyMaxAttempts: 2,
		BackoffInitialMS: 500, BackoffMultiplier: 2, BackoffMaxMS: 8000,
	}
}

// capped is p with every value at most ceiling's (backoff multiplier
// included): a policy may lower the operator's limits, never raise them.
func (p LadderPolicy) capped(ceiling LadderPolicy) LadderPolicy {
	p.DirectFetchTimeoutMS = min(p.DirectFetchTimeoutMS, ceiling.DirectFetchTimeoutMS)
	p.EndpointTimeoutMS = min(p.EndpointTimeoutMS, ceiling.EndpointTimeoutMS)
	p.MaxRedirects = min(p.MaxRedirects, ceiling.MaxRedirects)
	p.MaxBodyBytes = min(p.MaxBodyBytes, ceiling.MaxBodyBytes)
	p.DirectFetchMaxAttempts = min(p.DirectFetchMaxAttempts, ceiling.DirectFetchMaxAttempts)
	p.BrightDataMaxAttempts = min(p.BrightDataMaxAttempts, ceiling.BrightDataMaxAttempts)
	p.ApifyMaxAttempts = min(p.ApifyMaxAttempts, ceiling.ApifyMaxAttempts)
	p.BackoffInitialMS = min(p.BackoffInitialMS, ceiling.BackoffInitialMS)
	p.BackoffMultiplier = min(p.BackoffMultiplier, ceiling.BackoffMultiplier)
	p.BackoffMaxMS = min(p.BackoffMaxMS, ceiling.BackoffMaxMS)
	return p
}

// Endpoints holds the operator adapter endpoints; nil means unset.
type Endpoints struct {
	BrightData *string `json:"bright_data"`
	Apify      *string `json:"apify"`
}

// EndpointSources says where each endpoint came from.
type EndpointSources struct {
	BrightData string `json:"bright_data"`
	Apify      string `json:"apify"`
}

// citationConfig is everything validate resolves from the run's files.
type citationConfig struct {
	mode               string
	modeSource         string
	onlineDryRun       bool
	onlineDryRunSource string
	tier               string
	tierSource         string
	endpoints          Endpoints
	endpointSources    EndpointSources
	policy             LadderPolicy
	policyPath         string
	policySource       string
	runConfigPath      string // "" when there is no run-config.json
	// sourceTitles are run-config's extra Sources section titles.
	sourceTitles []string
}

type runConfigDoc struct {
	Effective struct {
		Flags struct {
			Tier string `json:"citation_validation_tier"`
		} `json:"flags"`
		Citations struct {
			Mode           string `json:"mode"`
			ValidationTier string `json:"validation_tier"`
			// SourceSectionTitles: see ExtractArgs.SourceTitles.
			SourceSectionTitles []string `json:"source_section_titles"`
			Endpoints           struct {
				BrightData *string `json:"brightdata"`
				Apify      *string `json:"apify"`
			} `json:"endpoints"`
		} `json:"citations"`
	} `json:"effective"`
}

// resolveConfig reads policy.json and run-config.json and resolves mode, tier
// and endpoints. Mode follows seed 000: run-config first, then the manifest's
// sensitivity, never the process environment.
func resolveConfig(run *RunDir, dryRunArg *bool) (*citationConfig, error) {
	c := &citationConfig{policyPath: filepath.Join(run.Root, "run-config", "policy.json")}
	var err error
	if c.policy, c.policySource, err = readPolicy(c.policyPath); err != nil {
		return nil, err
	}

	var rc runConfigDoc
	rcPath := filepath.Join(run.Root, "run-config.json")
	data, err := fsx.ReadLimited(rcPath, maxJSONBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, readError("run-config", rcPath, "run-config missing", err)
	default:
		if _, err := schema.ValidateJSON(schema.RunConfig, data); err != nil {
			return nil, schemaError("run-config", rcPath, "run-config unreadable", err)
		}
		if err := json.Unmarshal(data, &rc); err != nil {
			return nil, newError(CodeInvalidJSON, "run-config unreadable", map[string]any{"path": rcPath, "reason": err.Error()})
		}
		c.runConfigPath = rcPath
	}

	rcMode := rc.Effective.Citations.Mode
	switch {
	case rcMode == ModeOffline || rcMode == ModeOnline || rcMode == "dry_run":
		c.mode, c.modeSource = ModeOnline, "run-config.effective.citations"
		if rcMode == ModeOffline {
			c.mode = ModeOffline
		}
	case strings.TrimSpace(run.Manifest.Query.Sensitivity) != "":
		c.mode, c.modeSource = ModeOnline, "manifest.query.sensitivity"
		if strings.TrimSpace(run.Manifest.Query.Sensitivity) == "no_web" {
			c.mode = ModeOffline
		}
	default:
		c.mode, c.modeSource = ModeOnline, "unset"
	}

	if c.mode == ModeOnline {
		switch {
		case dryRunArg != nil:
			c.onlineDryRun, c.onlineDryRunSource = *dryRunArg, "arg.online_dry_run"
		case rcMode == "dry_run":
			c.onlineDryRun, c.onlineDryRunSource = true, "run-config.effective.citations"
		default:
			// The reference's label (origin §1.6), also when the value is
			// simply false; online_fixtures.v1 allows only these labels.
			c.onlineDryRunSource = "run-config.effective.citations"
		}
	}

	flags := run.Manifest.Query.Constraints.Flags
	c.tier, c.tierSource = "standard", "default"
	for _, cand := range []struct{ v, src string }{
		{rc.Effective.Citations.ValidationTier, "run-config.effective.citations.validation_tier"},
		{rc.Effective.Flags.Tier, "run-config.effective.flags.citation_validation_tier"},
		{flagString(flags, "PAI_DR_CLI_CITATION_VALIDATION_TIER"), "manifest.query.constraints.deep_research_cli_flags"},
	} {
		if t := strings.TrimSpace(cand.v); t == "basic" || t == "standard" || t == "thorough" {
			c.tier, c.tierSource = t, cand.src
			break
		}
	}

	c.sourceTitles = rc.Effective.Citations.SourceSectionTitles
	c.endpoints.BrightData, c.endpointSources.BrightData = endpoint(flagString(flags, "PAI_DR_CLI_CITATIONS_BRIGHT_DATA_ENDPOINT"), rc.Effective.Citations.Endpoints.BrightData)
	c.endpoints.Apify, c.endpointSources.Apify = endpoint(flagString(flags, "PAI_DR_CLI_CITATIONS_APIFY_ENDPOINT"), rc.Effective.Citations.Endpoints.Apify)
	return c, nil
}

func flagString(flags map[string]any, key string) string {
	s, _ := flags[key].(string)
	return s
}

// endpoint applies the reference precedence: manifest flag, then run-config.
func endpoint(manifest string, runConfig *string) (*string, string) {
	if v := strings.TrimSpace(manifest); v != "" {
		return &v, "manifest.query.constraints.deep_research_cli_flags"
	}
	if runConfig != nil {
		if v := strings.TrimSpace(*runConfig); v != "" {
			return &v, "run-config.effective.citations"
		}
	}
	return nil, "unset"
}

// readPolicy reads policy.json. Whether the file is there and is a policy
// at all is judged the reference's forgiving way: a missing file, one that is
// not JSON, and one that is not a run_policy.v1 object yield the defaults and
// a label saying why. But a run_policy.v1 document is checked against its
// schema, whose $defs give each ladder value its range: a value that is
// present and out of range (max_redirects -1, a timeout of a day, a
// fractional attempt count) is SCHEMA_VALIDATION_FAILED with the value's
// JSON pointer, where the reference silently used the default. A key left
// out keeps its default.
func readPolicy(path string) (LadderPolicy, string, error) {
	p := DefaultLadderPolicy()
	data, err := fsx.ReadLimited(path, maxJSONBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return p, "default_missing", nil
	}
	if err != nil {
		return p, "default_unreadable", nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		var anyDoc any
		if json.Unmarshal(data, &anyDoc) != nil {
			return p, "default_invalid_json", nil
		}
		return p, "default_invalid_schema", nil
	}
	var sv string
	if json.Unmarshal(doc["schema_version"], &sv) != nil || sv != "run_policy.v1" {
		return p, "default_invalid_schema", nil
	}
	valid, err := schema.ValidateJSON(schema.RunPolicy, data)
	if err != nil {
		return p, "", schemaError("run-config/policy.json", path, "run policy unreadable", err)
	}
	// Valid, so the block is an object (or absent) and every value in it
	// is a json.Number in its range.
	block, _ := valid.(map[string]any)["citations_ladder_policy_v1"].(map[string]any)
	for key, dst := range map[string]*int{
		"direct_fetch_timeout_ms":   &p.DirectFetchTimeoutMS,
		"endpoint_timeout_ms":       &p.EndpointTimeoutMS,
		"max_redirects":             &p.MaxRedirects,
		"max_body_bytes":            &p.MaxBodyBytes,
		"direct_fetch_max_attempts": &p.DirectFetchMaxAttempts,
		"bright_data_max_attempts":  &p.BrightDataMaxAttempts,
		"apify_max_attempts":        &p.ApifyMaxAttempts,
		"backoff_initial_ms":        &p.BackoffInitialMS,
		"backoff_max_ms":            &p.BackoffMaxMS,
	} {
		if n, ok := block[key].(json.Number); ok {
			f, _ := n.Float64() // an integer such as 5 or 5.0, checked above
			*dst = int(f)
		}
	}
	if n, ok := block["backoff_multiplier"].(json.Number); ok {
		p.BackoffMultiplier, _ = n.Float64()
	}
	return p, "policy", nil
}

// fetchLimits are the limits of the direct fetch under this policy.
// max_redirects 0 follows no redirect, which netguard spells NoRedirects
// because its own zero means "the default".
func (p LadderPolicy) fetchLimits() netguard.Limits {
	redirects := p.MaxRedirects
	if redirects == 0 {
		redirects = netguard.NoRedirects
	}
	return netguard.Limits{
		HopTimeout:   time.Duration(p.DirectFetchTimeoutMS) * time.Millisecond,
		MaxRedirects: redirects,
		MaxBodyBytes: int64(p.MaxBodyBytes),
	}
}

// maxSourceTitles and maxSourceTitle bound the extra Sources titles; the
// run-config schema holds the same limits.
const (
	maxSourceTitles = 64
	maxSourceTitle  = 200
)

// sourceTitles picks the extra Sources section titles: the argument when
// given (a flag or --args-json), else run-config's. Titles are trimmed; a
// blank or overlong one, or too many, is INVALID_ARGS. run-config's have
// passed its schema, which sets the same limits, so only the argument can
// fail here in practice.
func sourceTitles(arg []string, cfg *citationConfig) ([]string, error) {
	in, key := arg, "source_section_titles"
	if in == nil {
		in, key = cfg.sourceTitles, "run-config.effective.citations.source_section_titles"
	}
	if len(in) > maxSourceTitles {
		return nil, newError(CodeInvalidArgs, "too many source section titles",
			map[string]any{"key": key, "count": len(in), "max": maxSourceTitles})
	}
	var out []string
	for i, t := range in {
		t = strings.TrimSpace(t)
		if t == "" || utf8.RuneCountInString(t) > maxSourceTitle || strings.ContainsAny(t, "\r\n") {
			return nil, newError(CodeInvalidArgs, "source section titles must be non-blank single lines of at most 200 characters",
				map[string]any{"key": key, "index": i})
		}
		out = append(out, t)
	}
	return out, nil
}
