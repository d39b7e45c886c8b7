package engine

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/ladder"
	"github.com/citegate/citegate/netguard"
)

// policyJSON is a run_policy.v1 document whose ladder block is body.
func policyJSON(body string) string {
	return `{"schema_version":"run_policy.v1","citations_ladder_policy_v1":{` + body + `}}`
}

func writePolicy(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run-config", "policy.json")
	writeFile(t, path, content)
	return path
}

// ladderField reads one key's value out of a LadderPolicy.
func ladderField(p LadderPolicy, key string) float64 {
	switch key {
	case "direct_fetch_timeout_ms":
		return float64(p.DirectFetchTimeoutMS)
	case "endpoint_timeout_ms":
		return float64(p.EndpointTimeoutMS)
	case "max_redirects":
		return float64(p.MaxRedirects)
	case "max_body_bytes":
		return float64(p.MaxBodyBytes)
	case "direct_fetch_max_attempts":
		return float64(p.DirectFetchMaxAttempts)
	case "bright_data_max_attempts":
		return float64(p.BrightDataMaxAttempts)
	case "apify_max_attempts":
		return float64(p.ApifyMaxAttempts)
	case "backoff_initial_ms":
		return float64(p.BackoffInitialMS)
	case "backoff_multiplier":
		return p.BackoffMultiplier
	case "backoff_max_ms":
		return float64(p.BackoffMaxMS)
	}
	panic("unknown ladder key " + key)
}

// Each ladder value at its boundaries (engine/schema/run_policy.v1.json):
// a value in range is used as written, 0 redirects included; one step
// outside is SCHEMA_VALIDATION_FAILED naming the value, where the
// reference (and citegate before issue 12) quietly used the default.
func TestReadPolicyBoundaries(t *testing.T) {
	rows := []struct {
		key               string
		min, max          string
		belowMin, overMax string
	}{
		{"direct_fetch_timeout_ms", "1", "600000", "0", "600001"},
		{"endpoint_timeout_ms", "1", "600000", "0", "600001"},
		{"max_redirects", "0", "20", "-1", "21"},
		{"max_body_bytes", "1", "67108864", "0", "67108865"},
		{"direct_fetch_max_attempts", "1", "10", "0", "11"},
		{"bright_data_max_attempts", "1", "10", "0", "11"},
		{"apify_max_attempts", "1", "10", "0", "11"},
		{"backoff_initial_ms", "1", "60000", "0", "60001"},
		{"backoff_multiplier", "1", "4", "0.5", "4.5"},
		{"backoff_max_ms", "1", "60000", "0", "60001"},
	}
	for _, r := range rows {
		for _, v := range []struct {
			desc, value string
			ok          bool
		}{
			{"min", r.min, true},
			{"max", r.max, true},
			{"below min", r.belowMin, false},
			{"over max", r.overMax, false},
			{"negative", "-3", false},
			{"absurd", "1e12", false},
			{"string", `"5"`, false},
		} {
			t.Run(r.key+"/"+v.desc, func(t *testing.T) {
				path := writePolicy(t, policyJSON(`"`+r.key+`":`+v.value))
				p, source, err := readPolicy(path)
				if v.ok {
					want, _ := strconv.ParseFloat(v.value, 64)
					if err != nil || source != "policy" || ladderField(p, r.key) != want {
						t.Fatalf("%s = %s: %v (%s), %s = %v; want it used", r.key, v.value, err, source, r.key, ladderField(p, r.key))
					}
					// The other keys keep their defaults.
					d := DefaultLadderPolicy()
					for _, other := range rows {
						if other.key != r.key && ladderField(p, other.key) != ladderField(d, other.key) {
							t.Errorf("%s changed to %v", other.key, ladderField(p, other.key))
						}
					}
					return
				}
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeSchemaValidation {
					t.Fatalf("%s = %s: %v, want %s", r.key, v.value, err, CodeSchemaValidation)
				}
				if ptr := e.Details["pointer"]; ptr != "/citations_ladder_policy_v1/"+r.key || e.Details["path"] != path {
					t.Errorf("details %v, want the pointer of %s and the path", e.Details, r.key)
				}
				if !strings.HasPrefix(e.Message, "run-config/policy.json fails run_policy.v1: ") {
					t.Errorf("message %q", e.Message)
				}
			})
		}
	}
}

// What the reference decides about the file as a whole is unchanged: a
// missing file, one that is not JSON and one that is not a run_policy.v1
// object give the defaults and say why, whatever values they hold.
func TestReadPolicyFileLevelFallbacks(t *testing.T) {
	rows := []struct {
		desc, content, source string
	}{
		{"policy", policyJSON(`"direct_fetch_timeout_ms":5000,"max_redirects":5`), "policy"},
		{"keys left out", policyJSON(``), "policy"},
		{"no ladder block", `{"schema_version":"run_policy.v1"}`, "policy"},
		{"unknown ladder key", policyJSON(`"future_knob":3`), "policy"},
		{"not JSON", `{"schema_version":`, "default_invalid_json"},
		{"not an object", `[1,2]`, "default_invalid_schema"},
		{"wrong schema_version", `{"schema_version":"run_policy.v2","citations_ladder_policy_v1":{"max_redirects":-1}}`, "default_invalid_schema"},
		{"no schema_version", `{"citations_ladder_policy_v1":{"max_redirects":-1}}`, "default_invalid_schema"},
	}
	for _, r := range rows {
		t.Run(r.desc, func(t *testing.T) {
			p, source, err := readPolicy(writePolicy(t, r.content))
			if err != nil || source != r.source {
				t.Fatalf("readPolicy = %v, %q; want %q", err, source, r.source)
			}
			if want := DefaultLadderPolicy(); r.source != "policy" && p != want {
				t.Errorf("policy %+v, want the defaults", p)
			}
		})
	}
	p, source, err := readPolicy(filepath.Join(t.TempDir(), "policy.json"))
	if err != nil || source != "default_missing" || p != DefaultLadderPolicy() {
		t.Errorf("missing file: %+v, %q, %v", p, source, err)
	}
	// Broken values that are not ranges are errors too.
	for _, body := range []string{`"max_redirects":2.5`, `"max_redirects":null`, `"max_redirects":1e400`} {
		if _, _, err := readPolicy(writePolicy(t, policyJSON(body))); !errors.As(err, new(*Error)) {
			t.Errorf("%s: %v, want an error", body, err)
		}
	}
	if _, _, err := readPolicy(writePolicy(t, `{"schema_version":"run_policy.v1","citations_ladder_policy_v1":"fast"}`)); !errors.As(err, new(*Error)) {
		t.Errorf("ladder block not an object: %v, want an error", err)
	}
}

