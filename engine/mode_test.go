package engine

import (
	"strings"
	"testing"
)

// Mode selection follows seed 000, not the reference: run-config.json's
// effective.citations.mode first, then manifest.query.sensitivity (no_web →
// offline, restricted and normal → online), never the process environment.

const (
	modeURL             = "https://example.org/article"
	modeOfflineFixtures = `{"https://example.org/article": {"status": "valid", "notes": "offline-ok"}}`
	modeOnlineFixtures  = `{"items": [{"normalized_url": "https://example.org/article", "status": "valid", "notes": "online-ok"}]}`
)

func TestModeSelection(t *testing.T) {
	for _, tc := range []struct {
		name        string
		sensitivity string
		rcMode      string // "" → no run-config.json
		dryArg      *bool
		env         bool
		mode        string
		modeSource  string
		dryRun      *bool
		dryRunSrc   string
		notes       string
	}{
		{"no_web → offline", "no_web", "", nil, false,
			ModeOffline, "manifest.query.sensitivity", nil, "", "offline-ok"},
		{"restricted → online", "restricted", "", nil, false,
			ModeOnline, "manifest.query.sensitivity", ptr(false), "run-config.effective.citations", "online-ok; online ladder: fixture"},
		{"normal → online", "normal", "", nil, false,
			ModeOnline, "manifest.query.sensitivity", ptr(false), "run-config.effective.citations", "online-ok; online ladder: fixture"},
		{"no sensitivity, no run-config → online", "", "", nil, false,
			ModeOnline, "unset", ptr(false), "run-config.effective.citations", "online-ok; online ladder: fixture"},
		{"run-config offline beats normal", "normal", "offline", nil, false,
			ModeOffline, "run-config.effective.citations", nil, "", "offline-ok"},
		{"run-config online beats no_web", "no_web", "online", nil, false,
			ModeOnline, "run-config.effective.citations", ptr(false), "run-config.effective.citations", "online-ok; online ladder: fixture"},
		{"run-config dry_run → online with dry-run", "no_web", "dry_run", nil, false,
			ModeOnline, "run-config.effective.citations", ptr(true), "run-config.effective.citations", "online-ok; online ladder: fixture"},
		{"dry-run arg beats run-config dry_run", "normal", "dry_run", ptr(false), false,
			ModeOnline, "run-config.effective.citations", ptr(false), "arg.online_dry_run", "online-ok; online ladder: fixture"},
		{"dry-run arg ignored offline", "no_web", "", ptr(true), false,
			ModeOffline, "manifest.query.sensitivity", nil, "", "offline-ok"},
		{"env NO_WEB ignored (normal stays online)", "normal", "", nil, true,
			ModeOnline, "manifest.query.sensitivity", ptr(false), "run-config.effective.citations", "online-ok; online ladder: fixture"},
		{"env NO_WEB ignored (run-config online stays online)", "", "online", nil, true,
			ModeOnline, "run-config.effective.citations", ptr(false), "run-config.effective.citations", "online-ok; online ladder: fixture"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env {
				t.Setenv("PAI_DR_CLI_NO_WEB", "1")
				t.Setenv("PAI_DR_NO_WEB", "1")
			}
			s := runSpec{RunID: "RUN", Sensitivity: tc.sensitivity, Files: map[string]string{
				"citations/url-map.json": urlMapJSON(t, "RUN", modeURL),
				"offline.json":           modeOfflineFixtures,
				"online.json":            modeOnlineFixtures,
			}}
			if tc.rcMode != "" {
				s.RunConfig = runConfig("RUN", tc.rcMode)
			}
			r := newRun(t, s)
			res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("offline.json"),
				OnlineFixturesPath: r.path("online.json"), OnlineDryRun: tc.dryArg, Reason: "mode"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != tc.mode || res.ModeSource != tc.modeSource {
				t.Errorf("mode = %s (%s), want %s (%s)", res.Mode, res.ModeSource, tc.mode, tc.modeSource)
			}
			if (res.OnlineDryRun == nil) != (tc.dryRun == nil) || (tc.dryRun != nil && *res.OnlineDryRun != *tc.dryRun) {
				t.Errorf("online_dry_run = %s, want %v", mustJSON(t, res.OnlineDryRun), mustJSON(t, tc.dryRun))
			}
			if tc.dryRun != nil && (res.OnlineDryRunSource == nil || *res.OnlineDryRunSource != tc.dryRunSrc) {
				t.Errorf("online_dry_run_source = %s, want %s", mustJSON(t, res.OnlineDryRunSource), tc.dryRunSrc)
			}
			recs := readCitationLines(t, r.cit("citations.jsonl"))
			if len(recs) != 1 || recs[0].Notes != tc.notes || recs[0].Status != StatusValid {
				t.Errorf("records = %+v, want notes %q", recs, tc.notes)
			}
			// Offline writes no online side artifacts; online always does.
			_, hasLatest := snapshot(t, r.Root)["citations/online-fixtures.latest.json"]
			if hasLatest != (tc.mode == ModeOnline) {
				t.Errorf("online-fixtures.latest.json present = %v in mode %s", hasLatest, tc.mode)
			}
		})
	}
}

