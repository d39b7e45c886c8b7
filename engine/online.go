package engine

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/parse/icu"
)

// captureItem is one entry of online-fixtures.<ts>.json; the file is itself a
// valid online-fixtures input, so replaying it reproduces citations.jsonl.
type captureItem struct {
	NormalizedURL string `json:"normalized_url"`
	URLOriginal   string `json:"url_original"`
	CID           string `json:"cid"`
	Verdict
	CheckedAt string `json:"checked_at"`
}

type effectiveConfig struct {
	Mode               string          `json:"mode"`
	ModeSource         string          `json:"mode_source"`
	OnlineDryRun       bool            `json:"online_dry_run"`
	OnlineDryRunSource string          `json:"online_dry_run_source"`
	Endpoints          Endpoints       `json:"endpoints"`
	EndpointSources    EndpointSources `json:"endpoint_sources"`
	RunConfigPath      *string         `json:"run_config_path"`
	RunPolicyPath      string          `json:"run_policy_path"`
	RunPolicySource    string          `json:"run_policy_source"`
	LadderPolicy       LadderPolicy    `json:"citations_ladder_policy_v1"`
}

type captureDoc struct {
	SchemaVersion            string          `json:"schema_version"`
	RunID                    string          `json:"run_id"`
	GeneratedAt              string          `json:"generated_at"`
	SourceOnlineFixturesPath *string         `json:"source_online_fixtures_path"`
	OnlineDryRun             bool            `json:"online_dry_run"`
	EffectiveConfig          effectiveConfig `json:"effective_config"`
	Items                    []captureItem   `json:"items"`
}

type latestDoc struct {
	SchemaVersion string `json:"schema_version"`
	RunID         string `json:"run_id"`
	UpdatedAt     string `json:"updated_at"`
	TS            string `json:"ts"`
	Path          string `json:"path"`
}

type blockedItem struct {
	NormalizedURL string         `json:"normalized_url"`
	CID           string         `json:"cid"`
	Status        Status         `json:"status"`
	URL           string         `json:"url"`
	Notes         string         `json:"notes"`
	Action        string         `json:"action"`
	FoundBy       []FoundByEntry `json:"found_by"`
}

type blockedDoc struct {
	SchemaVersion string        `json:"schema_version"`
	RunID         string        `json:"run_id"`
	GeneratedAt   string        `json:"generated_at"`
	Items         []blockedItem `json:"items"`
}

// timestampToken turns 2026-02-14T12:00:00.123Z into 20260214T120000123Z.
func timestampToken(iso string) string {
	return strings.NewReplacer("-", "", ":", "", ".", "").Replace(iso)
}

// blockedAction recommends what an operator should do about a blocked URL.
func blockedAction(notes string) string {
	n := strings.ToLower(notes)
	switch {
	case strings.Contains(n, "private/local target blocked"):
		return "Replace with publicly reachable source URL outside private/local networks."
	case strings.Contains(n, "dry-run"):
		return "Run with online_dry_run=false or provide online fixtures replay input."
	case strings.Contains(n, "endpoint not configured") || strings.Contains(n, "no credentials"):
		return "Configure Bright Data/Apify endpoint or provide deterministic online fixture."
	case strings.Contains(n, "disallowed protocol"):
		return "Use http/https source URL for citation validation."
	case strings.Contains(n, "restricted sensitivity"):
		return "Restricted runs fetch directly only: check the source by hand or provide a deterministic online fixture."
	}
	return "Investigate URL manually and add deterministic online fixture if needed."
}

// onlineFiles is the rendered set of online side artifacts.
type onlineFiles struct {
	capturePath, latestPath, blockedPath, queuePath string
	capture, latest, blocked, queue                 []byte
	captureCount, blockedCount                      int
}

