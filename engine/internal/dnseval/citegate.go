package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/citegate/citegate/engine/internal/evalrun"
)

func command(name string, args ...string) (string, error) {
	b, err := exec.Command(name, args...).CombinedOutput()
	return string(b), err
}

// runCitegate writes a run directory citing every host's /article
// (`citegate init`, online mode), runs `citegate run --headless` on it and
// reads citations.jsonl.
func runCitegate(c config, dir string, names []string) (*passResult, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var wave strings.Builder
	wave.WriteString("# DNS evaluation\n\n## Findings\n\nThe sources below were gathered for this perspective.\n\n## Sources\n\n")
	for _, n := range names {
		fmt.Fprintf(&wave, "- [Field notes from %s](http://%s/article)\n", n, n)
	}
	wavePath := filepath.Join(dir, "p01.md")
	if err := os.WriteFile(wavePath, []byte(wave.String()), 0o644); err != nil {
		return nil, err
	}
	runDir := filepath.Join(dir, "run")
	if out, err := command(c.bin, "init", runDir, "--waves", wavePath, "--mode", "online", "--tier", c.tier,
		"--run-id", "dr_dnseval_"+filepath.Base(dir), "--query", "dns evaluation"); err != nil {
		return nil, fmt.Errorf("citegate init: %w: %s", err, out)
	}
	// No provider credentials: a URL the direct rung cannot read is
	// blocked, not sent elsewhere.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	exit, wall, err := evalrun.Headless(c.bin, []string{"run", "--headless", runDir}, env, dir, c.timeout)
	if err != nil {
		return nil, err
	}
	res := &passResult{wall: wall, exit: exit}
	if res.exit != 0 && res.exit != 4 { // 4: Gate C failed, as the invalid and blocked hosts make it
		return nil, fmt.Errorf("citegate run exited %d (see %s)", res.exit, filepath.Join(dir, "progress.log"))
	}
	res.status, res.notes, err = readStatuses(filepath.Join(runDir, "citations", "citations.jsonl"))
	return res, err
}

// readStatuses maps each record's host to its status and notes.
func readStatuses(path string) (map[string]string, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	status, notes := map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r struct {
			URL    string `json:"url_original"`
			Status string `json:"status"`
			Notes  string `json:"notes"`
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, nil, err
		}
		u, err := url.Parse(r.URL)
		if err != nil {
			return nil, nil, err
		}
		status[u.Hostname()], notes[u.Hostname()] = r.Status, r.Notes
	}
	return status, notes, sc.Err()
}

// render is report.md, and whether any status differs.
func render(c config, names []string, clean, lossy *passResult) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "# dnseval: %d hosts, %.0f%% of DNS queries lost, answers delayed up to %v (seed %d), tier %s\n\n",
		len(names), c.loss*100, c.delay, c.seed, c.tier)
	fmt.Fprintf(&b, "| run | wall | DNS queries | per host (mean, max) | lost | exit |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, p := range []struct {
		name string
		r    *passResult
	}{{"clean", clean}, {"lossy", lossy}} {
		mean, most := perHost(names, p.r.queries)
		fmt.Fprintf(&b, "| %s | %.1f s | %d | %.2f, %d | %d | %d |\n", p.name, p.r.wall.Seconds(), p.r.total, mean, most, p.r.lost, p.r.exit)
	}
	fmt.Fprintf(&b, "\nThe losses cost %.1f s of wall time.\n\n## Statuses\n\n| status | clean | lossy |\n| --- | --- | --- |\n",
		(lossy.wall - clean.wall).Seconds())
	counts := func(r *passResult) map[string]int {
		m := map[string]int{}
		for _, n := range names {
			m[r.status[n]]++
		}
		return m
	}
	cc, lc := counts(clean), counts(lossy)
	var keys []string
	for k := range cc {
		keys = append(keys, k)
	}
	for k := range lc {
		if _, ok := cc[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", cmpOr(k, "(no record)"), cc[k], lc[k])
	}
	differ := false
	b.WriteString("\n## Differences\n\n")
	for _, n := range names {
		if clean.status[n] != lossy.status[n] {
			differ = true
			fmt.Fprintf(&b, "- %s: clean %s, lossy %s (%s)\n", n, clean.status[n], lossy.status[n], lossy.notes[n])
		}
	}
	if !differ {
		b.WriteString("None: every status under the lossy resolver equals the clean one.\n")
	}
	return b.String(), differ
}

func perHost(names []string, q map[string]int) (float64, int) {
	total, most := 0, 0
	for _, n := range names {
		total += q[n]
		most = max(most, q[n])
	}
	return float64(total) / float64(len(names)), most
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
