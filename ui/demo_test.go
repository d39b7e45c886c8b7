package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCopyDemoPointsManifestAtCopy(t *testing.T) {
	fsys := fstest.MapFS{
		"manifest.json":  {Data: []byte(`{"artifacts":{"root":"` + demoRootPlaceholder + `"}}`)},
		"wave-1/p1.md":   {Data: []byte("## Sources\n- https://example.com/\n")},
		"offline-x.json": {Data: []byte(`{}`)},
	}
	dir := filepath.Join(t.TempDir(), "demo")
	d, err := CopyDemo(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), `"root":"`+dir+`"`) {
		t.Errorf("manifest not rewritten: %s", m)
	}
	if _, err := os.Stat(filepath.Join(dir, "wave-1", "p1.md")); err != nil {
		t.Error(err)
	}
	// A second copy into the same, now non-empty, directory is refused.
	if _, err := CopyDemo(fsys, dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("copy into non-empty dir: %v", err)
	}
}
