package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/ladder"
	"github.com/citegate/citegate/netguard"
)

// Paths to test fixtures, relative to the engine package directory. The
// reference's conformance data is copied into testdata/reference (see its
// README), so the tests need nothing beside the repository.
const (
	phase04Dir  = "../testdata/reference/phase04"
	demoDir     = "../testdata/demo"
	testdataDir = "../testdata/engine"
	demoRoot    = "/citegate-demo-root"
)

// testNow is the pinned clock of every test engine unless a test says
// otherwise; nowISO renders it as 2026-02-14T12:00:00.123Z.
var testNow = time.Date(2026, 2, 14, 12, 0, 0, 123_000_000, time.UTC)

const (
	testNowISO   = "2026-02-14T12:00:00.123Z"
	testNowToken = "20260214T120000123Z"
	// testUpdatedAt is manifest.updated_at, which becomes checked_at.
	testUpdatedAt = "2026-02-14T00:00:00.000Z"
)

// newEngine returns an engine with the clock pinned to at.
func newEngineAt(at time.Time) *Engine {
	// No engine test may reach real DNS or the network: the guard's resolver
	// and dialer are stubs that refuse, unless a test installs its own.
	return &Engine{Now: func() time.Time { return at }, GuardOptions: []netguard.Option{
		netguard.WithResolver(noDNS{}), netguard.WithDialContext(noDial)}}
}

func newEngine() *Engine { return newEngineAt(testNow) }

// noDNS answers every lookup with NXDOMAIN, except the DNS canaries
// (ladder.DefaultDNSCanaries), which it resolves as an honest resolver
// would: so its NXDOMAIN for a test's host counts as evidence. denyAllDNS
// is the resolver that fails the canary check.
type noDNS struct{}

