package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/jsonx"
)

// Conformance tests against origin.md §9 (the reference's test inventory) and
// §10 (fixtures and golden values).

func waveCorpusRun(t *testing.T, s runSpec) testRun {
	t.Helper()
	s.Copy = map[string]string{"": filepath.Join(phase04Dir, "wave-corpus")}
	return newRun(t, s)
}

func TestExtractWaveCorpus(t *testing.T) {
	type fb struct {
		url, wave, pid string
		ordinal        int
	}
	all := []fb{
		{"https://dup.example.com/shared", "wave-1", "p1", 3},
		{"https://dup.example.com/shared", "wave-1", "p2", 2},
		{"https://example.com/a", "wave-1", "p1", 1},
		{"https://example.com/b?utm_source=phase04", "wave-1", "p1", 2},
		{"https://example.com/c", "wave-1", "p2", 1},
		{"https://wave2.example.com/d", "wave-2", "p3", 1},
	}
	for _, tc := range []struct {
		name         string
		includeWave2 *bool
		total, uniq  int
		extracted    string
		foundBy      []fb
		scanned      []string
	}{
		{"default includes wave-2", nil, 6, 5,
			"https://dup.example.com/shared\nhttps://example.com/a\nhttps://example.com/b?utm_source=phase04\nhttps://example.com/c\nhttps://wave2.example.com/d\n",
			all, []string{"wave-1/p1.md", "wave-1/p2.md", "wave-2/p3.md"}},
		{"include_wave2=true", ptr(true), 6, 5,
			"https://dup.example.com/shared\nhttps://example.com/a\nhttps://example.com/b?utm_source=phase04\nhttps://example.com/c\nhttps://wave2.example.com/d\n",
			all, []string{"wave-1/p1.md", "wave-1/p2.md", "wave-2/p3.md"}},
		{"include_wave2=false", ptr(false), 5, 4,
			"https://dup.example.com/shared\nhttps://example.com/a\nhttps://example.com/b?utm_source=phase04\nhttps://example.com/c\n",
			all[:5], []string{"wave-1/p1.md", "wave-1/p2.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waveCorpusRun(t, runSpec{RunID: "RUN"})
			res, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, IncludeWave2: tc.includeWave2, Reason: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK || res.RunID != "RUN" || res.TotalFound != tc.total || res.UniqueFound != tc.uniq {
				t.Errorf("result = %+v, want ok, RUN, total %d, unique %d", res, tc.total, tc.uniq)
			}
			if res.ExtractedURLsPath != r.cit("extracted-urls.txt") || res.FoundByPath != r.cit("found-by.json") {
				t.Errorf("paths = %s, %s", res.ExtractedURLsPath, res.FoundByPath)
			}
			if got := readFile(t, r.cit("extracted-urls.txt")); got != tc.extracted {
				t.Errorf("extracted-urls.txt =\n%s\nwant\n%s", got, tc.extracted)
			}
			var doc FoundByDoc
			decodeJSONFile(t, r.cit("found-by.json"), &doc)
			if doc.SchemaVersion != "found_by.v1" || doc.RunID != "RUN" {
				t.Errorf("found-by header = %q %q", doc.SchemaVersion, doc.RunID)
			}
			var want []FoundByItem
			for _, f := range tc.foundBy {
				want = append(want, FoundByItem{URLOriginal: f.url, Wave: f.wave, PerspectiveID: f.pid,
					SourceLine: "- " + f.url, Ordinal: f.ordinal, ArtifactPath: f.wave + "/" + f.pid + ".md"})
			}
			if !slices.Equal(doc.Items, want) {
				t.Errorf("found-by items =\n%+v\nwant\n%+v", doc.Items, want)
			}
			// The returned digest is the canonical digest of exactly the
			// object origin §3.5 names, with this run's real root.
			realDigest, err := jsonx.Digest(extractDigest{Schema: "citations_extract_urls.inputs.v1", RunID: "RUN",
				IncludeWave2: tc.includeWave2 == nil || *tc.includeWave2, RunRoot: r.Root,
				Wave1Dir: "wave-1", Wave2Dir: "wave-2", ScannedFiles: tc.scanned})
			if err != nil {
				t.Fatal(err)
			}
			if res.InputsDigest != realDigest {
				t.Errorf("inputs_digest = %s, want %s", res.InputsDigest, realDigest)
			}
			// The found-by file's artifact paths are the scanned files (every
			// corpus file has sources).
			var scanned []string
			for _, it := range doc.Items {
				if !slices.Contains(scanned, it.ArtifactPath) {
					scanned = append(scanned, it.ArtifactPath)
				}
			}
			slices.Sort(scanned)
			if !slices.Equal(scanned, tc.scanned) {
				t.Errorf("scanned files = %v, want %v", scanned, tc.scanned)
			}
		})
	}
}