func (e *Engine) renderOnlineArtifacts(run *RunDir, in *validateInputs, v *validation) (*onlineFiles, error) {
	cfg := in.cfg
	generatedAt := e.nowISO()
	token := timestampToken(generatedAt)
	f := &onlineFiles{
		capturePath: run.citationsPath("online-fixtures." + token + ".json"),
		latestPath:  run.citationsPath("online-fixtures.latest.json"),
		blockedPath: run.citationsPath("blocked-urls.json"),
		queuePath:   run.citationsPath("blocked-urls.queue.md"),
	}
	capture := captureDoc{SchemaVersion: "online_fixtures.v1", RunID: run.Manifest.RunID, GeneratedAt: generatedAt,
		OnlineDryRun: cfg.onlineDryRun, Items: []captureItem{},
		EffectiveConfig: effectiveConfig{Mode: cfg.mode, ModeSource: cfg.modeSource, OnlineDryRun: cfg.onlineDryRun,
			OnlineDryRunSource: cfg.onlineDryRunSource, Endpoints: cfg.endpoints, EndpointSources: cfg.endpointSources,
			RunPolicyPath: cfg.policyPath, RunPolicySource: cfg.policySource, LadderPolicy: cfg.policy}}
	if in.online != nil {
		capture.SourceOnlineFixturesPath = &in.online.sourcePath
	}
	if cfg.runConfigPath != "" {
		capture.EffectiveConfig.RunConfigPath = &cfg.runConfigPath
	}
	blocked := blockedDoc{SchemaVersion: "blocked_urls.v1", RunID: run.Manifest.RunID, GeneratedAt: generatedAt, Items: []blockedItem{}}
	var netDown map[string]bool // the URLs the network failed, when it was down
	if v.reach.down() {
		netDown = map[string]bool{}
		for _, u := range v.reach.unreached {
			netDown[u] = true
		}
	}
	for _, r := range v.records {
		capture.Items = append(capture.Items, captureItem{r.NormalizedURL, r.URLOriginal, r.CID, r.Verdict(), r.CheckedAt})
		if r.Status == StatusBlocked {
			action := blockedAction(r.Notes)
			if netDown[r.NormalizedURL] {
				action = networkAction
			}
			blocked.Items = append(blocked.Items, blockedItem{r.NormalizedURL, r.CID, r.Status, r.URL, r.Notes, action, r.FoundBy})
		}
	}
	var err error
	if f.capture, err = marshalChecked(schema.OnlineFixtures, capture, f.capturePath); err != nil {
		return nil, err
	}
	if f.latest, err = jsonx.MarshalFile(latestDoc{"online_fixtures.latest.v1", run.Manifest.RunID, generatedAt, token, f.capturePath}); err != nil {
		return nil, err
	}
	if f.blocked, err = marshalChecked(schema.BlockedURLs, blocked, f.blockedPath); err != nil {
		return nil, err
	}
	f.captureCount, f.blockedCount = len(capture.Items), len(blocked.Items)
	if len(blocked.Items) > 0 {
		f.queue = blockedQueue(generatedAt, blocked.Items)
	}
	return f, nil
}

// pending lists the side artifacts to write.
func (f *onlineFiles) pending() []pendingWrite {
	const msg = "cannot persist online citation artifacts"
	ws := []pendingWrite{{path: f.capturePath, message: msg, data: f.capture}, {path: f.latestPath, message: msg, data: f.latest},
		{path: f.blockedPath, message: msg, data: f.blocked}}
	if f.queue != nil {
		ws = append(ws, pendingWrite{path: f.queuePath, message: msg, data: f.queue})
	}
	return ws
}

// removals lists what the commit deletes: a queue file from an earlier run
// when nothing is blocked any more (the reference left it behind).
func (f *onlineFiles) removals() []string {
	if f.queue != nil {
		return nil
	}
	return []string{f.queuePath}
}

// fill copies the side-artifact paths and counts into the result.
func (f *onlineFiles) fill(res *ValidateResult) {
	res.OnlineFixturesPath, res.OnlineFixturesLatestPath, res.BlockedURLsPath = &f.capturePath, &f.latestPath, &f.blockedPath
	res.OnlineFixturesCount, res.BlockedURLsCount = f.captureCount, f.blockedCount
	if f.queue != nil {
		res.BlockedURLsQueuePath = &f.queuePath
	}
}

// marshalChecked encodes an artifact file and validates it before it is written.
func marshalChecked(name schema.Name, v any, path string) ([]byte, error) {
	data, err := jsonx.MarshalFile(v)
	if err != nil {
		return nil, err
	}
	if _, err := schema.ValidateJSON(name, data); err != nil {
		return nil, schemaError(string(name), path, string(name)+" not JSON", err)
	}
	return data, nil
}

// blockedQueue renders blocked-urls.queue.md in the reference's layout.
func blockedQueue(generatedAt string, items []blockedItem) []byte {
	icu.SortBy(items, func(b blockedItem) string { return b.NormalizedURL }, func(b blockedItem) string { return b.URL })
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Blocked URLs Queue\ngenerated_at: %s\nblocked_count: %d\n\n", generatedAt, len(items))
	for i, it := range items {
		fmt.Fprintf(&sb, "## %d. %s\n", i+1, cmp.Or(cmp.Or(it.URL, it.NormalizedURL), "unknown"))
		if it.NormalizedURL != "" {
			fmt.Fprintf(&sb, "- normalized_url: %s\n", it.NormalizedURL)
		}
		fmt.Fprintf(&sb, "- reason: %s\n- recommended_action: %s\n", cmp.Or(it.Notes, "blocked"), it.Action)
		if len(it.FoundBy) > 0 {
			fb := append([]FoundByEntry(nil), it.FoundBy...)
			icu.SortBy(fb, func(f FoundByEntry) string { return f.ArtifactPath },
				func(f FoundByEntry) string { return f.PerspectiveID }, func(f FoundByEntry) string { return f.SourceLine })
			sb.WriteString("- found_by:\n")
			for _, f := range fb {
				fmt.Fprintf(&sb, "  - file: %s\n", f.ArtifactPath)
				if f.SourceLine != "" {
					fmt.Fprintf(&sb, "    line: %s\n", f.SourceLine)
				}
				fmt.Fprintf(&sb, "    perspective: %s\n    wave: %d\n", f.PerspectiveID, f.Wave)
			}
		}
		sb.WriteString("\n")
	}
	return []byte(strings.TrimRight(sb.String(), " \t\r\n") + "\n")
}
