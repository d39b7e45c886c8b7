package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/citegate/citegate/engine"
)

// initTool is the name of the tool that mirrors `citegate init`.
const initTool = "deep_research_citations_init"

// initArgs are `citegate init`'s arguments as an agent passes them. It is
// its own type, not engine.InitArgs, so that the descriptions an agent reads
// live with the MCP surface; init converts them.
type initArgs struct {
	Dir              string   `json:"dir" jsonschema:"Absolute path of the run directory to write (required); created if missing. Relative paths are refused."`
	Waves            []string `json:"waves,omitempty" jsonschema:"Absolute paths of the wave-1 markdown files (.md), or of directories whose .md files are taken (sorted by name); copied into <dir>/wave-1/. Each should have a Sources section listing its URLs. Default: none (put files into <dir>/wave-1/ before running)."`
	Waves2           []string `json:"waves2,omitempty" jsonschema:"Absolute paths of wave-2 markdown files (.md) or directories, as waves; copied into <dir>/wave-2/. Default: none."`
	Mode             string   `json:"mode,omitempty" jsonschema:"offline (default): nothing is fetched and every URL's status comes from <dir>/offline-fixtures.json; or online: URLs are checked on the network, which over MCP the operator must allow."`
	Tier             string   `json:"tier,omitempty" jsonschema:"Validation tier: basic, standard (default) or thorough."`
	RunID            string   `json:"run_id,omitempty" jsonschema:"Run id recorded in the manifest. Default: dr_ followed by the directory's name in lowercase letters, digits and underscores."`
	Query            string   `json:"query,omitempty" jsonschema:"The research question the manifest records. Default: the first wave file's level-one heading."`
	FixturesTemplate bool     `json:"fixtures_template,omitempty" jsonschema:"Offline mode only: true also writes <dir>/offline-fixtures.json listing every URL the waves cite as valid, for you to correct before the run. Needs waves. Default false."`
	Force            bool     `json:"force,omitempty" jsonschema:"true re-initialises a directory that already holds a run, replacing its setup files and wave set; false (default) refuses to overwrite anything and writes nothing."`
	SourceTitles     []string `json:"source_section_titles,omitempty" jsonschema:"Further section titles read like 'Sources' in every later run of this directory (written into run-config.json), e.g. ['References', 'Bibliography']; at most 64, each one line of at most 200 characters. Default: none, only the built-in titles."`
}

// engine is the engine's form of the arguments.
func (a initArgs) engine() engine.InitArgs {
	return engine.InitArgs{Dir: a.Dir, Waves: a.Waves, Waves2: a.Waves2, Mode: a.Mode, Tier: a.Tier,
		RunID: a.RunID, Query: a.Query, FixturesTemplate: a.FixturesTemplate, Force: a.Force, SourceTitles: a.SourceTitles}
}

// init runs `citegate init` for an agent. Paths must be absolute (the
// tools' rule), and a wave named as a file must be a .md file: init copies
// what it is given into the run, and an agent must not turn some other
// file into a wave. The next steps name tools and arguments, not commands.
func (t tools) init(ctx context.Context, a initArgs) (any, error) {
	if err := absolute("dir", []string{a.Dir}); err != nil {
		return nil, err
	}
	for key, paths := range map[string][]string{"waves": a.Waves, "waves2": a.Waves2} {
		if err := absolute(key, paths); err != nil {
			return nil, err
		}
		if err := markdownOnly(key, paths); err != nil {
			return nil, err
		}
	}
	res, err := t.e.Init(ctx, a.engine())
	if err != nil {
		return nil, err
	}
	for i, n := range res.Next {
		res.Next[i] = asToolCall(n, res)
	}
	for i, w := range res.Warnings {
		res.Warnings[i] = asToolCall(w, res)
	}
	return res, nil
}

// absolute refuses a relative path among paths.
func absolute(key string, paths []string) error {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return &engine.Error{Code: engine.CodeInvalidArgs, Message: key + " must be absolute: give the full path, starting with /",
				Details: map[string]any{"key": key}}
		}
	}
	return nil
}

// markdownOnly refuses a wave given as a file that is not a .md file.
func markdownOnly(key string, paths []string) error {
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && !strings.EqualFold(filepath.Ext(p), ".md") {
			return &engine.Error{Code: engine.CodeInvalidArgs, Message: key + ": a wave file must be a markdown file ending in .md; give .md files or directories of them",
				Details: map[string]any{"key": key}}
		}
	}
	return nil
}

// asToolCall rewrites init's command-line advice for an MCP client.
func asToolCall(s string, res *engine.InitResult) string {
	return strings.NewReplacer(
		"citegate run "+res.RunDir, "call deep_research_citations_run with manifest_path "+res.ManifestPath,
		"--fixtures-template", "fixtures_template: true",
		"--force", "force: true",
	).Replace(s)
}