// An out-of-range policy stops validate before anything is written, with
// the envelope's SCHEMA_VALIDATION_FAILED; max_redirects 0 is recorded as
// 0 (issue 12: it used to become 5).
func TestValidatePolicyOutOfRange(t *testing.T) {
	spec := func(policy string) runSpec {
		return runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
			"citations/url-map.json": urlMapJSON(t, "RUN", modeURL),
			"offline.json":           modeOfflineFixtures,
			"run-config/policy.json": policy,
		}}
	}
	r := newRun(t, spec(policyJSON(`"max_redirects":-1`)))
	before := snapshot(t, r.Root)
	_, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("offline.json"), Reason: "t"}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeSchemaValidation || e.Details["pointer"] != "/citations_ladder_policy_v1/max_redirects" {
		t.Fatalf("Validate = %v, want %s at /citations_ladder_policy_v1/max_redirects", err, CodeSchemaValidation)
	}
	if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
		t.Errorf("a refused policy changed the run directory: %v", d)
	}

	r = newRun(t, spec(policyJSON(`"max_redirects":0`)))
	res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("offline.json"), Reason: "t"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.LadderPolicy.MaxRedirects != 0 || res.RunPolicySource != "policy" {
		t.Errorf("max_redirects 0 recorded as %d (%s)", res.LadderPolicy.MaxRedirects, res.RunPolicySource)
	}
}

// The policy's max_redirects reaches the run's guard: 0 requests the cited
// URL and never the Location it redirects to, 1 follows it.
func TestPolicyRedirectsReachTheGuard(t *testing.T) {
	var target atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			target.Add(1)
			fmt.Fprint(w, "<title>moved</title>")
			return
		}
		http.Redirect(w, r, "/moved", http.StatusFound)
	}))
	defer srv.Close()
	ap := netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))
	e := newEngine()
	e.GuardOptions = []netguard.Option{netguard.AllowCIDR(netip.PrefixFrom(ap.Addr(), 32)), netguard.AllowPorts(int(ap.Port()))}

	for _, row := range []struct {
		redirects   int
		wantErr     error
		wantReached int32
	}{
		{0, netguard.ErrRedirectLimit, 0},
		{1, nil, 1},
	} {
		target.Store(0)
		p := DefaultLadderPolicy()
		p.MaxRedirects = row.redirects
		resp, err := e.guard(p).Fetch(bg, netguard.Request{URL: srv.URL + "/cited"})
		if !errors.Is(err, row.wantErr) && !(row.wantErr == nil && err == nil) {
			t.Errorf("max_redirects %d: %v, want %v", row.redirects, err, row.wantErr)
		}
		if got := target.Load(); got != row.wantReached {
			t.Errorf("max_redirects %d: Location requested %d times, want %d", row.redirects, got, row.wantReached)
		}
		if resp == nil || len(resp.Hops) != row.redirects+1 {
			t.Errorf("max_redirects %d: response %+v", row.redirects, resp)
		}
	}
}

func TestFetchLimits(t *testing.T) {
	p := DefaultLadderPolicy()
	if got := p.fetchLimits(); got != (netguard.Limits{HopTimeout: 5 * time.Second, MaxRedirects: 5, MaxBodyBytes: 2097152}) {
		t.Errorf("default policy: %+v", got)
	}
	p.MaxRedirects = 0
	if got := p.fetchLimits().MaxRedirects; got != netguard.NoRedirects {
		t.Errorf("max_redirects 0: MaxRedirects %d, want NoRedirects", got)
	}
}

// At the schema's maxima (10 attempts, 60 s start, ×4, 60 s cap) every
// backoff the ladder computes is still a positive wait within the cap: the
// ranges keep initial×multiplier^(attempts-1) ms inside time.Duration.
// (With a multiplier of 9.3 the tenth wait overflows and comes out
// negative, i.e. no wait at all.)
func TestPolicyMaximaKeepBackoffRepresentable(t *testing.T) {
	p := DefaultLadderPolicy()
	p.DirectFetchMaxAttempts, p.BrightDataMaxAttempts, p.ApifyMaxAttempts = 10, 10, 10
	p.BackoffInitialMS, p.BackoffMultiplier, p.BackoffMaxMS = 60000, 4, 60000
	b := ladder.Backoff{InitialMS: p.BackoffInitialMS, Multiplier: p.BackoffMultiplier, MaxMS: p.BackoffMaxMS}
	for a := 1; a <= 10; a++ {
		if d := b.Delay(a); d <= 0 || d > time.Minute {
			t.Errorf("backoff(%d) = %v, want within (0, 1m]", a, d)
		}
	}
}
