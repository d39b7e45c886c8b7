package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hugeReason is issue 21's 120 KB reason.
var hugeReason = "because " + strings.Repeat("x", 120_000)

// TestReasonOverTheCapIsRefused (issue 21): a reason over MaxReasonRunes is
// INVALID_ARGS for every tool and for run, nothing is written and the
// envelope does not echo it; one at the cap (counted in characters, not
// bytes) is stored whole.
func TestReasonOverTheCapIsRefused(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Copy: map[string]string{"": secretsCorpus}})
	e := newEngine()
	audit := r.path("logs/audit.jsonl")
	calls := map[string]func(reason string) error{
		"extract": func(reason string) error {
			_, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: reason})
			return err
		},
		"normalize": func(reason string) error {
			_, err := e.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, Reason: reason})
			return err
		},
		"validate": func(reason string) error {
			_, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, Reason: reason}, nil)
			return err
		},
		"gate-c": func(reason string) error {
			_, err := e.GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: reason, Write: true})
			return err
		},
		"render": func(reason string) error {
			_, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: reason})
			return err
		},
		"run": func(reason string) error {
			_, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest, Reason: reason}, nil)
			return err
		},
	}
	for name, call := range calls {
		for _, reason := range []string{hugeReason, strings.Repeat("é", MaxReasonRunes+1)} {
			err := call(reason)
			var ee *Error
			if !errors.As(err, &ee) || ee.Code != CodeInvalidArgs || !strings.Contains(ee.Message, "at most 1000 characters") {
				t.Fatalf("%s with a %d-byte reason: %v", name, len(reason), err)
			}
			if js := mustJSON(t, AsError(err)); len(js) > 400 || strings.Contains(js, "xxxx") || strings.Contains(js, "éé") {
				t.Errorf("%s: the envelope echoes the reason (%d bytes): %.300s", name, len(js), js)
			}
		}
	}
	if _, err := os.Stat(audit); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused calls wrote %s: %v", audit, err)
	}
	if _, err := os.Stat(r.cit("extracted-urls.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused call wrote artifacts: %v", err)
	}
	atCap := strings.Repeat("é", MaxReasonRunes) // 2,000 bytes, 1,000 characters
	if err := calls["extract"](atCap); err != nil {
		t.Fatalf("extract with a reason at the cap: %v", err)
	}
	if a := readFile(t, audit); !strings.Contains(a, `"reason":"`+atCap+`"`) {
		t.Errorf("the reason at the cap is not stored whole:\n%.300s", a)
	}
}

// TestErrorEnvelopeCapsEchoedText (issue 21): a 120 KB path comes back in
// an error's details cut to MaxEchoBytes ("…" at the end, valid UTF-8), not
// whole; the message is capped too.
func TestErrorEnvelopeCapsEchoedText(t *testing.T) {
	long := "/" + strings.Repeat("é", 60_000) + "/manifest.json"
	for name, call := range map[string]func() error{
		"missing manifest": func() error {
			_, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: long, Reason: "r"})
			return err
		},
		"relative manifest": func() error {
			_, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: long[1:], Reason: "r"})
			return err
		},
		"long message": func() error {
			return newError(CodeInvalidInput, "bad: "+long, map[string]any{"paths": []string{long, "short"}, "line": 3})
		},
		"unexpected error": func() error { return errors.New("open " + long + ": file name too long") },
	} {
		err := call()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		e := AsError(err)
		if len(e.Message) > MaxMessageBytes+len("…") || !utf8.ValidString(e.Message) {
			t.Errorf("%s: message of %d bytes", name, len(e.Message))
		}
		echoed := 0
		for k, v := range e.Details {
			strs, _ := v.([]string)
			if s, ok := v.(string); ok {
				strs = append(strs, s)
			}
			for _, s := range strs {
				if len(s) > MaxEchoBytes+len("…") || !utf8.ValidString(s) {
					t.Errorf("%s: details[%s] of %d bytes", name, k, len(s))
				}
				if strings.HasSuffix(s, "…") {
					echoed++
				}
			}
		}
		if js := mustJSON(t, e); len(js) > 4096 || echoed == 0 && !strings.HasSuffix(e.Message, "…") {
			t.Errorf("%s: envelope of %d bytes, %d capped details: %.200s", name, len(js), echoed, js)
		}
	}
	// Short details pass untouched, and the same error value is returned.
	short := newError(CodeNotFound, "manifest_path missing", map[string]any{"path": filepath.Join("/", "x")})
	if AsError(short) != short {
		t.Error("an error with nothing to cap was copied")
	}
}
