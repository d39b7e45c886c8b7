package parse

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// checkGolden compares got, as indented JSON, with md's .golden.json
// beside it, or rewrites that file under -update.
func checkGolden(t *testing.T, md string, got any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	golden := strings.TrimSuffix(md, ".md") + ".golden.json"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./parse -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("output differs from %s:\n%s", golden, buf.Bytes())
	}
}
