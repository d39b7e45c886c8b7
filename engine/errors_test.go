package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestErrorEnvelopes: every expected failure is an *Error with the
// reference's code and a details object naming what went wrong, and none
// panics or hangs.
func TestErrorEnvelopes(t *testing.T) {
	type call func(e *Engine, r testRun) error
	extract := func(e *Engine, r testRun) error {
		_, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "test"})
		return err
	}
	run := func(e *Engine, r testRun) error {
		_, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
		return err
	}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, r testRun) testRun // may return a changed run (e.g. manifest path)
		call   call
		code   string
		key    string // a details key that must be present
		value  any    // its value, when not nil
		reason string // substring of the message, when not ""
		big    bool   // skip the before/after snapshot (a 50 MB input)
	}{
		{name: "manifest missing", setup: func(t *testing.T, r testRun) testRun {
			r.Manifest = r.path("nope/manifest.json")
			return r
		}, call: extract, code: CodeNotFound, key: "path", reason: "manifest not found: no file at manifest_path"},
		{name: "relative manifest path", setup: func(t *testing.T, r testRun) testRun {
			r.Manifest = "run/manifest.json"
			return r
		}, call: extract, code: CodeInvalidArgs, key: "manifest_path", value: "run/manifest.json", reason: "must be absolute"},
		{name: "empty manifest path", setup: func(t *testing.T, r testRun) testRun {
			r.Manifest = "  "
			return r
		}, call: run, code: CodeInvalidArgs, key: "manifest_path", reason: "must be non-empty"},
		{name: "empty reason", call: func(e *Engine, r testRun) error {
			_, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: " \t"})
			return err
		}, code: CodeInvalidArgs, reason: "reason must be non-empty"},
		{name: "empty reason (render)", call: func(e *Engine, r testRun) error {
			_, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest})
			return err
		}, code: CodeInvalidArgs, reason: "reason must be non-empty"},
		{name: "relative optional path", call: func(e *Engine, r testRun) error {
			_, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, FoundByPath: "found-by.json", Reason: "x"})
			return err
		}, code: CodeInvalidArgs, key: "found_by_path", value: "found-by.json"},
		{name: "manifest not JSON", setup: func(t *testing.T, r testRun) testRun {
			writeFile(t, r.Manifest, "{\"schema_version\": \"manifest.v1\",")
			return r
		}, call: extract, code: CodeInvalidJSON, key: "path", reason: "manifest unreadable"},
		{name: "manifest schema failure", setup: func(t *testing.T, r testRun) testRun {
			m := readFile(t, r.Manifest)
			writeFile(t, r.Manifest, strings.Replace(m, `"sensitivity": "normal"`, `"sensitivity": "secret"`, 1))
			return r
		}, call: extract, code: CodeSchemaValidation, key: "pointer", value: "/query/sensitivity"},
		{name: "manifest relative root", setup: func(t *testing.T, r testRun) testRun {
			m := readFile(t, r.Manifest)
			writeFile(t, r.Manifest, strings.Replace(m, `"root": "`, `"root": "rel`, 1))
			return r
		}, call: run, code: CodeSchemaValidation, key: "pointer", value: "/artifacts/root"},
		{name: "url-map run_id mismatch", setup: func(t *testing.T, r testRun) testRun {
			writeFile(t, r.cit("url-map.json"), urlMapJSON(t, "OTHER", "https://example.org/a"))
			return r
		}, call: func(e *Engine, r testRun) error {
			_, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "x"}, nil)
			return err
		}, code: CodeSchemaValidation, key: "got", value: "OTHER", reason: "url-map run_id mismatch"},
		{name: "url-map missing", call: func(e *Engine, r testRun) error {
			_, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "x"}, nil)
			return err
		}, code: CodeNotFound, key: "path", reason: "required file missing"},
		{name: "wave-1 missing", setup: func(t *testing.T, r testRun) testRun {
			if err := os.RemoveAll(r.path("wave-1")); err != nil {
				t.Fatal(err)
			}
			return r
		}, call: extract, code: CodeNotFound, key: "wave_dir", value: "wave-1", reason: "wave dir missing"},
		{name: "wave-1 is a file", setup: func(t *testing.T, r testRun) testRun {
			if err := os.RemoveAll(r.path("wave-1")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, r.path("wave-1"), "not a dir")
			return r
		}, call: run, code: CodeNotFound, key: "wave_dir", value: "wave-1"},
		{name: "wave file of binary garbage", setup: func(t *testing.T, r testRun) testRun {
			garbage := make([]byte, 4096)
			for i := range garbage {
				garbage[i] = byte(i*7 + i/13)
			}
			if err := os.WriteFile(r.path("wave-1/garbage.md"), garbage, 0o644); err != nil {
				t.Fatal(err)
			}
			return r
		}, call: extract, code: CodeInvalidInput, key: "path", reason: "not UTF-8"},
		{name: "wave file of invalid UTF-8 without NUL", setup: func(t *testing.T, r testRun) testRun {
			writeFile(t, r.path("wave-1/latin1.md"), "## Sources\n\n- https://example.org/caf\xe9\n")
			return r
		}, call: run, code: CodeInvalidInput, key: "path"},
		{name: "50 MB single-line wave file", setup: func(t *testing.T, r testRun) testRun {
			f, err := os.Create(r.path("wave-1/huge.md"))
			if err != nil {
				t.Fatal(err)
			}
			line := bytes.Repeat([]byte("https://example.org/aaaaaaaa"), 1<<15)
			for n := 0; n < 50<<20; n += len(line) {
				if _, err := f.Write(line); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			return r
		}, call: extract, code: CodeInvalidInput, key: "reason", value: "file exceeds the size cap", big: true},
		{name: "symlink loop as wave dir", setup: func(t *testing.T, r testRun) testRun {
			if err := os.RemoveAll(r.path("wave-1")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("wave-1", r.path("wave-1")); err != nil {
				t.Fatal(err)
			}
			return r
		}, call: extract, code: CodeInvalidInput, key: "reason", value: "symlink loop"},
		{name: "wave dir escapes root", setup: func(t *testing.T, r testRun) testRun {
			m := readFile(t, r.Manifest)
			writeFile(t, r.Manifest, strings.Replace(m, `"wave2_dir": "wave-2"`, `"wave2_dir": "../elsewhere"`, 1))
			return r
		}, call: extract, code: CodeInvalidArgs, key: "wave_dir", value: "wave2_dir"},
		{name: "citations.jsonl malformed line", setup: func(t *testing.T, r testRun) testRun {
			rec := `{"schema_version":"citation.v1","normalized_url":"https://example.org/a","cid":"` + cidOf("https://example.org/a") +
				`","url":"https://example.org/a","url_original":"https://example.org/a","status":"valid","checked_at":"x","found_by":[],"notes":"ok"}`
			writeFile(t, r.cit("citations.jsonl"), rec+"\n"+`{"schema_version":"citation.v1",`+"\n")
			return r
		}, call: func(e *Engine, r testRun) error {
			_, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		}, code: CodeInvalidJSONL, key: "line", value: 2, reason: "citations.jsonl malformed"},
		{name: "citations.jsonl missing", call: func(e *Engine, r testRun) error {
			_, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		}, code: CodeNotFound, key: "path", reason: "citations.jsonl missing"},
		{name: "offline fixtures not JSON", setup: func(t *testing.T, r testRun) testRun {
			writeFile(t, r.path("offline-fixtures.json"), "{items: [")
			m := readFile(t, r.Manifest)
			writeFile(t, r.Manifest, strings.Replace(m, `"sensitivity": "normal"`, `"sensitivity": "no_web"`, 1))
			return r
		}, call: run, code: CodeInvalidJSON, key: "path", reason: "offline fixtures unreadable JSON"},
		{name: "run-config not JSON", setup: func(t *testing.T, r testRun) testRun {
			writeFile(t, r.path("run-config.json"), "nope")
			return r
		}, call: run, code: CodeInvalidJSON, key: "path", reason: "run-config unreadable"},
		{name: "gates.json of another run", setup: func(t *testing.T, r testRun) testRun {
			g := newGatesDoc("OTHER", testNowISO)
			data, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, r.path("gates.json"), string(data))
			return r
		}, call: func(e *Engine, r testRun) error {
			_, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true)}, nil)
			return err
		}, code: CodeSchemaValidation, key: "expected", value: "RUN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Files: map[string]string{
				"wave-1/p1.md": "## Sources\n\n- https://example.org/a\n",
				"wave-2/p2.md": "## Sources\n\n- https://example.org/b\n",
			}})
			if tc.setup != nil {
				r = tc.setup(t, r)
			}
			var before map[string][]byte
			if filepath.IsAbs(r.Manifest) && !tc.big {
				before = snapshot(t, r.Root)
			}
			var err error
			start := time.Now()
			within(t, 20*time.Second, tc.name, func() {
				defer func() {
					if p := recover(); p != nil {
						err = nil
						t.Errorf("panic: %v", p)
					}
				}()
				err = tc.call(newEngine(), r)
			})
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			e := asError(t, err, tc.code)
			if tc.key != "" {
				v, ok := e.Details[tc.key]
				if !ok {
					t.Errorf("details %v lack %q", e.Details, tc.key)
				} else if tc.value != nil && v != tc.value {
					t.Errorf("details[%q] = %#v, want %#v", tc.key, v, tc.value)
				}
			}
			if tc.reason != "" && !strings.Contains(e.Message, tc.reason) {
				t.Errorf("message %q lacks %q", e.Message, tc.reason)
			}
			// The envelope is printable: details is an object, never null.
			env, jerr := json.Marshal(map[string]any{"ok": false, "error": e})
			if jerr != nil || !bytes.Contains(env, []byte(`"details":{`)) {
				t.Errorf("envelope %s (%v)", env, jerr)
			}
			if tc.big {
				if _, err := os.Stat(r.path("citations")); err == nil {
					t.Error("failed call created citations/")
				}
			}
			if before != nil {
				if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
					t.Errorf("failed call changed files: %v", d)
				}
			}
		})
	}
}