// TestExtractGoldenDigest checks origin §10's golden digest: the same object
// with run_id RUN and run_root /tmp/corpus/run. A root cannot be chosen for a
// real run, so the digest object is built as extract() builds it, and
// TestExtractWaveCorpus asserts that extract() digests that very object.
func TestExtractGoldenDigest(t *testing.T) {
	r := waveCorpusRun(t, runSpec{RunID: "RUN"})
	if _, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	var doc FoundByDoc
	decodeJSONFile(t, r.cit("found-by.json"), &doc)
	var scanned []string
	for _, it := range doc.Items {
		if !slices.Contains(scanned, it.ArtifactPath) {
			scanned = append(scanned, it.ArtifactPath)
		}
	}
	slices.Sort(scanned)
	got, err := jsonx.Digest(extractDigest{Schema: "citations_extract_urls.inputs.v1", RunID: "RUN", IncludeWave2: true,
		RunRoot: "/tmp/corpus/run", Wave1Dir: "wave-1", Wave2Dir: "wave-2", ScannedFiles: scanned})
	if err != nil {
		t.Fatal(err)
	}
	const want = "sha256:e994b3bc0b475cf3b203a814922dc1982016655b555bf40910ba8239cf2a02cf"
	if got != want {
		t.Errorf("golden extract digest = %s, want %s (scanned %v)", got, want, scanned)
	}
	// The digest object's JSON keys are exactly the reference's.
	data, err := jsonx.Marshal(extractDigest{})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	if want := []string{"include_wave2", "run_id", "run_root", "scanned_files", "schema", "wave1_dir", "wave2_dir"}; !slices.Equal(names, want) {
		t.Errorf("digest keys = %v, want %v", names, want)
	}
}

