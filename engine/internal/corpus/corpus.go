// Package corpus generates synthetic deep-research runs for benchmarks: many
// wave files whose Sources sections cite overlapping URLs in the messy forms
// agents write (tracking parameters, fragments, trailing slashes, mixed case
// hosts, every markdown link style), plus offline fixtures for all of them.
package corpus

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Spec sizes a corpus.
type Spec struct {
	Files       int // wave files (split over wave-1 and wave-2)
	URLsPerFile int // Sources URLs per file
	Distinct    int // distinct normalized URLs in the pool
}

// Default is the size the performance target names: 2,000 files ×
// 25 URLs = 50,000 occurrences over ~20,000 distinct URLs.
var Default = Spec{Files: 2000, URLsPerFile: 25, Distinct: 20000}

// hosts gives the pool realistic variety in host names and path shapes.
var hosts = []string{"www.nature.com/articles", "arxiv.org/abs", "en.wikipedia.org/wiki", "www.reuters.com/business",
	"doi.org/10.1016", "www.iea.org/reports", "github.com/org", "www.bbc.com/news", "www.science.org/doi", "example.org/papers"}

// Generate writes a run directory at dir (manifest.json, run-config.json,
// offline-fixtures.json and the wave files) and returns the manifest path.
// The same Spec always produces the same bytes.
func Generate(dir string, s Spec) (string, error) {
	r := rand.New(rand.NewPCG(1, 2))
	pool := make([]string, s.Distinct)
	for i := range pool {
		pool[i] = fmt.Sprintf("https://%s/item-%d", hosts[i%len(hosts)], i)
	}
	fixtures := make(map[string]string, len(pool))
	statuses := []string{"valid", "valid", "valid", "valid", "valid", "valid", "valid", "valid", "paywalled", "invalid"}
	for i, u := range pool {
		fixtures[u] = statuses[i%len(statuses)]
	}
	for w := 1; w <= 2; w++ {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("wave-%d", w)), 0o755); err != nil {
			return "", err
		}
	}
	next := 0
	for f := 0; f < s.Files; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Perspective p%d\n\n## Findings\n\nSee https://outside.example.com/finding-%d for context.\n\n## Sources\n\n", f, f)
		var refs []string
		for j := 0; j < s.URLsPerFile; j++ {
			u := variant(r, pool[next%len(pool)])
			next++
			switch j % 5 {
			case 0:
				fmt.Fprintf(&b, "- [Source %d of file %d](%s)\n", j, f, u)
			case 1:
				fmt.Fprintf(&b, "- %s\n", u)
			case 2:
				fmt.Fprintf(&b, "%d. <%s>\n", j, u)
			case 3:
				fmt.Fprintf(&b, "- [Reference %d][r%d]\n", j, j)
				refs = append(refs, fmt.Sprintf("[r%d]: %s", j, u))
			default:
				fmt.Fprintf(&b, "- Author et al. (2024), \"Title %d\", %s.\n", j, u)
			}
		}
		// Definitions go after the last section: inside Sources they would
		// count as citations themselves.
		b.WriteString("\n## Gaps\n\n- More data needed.\n\n" + strings.Join(refs, "\n") + "\n")
		wave := 1 + f%2
		p := filepath.Join(dir, fmt.Sprintf("wave-%d", wave), fmt.Sprintf("p%04d.md", f))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return "", err
		}
	}
	fx, err := json.Marshal(fixtures)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "offline-fixtures.json"), fx, 0o644); err != nil {
		return "", err
	}
	manifest := Manifest(dir, "dr_bench", "benchmark", "no_web")
	mp := filepath.Join(dir, "manifest.json")
	return mp, os.WriteFile(mp, []byte(manifest), 0o644)
}

// variant writes a pool URL the way an agent might: with tracking
// parameters, a fragment, a trailing slash or an upper-case host, all of
// which normalize back to the pool URL.
func variant(r *rand.Rand, u string) string {
	switch r.IntN(6) {
	case 0:
		return u + "?utm_source=agent&utm_medium=wave"
	case 1:
		return u + "#section-" + fmt.Sprint(r.IntN(9))
	case 2:
		return u + "/"
	case 3:
		return strings.Replace(u, "https://www.", "https://WWW.", 1)
	}
	return u
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Manifest returns a manifest.v1 document for a synthetic run rooted at root.
func Manifest(root, runID, query, sensitivity string) string {
	return fmt.Sprintf(manifestTemplate, mustJSON(runID), mustJSON(query), mustJSON(sensitivity), mustJSON(root))
}

const manifestTemplate = `{
  "schema_version": "manifest.v1",
  "run_id": %s,
  "created_at": "2026-01-01T00:00:00.000Z",
  "updated_at": "2026-01-01T00:00:00.000Z",
  "revision": 1,
  "mode": "standard",
  "status": "running",
  "query": {"text": %s, "sensitivity": %s},
  "stage": {"current": "citations", "started_at": "2026-01-01T00:00:00.000Z", "history": []},
  "limits": {"max_wave1_agents": 6, "max_wave2_agents": 6, "max_summary_kb": 5, "max_total_summary_kb": 60, "max_review_iterations": 4},
  "agents": {},
  "artifacts": {"root": %s, "paths": {"wave1_dir": "wave-1", "wave2_dir": "wave-2", "citations_dir": "citations",
    "summaries_dir": "summaries", "synthesis_dir": "synthesis", "logs_dir": "logs", "gates_file": "gates.json",
    "perspectives_file": "perspectives.json", "citations_file": "citations/citations.jsonl",
    "summary_pack_file": "summaries/summary-pack.json", "pivot_file": "pivot.json"}},
  "metrics": {},
  "failures": []
}
`
