package verify

import (
	"net/http"
	"testing"

	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/parse"
)

// TestPlanBatches: claims are grouped by target only for a judge that can
// batch, only the claims verify fetches count, and a source cited once is
// no batch. The lexical judge and MiniCheck are never batched.
func TestPlanBatches(t *testing.T) {
	todo := []parse.Citation{
		{Target: "http://a.example/", Claim: "a1"},
		{Target: "http://b.example/", Claim: "b1"},
		{Target: "http://a.example/", Claim: "a2"},
		{Target: "http://c.example/", Claim: "c1"},
		{Target: "http://c.example/", Claim: "c2 (not fetched)"},
		{Target: "http://a.example/", Claim: "a3"},
	}
	fetched := func(c parse.Citation) bool { return c.Claim != "c2 (not fetched)" }
	client := &http.Client{}
	for _, tc := range []struct {
		name  string
		cfg   judge.Config
		batch bool
	}{
		{"openai-compatible", judge.Config{Model: "local", Provider: judge.ProviderOpenAICompatible, BaseURL: "http://127.0.0.1:8080", Client: client}, true},
		{"lexical", judge.Config{Model: "lexical"}, false},
		{"minicheck", judge.Config{Model: "bespoke-minicheck", Provider: judge.ProviderOpenAICompatible, BaseURL: "http://127.0.0.1:8080", Client: client}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Getenv = func(string) string { return "" }
			j, err := judge.New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			p := planBatches(j, todo, fetched)
			if !tc.batch {
				if p.bj != nil || len(p.claims) != 0 {
					t.Errorf("%s: batched %v", tc.name, p.claims)
				}
				return
			}
			if len(p.claims) != 1 || len(p.claims["http://a.example/"]) != 3 || p.claims["http://a.example/"][2] != "a3" {
				t.Errorf("plan %v, want a1 a2 a3 on http://a.example/ only", p.claims)
			}
		})
	}
}