func TestNormalizeFixture(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Copy: map[string]string{
		"citations/extracted-urls.txt": filepath.Join(phase04Dir, "normalize", "extracted-urls.txt"),
	}})
	res, err := newEngine().Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.RunID != "RUN" || res.UniqueNormalized != 3 {
		t.Errorf("result = %+v", res)
	}
	const wantDigest = "sha256:bd461b5fee7deebc47236f1d6cd3367cb030f4d078159d4854f72e1a41c66b56"
	if res.InputsDigest != wantDigest {
		t.Errorf("inputs_digest = %s, want %s", res.InputsDigest, wantDigest)
	}
	want := readFile(t, filepath.Join(phase04Dir, "normalize", "expected-normalized-urls.txt"))
	if got := readFile(t, r.cit("normalized-urls.txt")); got != want {
		t.Errorf("normalized-urls.txt =\n%s\nwant\n%s", got, want)
	}
	var doc URLMapDoc
	decodeJSONFile(t, r.cit("url-map.json"), &doc)
	if doc.SchemaVersion != "url_map.v1" || doc.RunID != "RUN" {
		t.Errorf("url-map header = %q %q", doc.SchemaVersion, doc.RunID)
	}
	const (
		dir   = "http://example.com/dir"
		path  = "https://example.com/path?a=1&b=2"
		trail = "https://example.com/trailing"
	)
	wantItems := []URLMapItem{
		{"http://example.com:80/dir/?fbclid=zzz", dir, cidOf(dir)},
		{"http://example.com/dir", dir, cidOf(dir)},
		{"https://Example.com:443/path/?b=2&a=1&utm_source=abc#frag", path, cidOf(path)},
		{"https://example.com/path?a=1&b=2", path, cidOf(path)},
		{"https://example.com/trailing", trail, cidOf(trail)},
		{"https://example.com/trailing/", trail, cidOf(trail)},
	}
	if !slices.Equal(doc.Items, wantItems) {
		t.Errorf("url-map items =\n%+v\nwant\n%+v", doc.Items, wantItems)
	}
	// origin §4.2's abbreviated cids.
	for u, c := range map[string][2]string{dir: {"cid_95ae7442", "16bb8"}, path: {"cid_94ab2087", "a7df0c"}, trail: {"cid_9fdb6f21", "746c8f"}} {
		if got := cidOf(u); !strings.HasPrefix(got, c[0]) || !strings.HasSuffix(got, c[1]) {
			t.Errorf("cid(%s) = %s, want %s…%s", u, got, c[0], c[1])
		}
	}
	// The url-map file is pretty-printed JSON with the reference key order.
	wantFile := "{\n  \"schema_version\": \"url_map.v1\",\n  \"run_id\": \"RUN\",\n  \"items\": [\n    {\n      \"url_original\": \"http://example.com:80/dir/?fbclid=zzz\",\n      \"normalized_url\": \"http://example.com/dir\",\n      \"cid\": \"" + cidOf(dir) + "\"\n    },"
	if got := readFile(t, r.cit("url-map.json")); !strings.HasPrefix(got, wantFile) || !strings.HasSuffix(got, "\n  ]\n}\n") {
		t.Errorf("url-map.json layout:\n%s", got)
	}
}

func TestValidateOfflineFixture(t *testing.T) {
	r := newRun(t, runSpec{RunID: "dr_test_validate", Sensitivity: "no_web", Files: map[string]string{
		"citations/url-map.json": patchedURLMap(t, "dr_test_validate"),
	}})
	fixtures := filepath.Join(phase04Dir, "validate", "url-checks.json")
	fixturesAbs, err := filepath.Abs(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: fixturesAbs, Reason: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ModeOffline || res.ModeSource != "manifest.query.sensitivity" || res.Validated != 3 {
		t.Errorf("result mode=%s source=%s validated=%d", res.Mode, res.ModeSource, res.Validated)
	}
	if res.OnlineDryRun != nil || res.OnlineDryRunSource != nil || res.OnlineFixturesPath != nil ||
		res.OnlineFixturesLatestPath != nil || res.BlockedURLsPath != nil || res.BlockedURLsQueuePath != nil ||
		res.OnlineFixturesCount != 0 || res.BlockedURLsCount != 0 {
		t.Errorf("offline result carries online fields: %s", mustJSON(t, res))
	}
	if res.Counts != (Counts{Valid: 1, Paywalled: 1, Invalid: 1}) {
		t.Errorf("counts = %+v", res.Counts)
	}
	recs := readCitationLines(t, r.cit("citations.jsonl"))
	var order []string
	paywalled := 0
	for _, c := range recs {
		order = append(order, c.NormalizedURL)
		if c.Status == StatusPaywalled {
			paywalled++
		}
	}
	if want := []string{"https://example.com/dead", "https://example.com/open", "https://paywall.example.com/premium"}; !slices.Equal(order, want) {
		t.Errorf("record order = %v, want %v", order, want)
	}
	if paywalled != 1 {
		t.Errorf("paywalled records = %d, want 1", paywalled)
	}
	lines := strings.Split(readFile(t, r.cit("citations.jsonl")), "\n")
	wantDead := `{"schema_version":"citation.v1","normalized_url":"https://example.com/dead","cid":"cid_6210bee52fd785ae11c7083ffc988ef12f8197ac7ec0f1de2cf064de3cfc75c6","url":"https://example.com/dead","url_original":"https://example.com/dead","status":"invalid","checked_at":"` + testUpdatedAt + `","found_by":[],"notes":"404","http_status":404}`
	if lines[0] != wantDead {
		t.Errorf("dead record =\n%s\nwant\n%s", lines[0], wantDead)
	}
	wantOpen := `{"schema_version":"citation.v1","normalized_url":"https://example.com/open","cid":"cid_c670cd0eb843b54f7bf606819590ba27f769b0fbbaa2a5b44ca776f536daea44","url":"https://example.com/open","url_original":"https://example.com/open","status":"valid","checked_at":"` + testUpdatedAt + `","found_by":[],"notes":"ok","title":"Open Example","publisher":"Example News"}`
	if lines[1] != wantOpen {
		t.Errorf("open record =\n%s\nwant\n%s", lines[1], wantOpen)
	}
	if len(lines) != 4 || lines[3] != "" {
		t.Errorf("citations.jsonl must be 3 lines with a trailing newline, got %q", lines)
	}
}

func TestValidateOfflineRequiresFixtures(t *testing.T) {
	r := newRun(t, runSpec{RunID: "dr_test_validate", Sensitivity: "no_web", Files: map[string]string{
		"citations/url-map.json": patchedURLMap(t, "dr_test_validate"),
	}})
	before := snapshot(t, r.Root)
	_, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, Reason: "test"}, nil)
	e := asError(t, err, CodeInvalidArgs)
	if e.Message != "offline_fixtures_path required in OFFLINE mode" || e.Details["mode"] != "offline" ||
		e.Details["mode_source"] != "manifest.query.sensitivity" {
		t.Errorf("error = %s %v", e.Message, e.Details)
	}
	if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
		t.Errorf("failed validate changed files: %v", d)
	}
}

