package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotFixturesIsRefusedUnquoted (issue 21): a JSON file that is not a
// fixtures file — none of its entries names a URL — is refused, and the
// envelope quotes nothing of it; a fixtures file in any shape, empty ones
// included, is read.
func TestNotFixturesIsRefusedUnquoted(t *testing.T) {
	const secret = "9f8e7d6c5b4a39281706"
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"credentials map", `{"type": "service_account", "private_key_id": "` + secret + `"}`, false},
		{"credentials map with a nested object", `{"private_key_id": "` + secret + `", "extra": {"k": "` + secret + `"}}`, false},
		{"array without URLs", `[{"private_key_id": "` + secret + `"}, {"status": "` + secret + `"}]`, false},
		{"items without URLs", `{"items": [{"token": "` + secret + `"}]}`, false},
		{"array of strings", `["` + secret + `"]`, false},
		{"empty object", `{}`, true},
		{"empty array", `[]`, true},
		{"status map", `{"https://a.example/1": "valid"}`, true},
		{"status map with one stray key", `{"https://a.example/1": "valid", "note": "checked by hand"}`, true},
		{"array of entries", `[{"normalized_url": "https://a.example/1", "status": "valid"}]`, true},
		{"entry by cid", `{"items": [{"cid": "cid_abc", "status": "valid"}]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.json")
			if err := os.WriteFile(path, []byte(tt.doc), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := loadFixtures(path, "offline")
			if (err == nil) != tt.ok {
				t.Fatalf("loadFixtures: %v, want ok=%v", err, tt.ok)
			}
			if err == nil {
				return
			}
			b, _ := json.Marshal(AsError(err))
			if s := string(b); strings.Contains(s, secret) || strings.Contains(s, "private_key_id") || strings.Contains(s, "token") {
				t.Errorf("the refusal quotes the file: %s", s)
			}
			if f != nil {
				t.Error("a set came with the error")
			}
		})
	}
}
