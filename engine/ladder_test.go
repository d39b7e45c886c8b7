package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/simweb"
)

const (
	simBDKey    = "bd-key-SECRET-91c2"
	simBDZone   = "unlocker_zone1"
	simApifyTok = "apify-SECRET-77aa"
)

// simRun builds an online run citing every simweb scenario, at a tier.
func simRun(t *testing.T, w *simweb.Web, tier string) testRun {
	t.Helper()
	var src strings.Builder
	src.WriteString("# Perspective sim\n\n## Sources\n\n")
	for _, sc := range w.Catalogue() {
		fmt.Fprintf(&src, "- [%s](%s)\n", sc.LinkText, sc.URL)
	}
	return newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Files: map[string]string{
		"wave-1/sim.md": src.String(),
		"run-config.json": `{"schema_version":"run_config.v1","run_id":"RUN","effective":{"citations":` +
			`{"mode":"online","validation_tier":"` + tier + `","endpoints":{"brightdata":null,"apify":null}}}}`,
		// Short limits keep the test fast: the slow host (2 s) times out.
		"run-config/policy.json": `{"schema_version":"run_policy.v1","citations_ladder_policy_v1":{` +
			`"direct_fetch_timeout_ms":600,"endpoint_timeout_ms":3000,"direct_fetch_max_attempts":2,` +
			`"bright_data_max_attempts":1,"apify_max_attempts":1,"backoff_initial_ms":20,"backoff_max_ms":200}}`,
	}})
}

func simEngine(w *simweb.Web) *Engine {
	e := newEngine()
	e.GuardOptions = w.GuardOptions()
	env := map[string]string{"BRIGHTDATA_API_KEY": simBDKey, "BRIGHTDATA_UNLOCKER_ZONE": simBDZone, "APIFY_TOKEN": simApifyTok}
	e.Net = Network{Getenv: func(k string) string { return env[k] }, BrightDataURL: w.LoopbackBaseURL(),
		ApifyURL: w.LoopbackBaseURL(), PerHost: 4, HostInterval: 0}
	return e
}

// TestLadderAgainstSimulatedWeb runs the whole online pipeline over the
// simulated web at two tiers and asserts every scenario's status and the
// rung that settled it, that nothing secret reached a provider or a file,
// and that replaying the capture reproduces citations.jsonl.
func TestLadderAgainstSimulatedWeb(t *testing.T) {
	w, err := simweb.Start(simweb.Options{BrightDataKey: simBDKey, BrightDataZone: simBDZone, ApifyToken: simApifyTok})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tier := range []string{simweb.TierStandard, simweb.TierThorough} {
		t.Run(tier, func(t *testing.T) {
			w.Reset()
			r := simRun(t, w, tier)
			sum, err := simEngine(w).Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil)
			if err != nil {
				t.Fatal(err)
			}
			byURL := map[string]Citation{}
			for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
				byURL[c.URLOriginal] = c
			}
			for _, sc := range w.Catalogue() {
				key := sc.URL
				if strings.Contains(key, simweb.SecretToken) {
					key = strings.ReplaceAll(key, simweb.SecretToken, "%5BREDACTED%5D")
				}
				c, ok := byURL[key]
				if !ok {
					t.Errorf("%s: no record for %s", sc.Name, key)
					continue
				}
				if want := sc.Want[tier]; string(c.Status) != want {
					t.Errorf("%s: status %s, want %s (notes %q)", sc.Name, c.Status, want, c.Notes)
				}
				if sc.WantRung != "" && !strings.Contains(c.Notes, "online ladder: "+sc.WantRung) {
					t.Errorf("%s: settled by the wrong rung: notes %q, want %s", sc.Name, c.Notes, sc.WantRung)
				}
				if c.Status == StatusBlocked && (!strings.Contains(c.Notes, "direct_fetch=failed") || !strings.Contains(c.Notes, "bright_data=") || !strings.Contains(c.Notes, "apify=")) {
					t.Errorf("%s: blocked notes do not list every rung: %q", sc.Name, c.Notes)
				}
				if c.CheckedAt == testUpdatedAt {
					t.Errorf("%s: checked_at is the manifest's, not the check time", sc.Name)
				}
			}
			for _, target := range w.ProviderTargets() {
				if strings.Contains(target, simweb.SecretToken) || strings.Contains(target, "members.example.com") {
					t.Errorf("a credential-bearing URL was sent to a third party: %s", target)
				}
			}
			// No secret (URL token or provider credential) in any file.
			_ = filepath.WalkDir(r.Root, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || strings.HasSuffix(p, ".md") && strings.Contains(p, "wave-1") {
					return err
				}
				data, _ := os.ReadFile(p)
				for _, s := range []string{simweb.SecretToken, simBDKey, simApifyTok} {
					if strings.Contains(string(data), s) {
						t.Errorf("%s contains the secret %q", p, s)
					}
				}
				return nil
			})
			// Replaying the capture gives the same citations with no network.
			if sum.Artifacts.OnlineFixtures == nil {
				t.Fatal("no capture written")
			}
			first := readFile(t, r.cit("citations.jsonl"))
			// The replaying engine admits the simulated hosts but cannot dial.
			replayer := newEngine()
			replayer.GuardOptions = append(w.GuardOptions(), replayer.GuardOptions...)
			w.Reset()
			if _, err := replayer.Validate(context.Background(), ValidateArgs{ManifestPath: r.Manifest,
				OnlineFixturesPath: *sum.Artifacts.OnlineFixtures, Reason: "replay"}, nil); err != nil {
				t.Fatal(err)
			}
			if replay := readFile(t, r.cit("citations.jsonl")); replay != first {
				t.Errorf("replay differs from the live run:\n%s\n---\n%s", first, replay)
			}
			for _, h := range w.Hosts() {
				if n := w.Requests(h); n != 0 {
					t.Errorf("replay sent %d requests to %s", n, h)
				}
			}
		})
	}
}