// TestModeRunConfigDryRunBlocks: run-config "dry_run" without fixtures marks
// every URL blocked with the dry-run trail, through the whole pipeline.
func TestModeRunConfigDryRunBlocks(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", RunConfig: runConfig("RUN", "dry_run"), Files: map[string]string{
		"wave-1/p1.md": "## Sources\n\n- https://example.org/article\n",
	}})
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Mode != ModeOnline || sum.OnlineDryRun == nil || !*sum.OnlineDryRun || sum.Counts != (Counts{Blocked: 1}) ||
		sum.GateC.Status != "fail" || sum.Artifacts.BlockedURLsQueue == nil {
		t.Errorf("summary = %s", mustJSON(t, sum))
	}
	recs := readCitationLines(t, r.cit("citations.jsonl"))
	if len(recs) != 1 || recs[0].Notes != dryRunNotes {
		t.Errorf("records = %+v", recs)
	}
}

// TestOnlineWithoutFixtureNotImplemented: a URL that would need the live
// ladder is refused, and nothing at all is written, by both entry points.
// TestOnlineLiveLadderRunsOffline: without fixtures or dry-run, online mode
// runs the live ladder. Test engines resolve nothing (NXDOMAIN), so the
// unreplayed URL is a definitive dead name, the replayed one keeps its
// fixture, and restricted sensitivity changes nothing for a dead name.
func TestOnlineLiveLadderRunsOffline(t *testing.T) {
	for _, sens := range []string{"normal", "restricted"} {
		t.Run(sens, func(t *testing.T) {
			r := newRun(t, runSpec{RunID: "RUN", Sensitivity: sens, Files: map[string]string{
				"wave-1/p1.md":           "## Sources\n\n- https://example.org/article\n- https://example.org/other\n",
				"citations/url-map.json": urlMapJSON(t, "RUN", "https://example.org/other", modeURL),
				"online.json":            modeOnlineFixtures,
			}})
			if _, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineFixturesPath: r.path("online.json"), Reason: "x"}, nil); err != nil {
				t.Fatal(err)
			}
			recs := readCitationLines(t, r.cit("citations.jsonl"))
			byURL := map[string]Citation{}
			for _, c := range recs {
				byURL[c.NormalizedURL] = c
			}
			dead := byURL["https://example.org/other"]
			if dead.Status != StatusInvalid || !strings.Contains(dead.Notes, `no such host [dns-nxdomain]: host "example.org"`) || dead.CheckedAt == testUpdatedAt {
				t.Errorf("live-checked record = %+v (checked_at must be the real check time)", dead)
			}
			if byURL[modeURL].Status != StatusValid {
				t.Errorf("replayed record = %+v", byURL[modeURL])
			}
		})
	}
}