func TestValidateOnlineBlocksPrivateTarget(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Files: map[string]string{
		"citations/url-map.json": urlMapJSON(t, "RUN", "http://127.0.0.1/private"),
	}})
	res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ModeOnline || res.Validated != 1 || res.OnlineDryRun == nil || !*res.OnlineDryRun ||
		res.OnlineDryRunSource == nil || *res.OnlineDryRunSource != "arg.online_dry_run" {
		t.Errorf("result = %s", mustJSON(t, res))
	}
	recs := readCitationLines(t, r.cit("citations.jsonl"))
	if len(recs) != 1 || recs[0].Status != StatusInvalid ||
		!strings.Contains(recs[0].Notes, "private/local target blocked by SSRF policy") {
		t.Fatalf("records = %+v", recs)
	}
	// Preflight precedes dry-run: an invalid record, not a blocked one.
	if res.BlockedURLsCount != 0 || res.BlockedURLsQueuePath != nil {
		t.Errorf("blocked = %d, queue %v", res.BlockedURLsCount, res.BlockedURLsQueuePath)
	}
}

// TestValidateOnlineFixtureReplay is origin §9's capture-and-replay test and
// the repro canary: replaying the capture gives byte-identical citations.
func TestValidateOnlineFixtureReplay(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", UpdatedAt: "2020-01-01T00:00:00.000Z", Files: map[string]string{
		"citations/url-map.json": urlMapJSON(t, "RUN", "https://example.org/article"),
	}})
	fixtures, err := filepath.Abs(filepath.Join(phase04Dir, "validate", "online-ladder-fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	first := r.cit("citations.first.jsonl")
	res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, CitationsPath: first,
		OnlineFixturesPath: fixtures, OnlineDryRun: ptr(false), Reason: "capture"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ModeOnline || *res.OnlineDryRun || res.Validated != 1 || res.OnlineFixturesCount != 1 || res.BlockedURLsCount != 0 {
		t.Errorf("result = %s", mustJSON(t, res))
	}
	recs := readCitationLines(t, first)
	if len(recs) != 1 || recs[0].Status != StatusValid || !strings.Contains(recs[0].Notes, "online ladder: bright_data") ||
		strings.Contains(recs[0].Notes, "online stub") || recs[0].CheckedAt != "2020-01-01T00:00:00.000Z" ||
		recs[0].Title != "Fixture Article" || recs[0].Publisher != "Fixture Publisher" {
		t.Fatalf("records = %+v", recs)
	}
	capture := r.cit("online-fixtures." + testNowToken + ".json")
	if res.OnlineFixturesPath == nil || *res.OnlineFixturesPath != capture {
		t.Fatalf("online_fixtures_path = %v, want %s", res.OnlineFixturesPath, capture)
	}
	var cap struct {
		SchemaVersion            string  `json:"schema_version"`
		RunID                    string  `json:"run_id"`
		GeneratedAt              string  `json:"generated_at"`
		SourceOnlineFixturesPath *string `json:"source_online_fixtures_path"`
		OnlineDryRun             bool    `json:"online_dry_run"`
		EffectiveConfig          struct {
			Mode         string `json:"mode"`
			OnlineDryRun bool   `json:"online_dry_run"`
		} `json:"effective_config"`
		Items []map[string]any `json:"items"`
	}
	decodeJSONFile(t, capture, &cap)
	if cap.SchemaVersion != "online_fixtures.v1" || cap.RunID != "RUN" || cap.GeneratedAt != testNowISO ||
		cap.SourceOnlineFixturesPath == nil || *cap.SourceOnlineFixturesPath != fixtures || cap.OnlineDryRun ||
		cap.EffectiveConfig.Mode != "online" || cap.EffectiveConfig.OnlineDryRun || len(cap.Items) != 1 ||
		cap.Items[0]["status"] != "valid" {
		t.Errorf("capture = %+v", cap)
	}
	var latest map[string]string
	decodeJSONFile(t, r.cit("online-fixtures.latest.json"), &latest)
	if latest["schema_version"] != "online_fixtures.latest.v1" || latest["path"] != capture ||
		latest["ts"] != testNowToken || latest["updated_at"] != testNowISO || res.OnlineFixturesLatestPath == nil ||
		*res.OnlineFixturesLatestPath != r.cit("online-fixtures.latest.json") {
		t.Errorf("latest = %v", latest)
	}
	var blocked struct {
		SchemaVersion string `json:"schema_version"`
		Items         []any  `json:"items"`
	}
	decodeJSONFile(t, r.cit("blocked-urls.json"), &blocked)
	if blocked.SchemaVersion != "blocked_urls.v1" || blocked.Items == nil || len(blocked.Items) != 0 {
		t.Errorf("blocked-urls = %+v", blocked)
	}

	// Replay the capture, at another time, into another file.
	replay := r.cit("citations.replay.jsonl")
	res2, err := newEngineAt(testNow.Add(3600e9)).Validate(bg, ValidateArgs{ManifestPath: r.Manifest, CitationsPath: replay,
		OnlineFixturesPath: capture, OnlineDryRun: ptr(false), Reason: "replay"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := readFile(t, first), readFile(t, replay); a != b {
		t.Errorf("replay differs:\n%s\n%s", a, b)
	}
	if res2.Counts != (Counts{Valid: 1}) {
		t.Errorf("replay counts = %+v", res2.Counts)
	}
	// The replay's own capture is item-for-item the first capture.
	var cap2 struct {
		Items []map[string]any `json:"items"`
	}
	decodeJSONFile(t, *res2.OnlineFixturesPath, &cap2)
	if mustJSON(t, cap2.Items) != mustJSON(t, cap.Items) {
		t.Errorf("replay capture items differ:\n%v\n%v", cap2.Items, cap.Items)
	}
}

const blockedQueueFoundBy = `{
  "schema_version": "found_by.v1",
  "run_id": "RUN",
  "items": [
    {"url_original": "https://a.example/path", "wave": "wave-2", "perspective_id": "alpha", "source_line": "- https://a.example/path", "ordinal": 1},
    {"url_original": "https://b.example/path", "wave": "wave-1", "perspective_id": "beta", "source_line": "- https://b.example/path", "ordinal": 1}
  ]
}
`

func TestValidateBlockedQueue(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Files: map[string]string{
		"citations/url-map.json":  urlMapJSON(t, "RUN", "https://b.example/path", "https://a.example/path"),
		"citations/found-by.json": blockedQueueFoundBy,
	}})
	res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.BlockedURLsCount != 2 || res.BlockedURLsQueuePath == nil || *res.BlockedURLsQueuePath != r.cit("blocked-urls.queue.md") {
		t.Fatalf("result = %s", mustJSON(t, res))
	}
	var blocked struct {
		GeneratedAt string `json:"generated_at"`
		Items       []struct {
			NormalizedURL string `json:"normalized_url"`
			Action        string `json:"action"`
		} `json:"items"`
	}
	decodeJSONFile(t, r.cit("blocked-urls.json"), &blocked)
	if len(blocked.Items) != 2 || blocked.Items[0].NormalizedURL != "https://a.example/path" ||
		blocked.Items[1].NormalizedURL != "https://b.example/path" ||
		blocked.Items[0].Action != "Run with online_dry_run=false or provide online fixtures replay input." {
		t.Errorf("blocked-urls items = %+v", blocked.Items)
	}
	queue := readFile(t, r.cit("blocked-urls.queue.md"))
	for _, line := range []string{
		"# Blocked URLs Queue",
		"generated_at: " + blocked.GeneratedAt,
		"blocked_count: 2",
		"## 1. https://a.example/path",
		"## 2. https://b.example/path",
		"- reason: online ladder blocked: direct_fetch=skipped(dry-run); bright_data=skipped(dry-run); apify=skipped(dry-run)",
		"- recommended_action: Run with online_dry_run=false or provide online fixtures replay input.",
		"  - file: wave-2/alpha.md",
		"    line: - https://a.example/path",
		"    perspective: alpha",
	} {
		if !slices.Contains(strings.Split(queue, "\n"), line) {
			t.Errorf("queue lacks line %q:\n%s", line, queue)
		}
	}
	wantQueue := "# Blocked URLs Queue\ngenerated_at: " + testNowISO + "\nblocked_count: 2\n\n" +
		"## 1. https://a.example/path\n- normalized_url: https://a.example/path\n" +
		"- reason: " + dryRunNotes + "\n" +
		"- recommended_action: Run with online_dry_run=false or provide online fixtures replay input.\n" +
		"- found_by:\n  - file: wave-2/alpha.md\n    line: - https://a.example/path\n    perspective: alpha\n    wave: 2\n\n" +
		"## 2. https://b.example/path\n- normalized_url: https://b.example/path\n" +
		"- reason: " + dryRunNotes + "\n" +
		"- recommended_action: Run with online_dry_run=false or provide online fixtures replay input.\n" +
		"- found_by:\n  - file: wave-1/beta.md\n    line: - https://b.example/path\n    perspective: beta\n    wave: 1\n"
	if queue != wantQueue {
		t.Errorf("queue =\n%s\nwant\n%s", queue, wantQueue)
	}

	// A later run with nothing blocked removes the stale queue (origin §11
	// item 23 is fixed here).
	writeFile(t, r.path("all-valid.json"), `{"https://a.example/path": "valid", "https://b.example/path": "valid"}`)
	res, err = newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineFixturesPath: r.path("all-valid.json"),
		OnlineDryRun: ptr(true), Reason: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.BlockedURLsCount != 0 || res.BlockedURLsQueuePath != nil || res.Counts != (Counts{Valid: 2}) {
		t.Errorf("second result = %s", mustJSON(t, res))
	}
	if got := snapshot(t, r.Root); got["citations/blocked-urls.queue.md"] != nil {
		t.Errorf("stale blocked-urls.queue.md was not removed")
	}
}

const renderFixtureMD = "# Validated Citations\n\nRun ID: RUN\nRendered: 3\n" +
	"Synthesis may cite: 3 (valid 2, paywalled 1 with caution)\n" +
	"Synthesis must not cite: 0 (none)\n\n" +
	"## cid_2dce0a4c50441bfccfa9caf4b58c3cba6e06c420505dd829f0436de1aa44baac\n- URL: https://example.com/a\n- Status: valid\n- Synthesis: may cite\n- Title: A Example\n- Publisher: Example Org\n\n" +
	"## cid_c670cd0eb843b54f7bf606819590ba27f769b0fbbaa2a5b44ca776f536daea44\n- URL: https://example.com/open\n- Status: valid\n- Synthesis: may cite\n- Title: Open Example\n- Publisher: Open Publisher\n\n" +
	"## cid_c71202c119c0d2e9fc984b25ad56c2f462ee25fb38fde503a7cbc1d8ea0a3e38\n- URL: https://paywall.example.com/premium\n- Status: paywalled — **caution**\n- Synthesis: may cite with **caution** (paywalled: content behind an access barrier, claims could not be fully checked)\n- Title: Premium Report\n- Publisher: Paywall Times\n\n"

func TestRenderFixture(t *testing.T) {
	// Records are given in reverse order: render sorts them.
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(phase04Dir, "render", "citations.jsonl"))), "\n")
	slices.Reverse(lines)
	r := newRun(t, runSpec{RunID: "RUN", Files: map[string]string{"citations/citations.jsonl": strings.Join(lines, "\n") + "\n"}})
	res, err := newEngine().Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Rendered != 3 || res.OutputMDPath != r.cit("validated-citations.md") || !strings.HasPrefix(res.InputsDigest, "sha256:") {
		t.Errorf("result = %+v", res)
	}
	md := readFile(t, r.cit("validated-citations.md"))
	if md != renderFixtureMD {
		t.Errorf("validated-citations.md =\n%s\nwant\n%s", md, renderFixtureMD)
	}
	a, open, pay := strings.Index(md, cidOf("https://example.com/a")), strings.Index(md, "https://example.com/open"),
		strings.Index(md, "paywall.example.com/premium")
	if a < 0 || open < 0 || pay < 0 || a >= open || open >= pay {
		t.Errorf("order a=%d open=%d paywall=%d", a, open, pay)
	}
	for _, s := range []string{"Open Example", "Paywall Times", "paywalled"} {
		if !strings.Contains(md, s) {
			t.Errorf("report lacks %q", s)
		}
	}
}