// TestWaveFIFOIsSkipped: a FIFO named *.md is not a regular file and is
// skipped without being opened, so extraction neither blocks nor fails.
func TestWaveFIFOIsSkipped(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Files: map[string]string{
		"wave-1/p1.md": "## Sources\n\n- https://example.org/a\n",
	}})
	if err := syscall.Mkfifo(r.path("wave-1/p0-fifo.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkfifo(r.path("wave-1/sub.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res *ExtractResult
	var err error
	within(t, 10*time.Second, "extract with a FIFO", func() {
		res, err = newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "fifo"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalFound != 1 || readFile(t, r.cit("extracted-urls.txt")) != "https://example.org/a\n" {
		t.Errorf("result = %+v", res)
	}
	var doc FoundByDoc
	decodeJSONFile(t, r.cit("found-by.json"), &doc)
	if len(doc.Items) != 1 || doc.Items[0].ArtifactPath != "wave-1/p1.md" {
		t.Errorf("found-by = %+v", doc.Items)
	}
}

// TestSymlinkLoopInsideWaveDir: symlinks inside a wave dir are neither
// followed nor read, so a loop there is harmless.
func TestSymlinkLoopInsideWaveDir(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Files: map[string]string{
		"wave-1/p1.md":     "## Sources\n\n- https://example.org/a\n",
		"wave-1/sub/p2.md": "## Sources\n\n- https://example.org/b\n",
	}})
	for _, l := range [][2]string{{"..", "wave-1/sub/up"}, {"loop.md", "wave-1/loop.md"}, {"p1.md", "wave-1/alias.md"}} {
		if err := os.Symlink(l[0], r.path(l[1])); err != nil {
			t.Fatal(err)
		}
	}
	var res *ExtractResult
	var err error
	within(t, 10*time.Second, "extract with symlink loops", func() {
		res, err = newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "loop"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalFound != 2 || readFile(t, r.cit("extracted-urls.txt")) != "https://example.org/a\nhttps://example.org/b\n" {
		t.Errorf("result = %+v", res)
	}

	// A wave-2 that is a two-link symlink loop is not a directory, and a
	// missing or unusable wave-2 is skipped, as in the reference.
	if err := os.Symlink("wave-2b", r.path("wave-2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("wave-2", r.path("wave-2b")); err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, "extract with a looping wave-2", func() {
		res, err = newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "loop"})
	})
	if err != nil || res.TotalFound != 2 {
		t.Errorf("looping wave-2: %+v, %v", res, err)
	}
}

// TestCancelledBeforeStart: a context cancelled before the run begins gives
// CANCELLED, with or without an events channel, and writes nothing.
func TestCancelledBeforeStart(t *testing.T) {
	for _, withEvents := range []bool{false, true} {
		r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
			"wave-1/p1.md":          "## Sources\n\n- https://example.org/a\n",
			"offline-fixtures.json": `{"https://example.org/a": "valid"}`,
		}})
		before := snapshot(t, r.Root)
		ctx, cancel := context.WithCancel(bg)
		cancel()
		var ch chan Event
		if withEvents {
			ch = make(chan Event)
			go func() {
				for range ch {
				}
			}()
		}
		_, err := newEngine().Run(ctx, RunArgs{ManifestPath: r.Manifest}, ch)
		asError(t, err, CodeCancelled)
		if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
			t.Errorf("events=%v: cancelled run changed files: %v", withEvents, d)
		}
		_, err = newEngine().Extract(ctx, ExtractArgs{ManifestPath: r.Manifest, Reason: "x"})
		asError(t, err, CodeCancelled)
	}
}
