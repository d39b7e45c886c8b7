package engine

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
)

// ValidateArgs mirrors deep_research_citations_validate.
type ValidateArgs struct {
	ManifestPath  string `json:"manifest_path" jsonschema:"Absolute path of the run directory's manifest.json (required). Relative paths are refused. The tool deep_research_citations_init (or citegate init DIR) writes a run directory with one."`
	URLMapPath    string `json:"url_map_path,omitempty" jsonschema:"Absolute path of url-map.json to read. Default (recommended): <run>/citations/url-map.json, as the previous step wrote it."`
	CitationsPath string `json:"citations_path,omitempty" jsonschema:"Absolute path to write citations.jsonl (one status record per URL) to, inside the run directory. Default (recommended): <run>/citations/citations.jsonl."`
	// OfflineFixturesPath defaults in offline mode, as run's does, to
	// <runRoot>/offline-fixtures.json when that file exists.
	OfflineFixturesPath string `json:"offline_fixtures_path,omitempty" jsonschema:"Absolute path of an offline fixtures JSON file: the status of each URL (valid, paywalled, blocked, mismatch, invalid), read only in offline mode. Default: the run directory's offline-fixtures.json when it exists."`
	OnlineFixturesPath  string `json:"online_fixtures_path,omitempty" jsonschema:"Absolute path of an online fixtures JSON file: statuses for the URLs it lists (same shapes as offline fixtures), used in online or dry-run mode instead of checking those URLs on the network; ignored in offline mode. Default: none."`
	OnlineDryRun        *bool  `json:"online_dry_run,omitempty" jsonschema:"Online mode only: true checks nothing on the network and records each URL as blocked by a dry run; false fetches. Default: run-config.json's mode (dry_run), else false. Ignored in offline mode."`
	Reason              string `json:"reason" jsonschema:"Why this step is run, in a few words (required; e.g. 'first pass' or 'recheck after fixing wave-1'); recorded in the run's logs/audit.jsonl; at most 1000 characters."`
}

// validate's inputs: the URL map, found-by.json and the fixtures a call
// names or the run holds, read and checked before anything is validated.

// loadURLMap reads url-map.json and checks it belongs to this run.
func loadURLMap(run *RunDir, path string) ([]URLMapItem, error) {
	data, err := fsx.ReadLimited(path, maxJSONBytes)
	if err != nil {
		return nil, readError("url-map", path, "required file missing", err)
	}
	var doc URLMapDoc
	if err := decodeChecked(data, schema.URLMap, "url-map", "url-map unreadable JSON", path, &doc); err != nil {
		return nil, err
	}
	if doc.RunID != run.Manifest.RunID {
		return nil, newError(CodeSchemaValidation, "url-map run_id mismatch", map[string]any{"expected": run.Manifest.RunID, "got": doc.RunID})
	}
	return redactURLMap(doc.Items)
}

// decodeChecked validates data against the named schema, then decodes it
// into v; either failure is msg, naming the file (label) and path.
func decodeChecked(data []byte, name schema.Name, label, msg, path string, v any) error {
	if _, err := schema.ValidateJSON(name, data); err != nil {
		return schemaError(label, path, msg, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return newError(CodeInvalidJSON, msg, map[string]any{"path": path})
	}
	return nil
}

// loadFoundBy reads the provenance file; a run without one has no provenance.
func loadFoundBy(run *RunDir) ([]FoundByItem, error) {
	path := run.citationsPath("found-by.json")
	data, err := fsx.ReadLimited(path, maxJSONBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, readError("found-by.json", path, "found-by.json missing", err)
	}
	var doc FoundByDoc
	if err := decodeChecked(data, schema.FoundBy, "found-by.json", "found-by.json unreadable JSON", path, &doc); err != nil {
		return nil, err
	}
	// Another tool may have written it: redact on the way in.
	for i := range doc.Items {
		it := &doc.Items[i]
		it.URLOriginal, _ = netguard.RedactURL(it.URLOriginal)
		it.SourceLine = netguard.RedactText(it.SourceLine)
	}
	return doc.Items, nil
}

// validateInputs resolves config, paths and fixtures for the validate tool.
type validateInputs struct {
	cfg           *citationConfig
	citationsPath string
	urlMapPath    string
	offline       *fixtureSet
	online        *fixtureSet
	// decisions are the operator's (operator-decisions.json), applied
	// before the fixtures in every mode; nil when the run has none.
	decisions *decisionSet
}

func resolveValidateInputs(run *RunDir, a ValidateArgs) (*validateInputs, error) {
	cfg, err := resolveConfig(run, a.OnlineDryRun)
	if err != nil {
		return nil, err
	}
	paths, err := resolvePaths(run,
		pathArg{"url_map_path", a.URLMapPath, "url-map.json"},
		pathArg{"citations_path", a.CitationsPath, "citations.jsonl"},
		pathArg{"offline_fixtures_path", a.OfflineFixturesPath, ""},
		pathArg{"online_fixtures_path", a.OnlineFixturesPath, ""})
	if err != nil {
		return nil, err
	}
	in := &validateInputs{cfg: cfg, urlMapPath: paths[0], citationsPath: paths[1]}
	doc, err := loadDecisions(run)
	if err != nil {
		return nil, err
	}
	if in.decisions, err = newDecisionSet(doc); err != nil {
		return nil, err
	}
	offlinePath, onlinePath := paths[2], paths[3]
	if cfg.mode == ModeOffline {
		if offlinePath == "" {
			// As run does (the reference requires the argument).
			if offlinePath, err = runOfflineFixtures(run); err != nil {
				return nil, err
			}
		}
		if offlinePath == "" {
			return nil, newError(CodeInvalidArgs, "offline_fixtures_path required in OFFLINE mode",
				map[string]any{"mode": cfg.mode, "mode_source": cfg.modeSource, "hint": offlineFixturesHint(run.Root)})
		}
		if in.offline, err = loadFixtures(offlinePath, "offline"); err != nil {
			return nil, err
		}
	} else if onlinePath != "" {
		if in.online, err = loadFixtures(onlinePath, "online"); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// offlineFixturesHint says what offline fixtures are and how to get them.
func offlineFixturesHint(root string) string {
	return "offline mode fetches nothing: each URL's status comes from a fixtures file, a JSON object mapping URL to " +
		"valid|paywalled|blocked|mismatch|invalid (README: \"Offline fixtures\"). Write " + filepath.Join(root, "offline-fixtures.json") +
		" (`citegate init DIR --waves FILES --fixtures-template` lists every cited URL as valid, to correct), pass " +
		"--offline-fixtures-path, or set effective.citations.mode to online in run-config.json"
}