func TestRenderMustNotCite(t *testing.T) {
	rec := func(u string, st Status) string {
		return fmt.Sprintf(`{"schema_version":"citation.v1","normalized_url":%q,"cid":%q,"url":%q,"url_original":%q,"status":%q,"checked_at":"2026-02-14T00:00:00.000Z","found_by":[],"notes":"n"}`,
			u, cidOf(u), u, u, st)
	}
	body := strings.Join([]string{
		rec("https://e.example/valid", StatusValid), rec("https://e.example/paywalled", StatusPaywalled),
		rec("https://e.example/blocked", StatusBlocked), rec("https://e.example/mismatch", StatusMismatch),
		rec("https://e.example/invalid", StatusInvalid),
	}, "\n") + "\n"
	r := newRun(t, runSpec{RunID: "RUN", Files: map[string]string{"citations/citations.jsonl": body}})
	if _, err := newEngine().Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, r.cit("validated-citations.md"))
	for _, want := range []string{
		"Synthesis may cite: 2 (valid 1, paywalled 1 with caution)\n",
		"Synthesis must not cite: 3 (1 invalid, 1 blocked, 1 mismatch)\n",
		"- URL: https://e.example/blocked\n- Status: blocked\n- Synthesis: must NOT cite (blocked)\n",
		"- URL: https://e.example/invalid\n- Status: invalid\n- Synthesis: must NOT cite (invalid)\n",
		"- URL: https://e.example/mismatch\n- Status: mismatch\n- Synthesis: must NOT cite (mismatch)\n",
		"- URL: https://e.example/paywalled\n- Status: paywalled — **caution**\n- Synthesis: may cite with **caution**",
		"- URL: https://e.example/valid\n- Status: valid\n- Synthesis: may cite\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "must NOT cite"); n != 3 {
		t.Errorf("must NOT cite appears %d times, want 3", n)
	}
	if n := strings.Count(md, "caution**\n"); n != 1 {
		t.Errorf("caution status marker appears %d times, want 1", n)
	}
}
