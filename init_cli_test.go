package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/ui/cli"
)

// initEnvelope is the part of init's stdout envelope these tests read.
type initEnvelope struct {
	OK          bool
	WaveFiles   []string `json:"wave_files"`
	Replaced    []string `json:"replaced"`
	ReplacedDir string   `json:"replaced_dir"`
	Warnings    []string `json:"warnings"`
	Error       struct{ Code string }
}

func decodeInit(t *testing.T, out string) initEnvelope {
	t.Helper()
	var env initEnvelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("init printed no envelope: %v\n%s", err, out)
	}
	return env
}

// nineWaves writes old1.md … old9.md in the working directory, each citing
// one URL, and returns their names.
func nineWaves(t *testing.T) []string {
	t.Helper()
	var names []string
	for i := 1; i <= 9; i++ {
		name := fmt.Sprintf("old%d.md", i)
		body := fmt.Sprintf("# Old %d\n\n## Sources\n- https://old.example/%d\n", i, i)
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// The rows for init, as a user meets them on the command line.
func TestInitCLIKeepsTheRunsPromises(t *testing.T) {
	t.Chdir(t.TempDir())
	old := nineWaves(t)
	if err := os.WriteFile("new.md", []byte("# New\n\n## Sources\n- https://new.example/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"init", "myrun", "--fixtures-template", "--waves"}, old...)
	if code, out, errOut := invoke(t, args...); code != cli.ExitOK {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := invoke(t, "run", "myrun", "--headless"); code != cli.ExitOK {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}

	t.Run("init --force on a locked run directory", func(t *testing.T) {
		abs, _ := filepath.Abs("myrun")
		lock, err := fsx.LockDir(abs)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Unlock()
		before, _ := os.ReadFile(filepath.Join("myrun", "manifest.json"))
		code, out, _ := invoke(t, "init", "myrun", "--force", "--waves", "new.md")
		after, _ := os.ReadFile(filepath.Join("myrun", "manifest.json"))
		if env := decodeInit(t, out); code != cli.ExitFailure || env.Error.Code != "RUN_LOCKED" || string(before) != string(after) {
			t.Errorf("exit %d, %s", code, out)
		}
		if _, err := os.Stat(filepath.Join("myrun", "wave-1", "new.md")); err == nil {
			t.Error("init under the lock wrote a wave file")
		}
	})

	t.Run("init --force over the old run", func(t *testing.T) {
		code, out, errOut := invoke(t, "init", "myrun", "--force", "--fixtures-template", "--waves", "new.md")
		env := decodeInit(t, out)
		if code != cli.ExitOK || len(env.WaveFiles) != 1 || env.ReplacedDir != ".citegate-replaced/1" || len(env.Replaced) < 9 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if !strings.Contains(errOut, "moved the previous run's") || !strings.Contains(errOut, filepath.Join("myrun", ".citegate-replaced", "1")) {
			t.Errorf("stderr does not say where the old run went:\n%s", errOut)
		}
		code, out, errOut = invoke(t, "run", "myrun", "--headless")
		if code != cli.ExitOK || !strings.Contains(out, `"status": "pass"`) || !strings.Contains(out, `"unique_normalized": 1`) {
			t.Errorf("run after init --force: exit %d\n%s\n%s", code, out, errOut)
		}
	})

	t.Run("init --waves DIR names what it skips", func(t *testing.T) {
		if err := os.Mkdir("waves", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename("new.md", filepath.Join("waves", "new.md")); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join("waves", "pipe.md"), 0o644); err != nil {
			t.Fatal(err)
		}
		target, _ := filepath.Abs(old[0])
		if err := os.Symlink(target, filepath.Join("waves", "link.md")); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := invoke(t, "init", "fresh", "--waves", "waves")
		env := decodeInit(t, out)
		if code != cli.ExitOK || len(env.WaveFiles) != 1 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		waves, _ := filepath.Abs("waves")
		for _, want := range []string{
			filepath.Join(waves, "link.md") + ": symlink; not read, its URLs are not extracted",
			filepath.Join(waves, "pipe.md") + ": named pipe (FIFO); not read, its URLs are not extracted",
		} {
			if !strings.Contains(errOut, "citegate: warning: "+want) || !strings.Contains(strings.Join(env.Warnings, "\n"), want) {
				t.Errorf("%q is not in the warnings %v or on stderr:\n%s", want, env.Warnings, errOut)
			}
		}
	})
}