func (noDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if slices.Contains(ladder.DefaultDNSCanaries, strings.TrimSuffix(host, ".")) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// denyAllDNS answers NXDOMAIN for every name, real ones included: an
// offline sandbox's resolver, or a corporate one that leaves the internet
// to a proxy.
type denyAllDNS struct{}

func (denyAllDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func noDial(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("test engines never dial")
}

// runSpec describes a run directory built in a temp dir.
type runSpec struct {
	// RunID defaults to "RUN".
	RunID string
	// Sensitivity is manifest.query.sensitivity; "" omits the key.
	Sensitivity string
	// UpdatedAt defaults to testUpdatedAt.
	UpdatedAt string
	// RunConfig is the raw run-config.json; "" writes none.
	RunConfig string
	// Flags is query.constraints.deep_research_cli_flags (nil omits it).
	Flags map[string]any
	// Files maps a path relative to the root to its content (wave files,
	// fixtures, pre-existing artifacts).
	Files map[string]string
	// Copy maps a path relative to the root to a source file or directory
	// that is copied there.
	Copy map[string]string
	// ManifestPatch is applied (shallow, per top-level key) to the manifest
	// before it is written; a nil value deletes the key.
	ManifestPatch map[string]any
}

// testRun is a run directory on disk.
type testRun struct {
	Root     string
	Manifest string
}

// path joins rel (slash-separated) onto the root.
func (r testRun) path(rel string) string { return filepath.Join(r.Root, filepath.FromSlash(rel)) }

// cit is the path of a citations/ artifact.
func (r testRun) cit(name string) string { return filepath.Join(r.Root, "citations", name) }

// manifestDoc builds a manifest.v1 document that satisfies origin §1.2.
func manifestDoc(root string, s runSpec) map[string]any {
	runID := cmp.Or(s.RunID, "RUN")
	query := map[string]any{"text": "How do citation validators handle paywalled sources?"}
	constraints := map[string]any{"scope_path": "operator/scope.json"}
	if s.Flags != nil {
		constraints["deep_research_cli_flags"] = s.Flags
	}
	query["constraints"] = constraints
	if s.Sensitivity != "" {
		query["sensitivity"] = s.Sensitivity
	}
	m := map[string]any{
		"schema_version": "manifest.v1",
		"run_id":         runID,
		"created_at":     "2026-02-13T00:00:00.000Z",
		"updated_at":     cmp.Or(s.UpdatedAt, testUpdatedAt),
		"revision":       1,
		"mode":           "standard",
		"status":         "running",
		"query":          query,
		"stage": map[string]any{
			"current": "citations", "started_at": "2026-02-13T00:00:00.000Z", "history": []any{},
		},
		"limits": map[string]any{
			"max_wave1_agents": 6, "max_wave2_agents": 6, "max_summary_kb": 5,
			"max_total_summary_kb": 60, "max_review_iterations": 4,
		},
		"agents": map[string]any{"policy": "existing-runtime-only"},
		"artifacts": map[string]any{
			"root": root,
			"paths": map[string]any{
				"wave1_dir": "wave-1", "wave2_dir": "wave-2", "citations_dir": "citations",
				"summaries_dir": "summaries", "synthesis_dir": "synthesis", "logs_dir": "logs",
				"gates_file": "gates.json", "perspectives_file": "perspectives.json",
				"citations_file": "citations/citations.jsonl", "summary_pack_file": "summaries/summary-pack.json",
				"pivot_file": "pivot.json",
			},
		},
		"metrics":  map[string]any{},
		"failures": []any{},
	}
	for k, v := range s.ManifestPatch {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

// newRun creates a run directory in a fresh temp dir.
func newRun(t *testing.T, s runSpec) testRun {
	t.Helper()
	return newRunIn(t, t.TempDir(), s)
}

// newRunIn creates a run directory at root (which must exist).
func newRunIn(t *testing.T, root string, s runSpec) testRun {
	t.Helper()
	r := testRun{Root: root, Manifest: filepath.Join(root, "manifest.json")}
	data, err := json.MarshalIndent(manifestDoc(root, s), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.Manifest, string(data)+"\n")
	if s.RunConfig != "" {
		writeFile(t, r.path("run-config.json"), s.RunConfig)
	}
	for rel, src := range s.Copy {
		copyTree(t, src, r.path(rel))
	}
	for rel, content := range s.Files {
		writeFile(t, r.path(rel), content)
	}
	return r
}

// runConfig returns a run-config.json with the given citations mode.
func runConfig(runID, mode string) string {
	return `{
  "schema_version": "run_config.v1",
  "run_id": "` + runID + `",
  "created_at": "2026-02-13T00:00:00.000Z",
  "effective": {
    "sensitivity": "normal",
    "citations": {"mode": "` + mode + `", "endpoints": {"brightdata": null, "apify": null}}
  }
}
`
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// copyTree copies a file or a directory tree.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyDemo materializes testdata/demo into a temp dir with artifacts.root
// rewritten, as ui.CopyDemo does.
func copyDemo(t *testing.T) testRun {
	t.Helper()
	root := t.TempDir()
	copyTree(t, demoDir, root)
	r := testRun{Root: root, Manifest: filepath.Join(root, "manifest.json")}
	rootJSON, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	m := readFile(t, r.Manifest)
	if !strings.Contains(m, `"`+demoRoot+`"`) {
		t.Fatalf("demo manifest has no %s placeholder", demoRoot)
	}
	writeFile(t, r.Manifest, strings.ReplaceAll(m, `"`+demoRoot+`"`, string(rootJSON)))
	return r
}

// snapshot reads every regular file under root into a map keyed by the
// slash-separated relative path. Directories are recorded with a "/" suffix
// and nil content, so a file turned into a directory shows up as a change.
func snapshot(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			out[rel+"/"] = nil
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = data
		default:
			out[rel+"@"+d.Type().String()] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffSnapshots lists the paths whose presence or content differs.
func diffSnapshots(a, b map[string][]byte) []string {
	var diff []string
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			diff = append(diff, "-"+k)
		} else if !bytes.Equal(v, w) {
			diff = append(diff, "~"+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, "+"+k)
		}
	}
	slices.Sort(diff)
	return diff
}

// tempFiles returns leftover atomic-write temporaries (.<name>.tmp-*).
func tempFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// asError asserts err is an *Error with the given code.
func asError(t *testing.T, err error, code string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *engine.Error (want %s)", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("error code = %s (%s, details %v), want %s", e.Code, e.Message, e.Details, code)
	}
	if e.Details == nil {
		t.Fatalf("error %s has nil details; the envelope must carry an object", code)
	}
	return e
}

// within fails the test if f does not return in d; it guards tests whose
// failure mode is a hang (FIFOs, symlink loops, huge inputs).
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// mustJSON marshals v (for comparing result structs).
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// readCitationLines decodes citations.jsonl.
func readCitationLines(t *testing.T, path string) []Citation {
	t.Helper()
	var out []Citation
	for _, l := range strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n") {
		if l == "" {
			continue
		}
		var c Citation
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("citations line %q: %v", l, err)
		}
		out = append(out, c)
	}
	return out
}

// decodeJSONFile decodes a JSON artifact into v.
func decodeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readFile(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func ptr[T any](v T) *T { return &v }

var bg = context.Background()

// patchURLMapRunID copies the phase04 url-map fixture with run_id replaced.
func patchedURLMap(t *testing.T, runID string) string {
	t.Helper()
	var doc map[string]any
	decodeJSONFile(t, filepath.Join(phase04Dir, "validate", "url-map.json"), &doc)
	doc["run_id"] = runID
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

// urlMapJSON builds a url_map.v1 document whose items normalize to themselves.
func urlMapJSON(t *testing.T, runID string, urls ...string) string {
	t.Helper()
	doc := URLMapDoc{SchemaVersion: "url_map.v1", RunID: runID, Items: []URLMapItem{}}
	for _, u := range urls {
		doc.Items = append(doc.Items, URLMapItem{URLOriginal: u, NormalizedURL: u, CID: cidOf(u)})
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

// cidOf computes a cid independently of parse.CID: "cid_" + sha256 hex.
func cidOf(normalized string) string {
	sum := sha256.Sum256([]byte(normalized))
	return "cid_" + hex.EncodeToString(sum[:])
}
