package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/citegate/citegate/engine/internal/evalrun"
)

// record is the part of a citations.jsonl line the scorer reads.
type record struct {
	NormalizedURL string `json:"normalized_url"`
	URLOriginal   string `json:"url_original"`
	URL           string `json:"url"`
	Status        string `json:"status"`
	Notes         string `json:"notes"`
	HTTPStatus    *int   `json:"http_status"`
	Title         string `json:"title"`
}

// runTier writes a run directory citing every URL of sp (`citegate init`,
// online mode, the tier), runs `citegate run --headless` on it with one
// --resolve pin per host, and scores citations.jsonl.
func runTier(cfg runConfig, sp *Spec, tier, addr string) (*tierResult, error) {
	dir, err := filepath.Abs(filepath.Join(cfg.out, sp.Split+"-"+tier))
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	wave := filepath.Join(dir, "p01.md")
	if err := os.WriteFile(wave, []byte(waveFile(sp)), 0o644); err != nil {
		return nil, err
	}
	runDir := filepath.Join(dir, "run")
	if out, err := exec.Command(cfg.bin, "init", runDir, "--waves", wave, "--mode", "online", "--tier", tier,
		"--run-id", "dr_probeeval_"+sp.Split+"_"+tier, "--query", "probe evaluation "+sp.Split).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("citegate init: %w: %s", err, out)
	}
	args := []string{"run", "--headless", runDir}
	for _, h := range sp.Hosts {
		args = append(args, "--resolve", h.Host+":80:"+addr)
	}
	code, wall, err := evalrun.Headless(cfg.bin, args, nil, dir, cfg.timeout)
	if err != nil {
		return nil, err
	}
	recs, err := readRecords(filepath.Join(runDir, "citations", "citations.jsonl"))
	res := score(sp, tier, recs)
	res.exit, res.wall = code, wall
	if err != nil {
		return res, fmt.Errorf("reading citations.jsonl (citegate exit %d): %w", code, err)
	}
	if code != 0 && code != 4 { // 4: Gate C failed, which a soft-404 set should make it
		return res, fmt.Errorf("citegate run exited %d (see %s)", code, filepath.Join(dir, "progress.log"))
	}
	return res, nil
}

// waveFile is a perspective whose Sources list cites every URL of sp.
func waveFile(sp *Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Probe evaluation (%s split)\n\n## Findings\n\nThe sources below were gathered for this perspective.\n\n## Sources\n\n", sp.Split)
	for _, h := range sp.Hosts {
		for _, c := range h.URLs {
			fmt.Fprintf(&b, "- [%s](%s)\n", mdEscape(c.LinkText), c.URL)
		}
	}
	return b.String()
}

func mdEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "*", `\*`, "_", `\_`, "`", "\\`", "<", `\<`, ">", `\>`)
	return r.Replace(strings.Join(strings.Fields(s), " "))
}

func readRecords(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return recs, err
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// matchRecords maps each cited URL of sp to its record: by the original
// URL, else by the normalised one, else by host, path and query.
func matchRecords(sp *Spec, recs []record) map[string]*record {
	byKey := map[string]*record{}
	for i := range recs {
		for _, k := range []string{recs[i].URLOriginal, recs[i].NormalizedURL, recs[i].URL, looseKey(recs[i].NormalizedURL, false),
			looseKey(recs[i].NormalizedURL, true)} {
			if k != "" {
				if _, dup := byKey[k]; !dup {
					byKey[k] = &recs[i]
				}
			}
		}
	}
	out := map[string]*record{}
	for _, h := range sp.Hosts {
		for _, c := range h.URLs {
			if r := byKey[c.URL]; r != nil {
				out[c.URL] = r
			} else if r := byKey[looseKey(c.URL, false)]; r != nil {
				out[c.URL] = r
			} else if r := byKey[looseKey(c.URL, true)]; r != nil {
				out[c.URL] = r
			}
		}
	}
	return out
}

// looseKey folds what a normaliser may change: case of the host, a
// trailing slash, the order of query parameters and, with names, their
// values (citegate writes "[REDACTED]" for values that look like
// search terms or secrets).
func looseKey(u string, names bool) string {
	s := strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	path, query, _ := strings.Cut(s, "?")
	hostPart, rest, _ := strings.Cut(path, "/")
	qs := strings.Split(query, "&")
	if names {
		for i, q := range qs {
			qs[i], _, _ = strings.Cut(q, "=")
		}
	}
	sort.Strings(qs)
	tag := "~"
	if names {
		tag = "~names~"
	}
	return tag + strings.ToLower(hostPart) + "/" + strings.TrimSuffix(rest, "/") + "?" + strings.Join(qs, "&")
}
