package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// demoRootPlaceholder is artifacts.root in the embedded demo manifest; it is
// replaced by the directory the demo is copied to.
const demoRootPlaceholder = "/citegate-demo-root"

// DemoRun is a materialized copy of the embedded demo.
type DemoRun struct {
	Root string // absolute run directory
	Path string // its manifest.json
}

// CopyDemo copies the demo run into dir (a new temp dir when empty) and
// points its manifest at that directory. dir must not exist or be empty, so a
// demo never overwrites someone's files.
func CopyDemo(demo fs.FS, dir string) (DemoRun, error) {
	var err error
	if dir == "" {
		if dir, err = os.MkdirTemp("", "citegate-demo-"); err != nil {
			return DemoRun{}, err
		}
	} else {
		if dir, err = filepath.Abs(dir); err != nil {
			return DemoRun{}, err
		}
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			return DemoRun{}, fmt.Errorf("demo directory %s is not empty", dir)
		}
	}
	rootJSON, err := json.Marshal(dir)
	if err != nil {
		return DemoRun{}, err
	}
	err = fs.WalkDir(demo, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(demo, p)
		if err != nil {
			return err
		}
		if p == "manifest.json" {
			data = bytes.ReplaceAll(data, []byte(`"`+demoRootPlaceholder+`"`), rootJSON)
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return DemoRun{}, err
	}
	return DemoRun{Root: dir, Path: filepath.Join(dir, "manifest.json")}, nil
}
