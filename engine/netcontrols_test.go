package engine

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/citegate/citegate/netguard"
)

// TestOperatorNetControls: the operator's allow rules change what preflight
// admits in online mode, and nothing else does.
func TestOperatorNetControls(t *testing.T) {
	tests := []struct {
		name       string
		url        string
		opts       []netguard.Option
		wantStatus Status
		wantNote   string
	}{
		{"private address refused by default", "http://10.1.2.3/wiki/Page", nil, StatusInvalid, "private/local target blocked"},
		{"allow-cidr admits the intranet wiki", "http://10.1.2.3/wiki/Page",
			[]netguard.Option{netguard.AllowCIDR(netip.MustParsePrefix("10.0.0.0/8"))}, StatusBlocked, "dry-run"},
		{"allow-cidr is exact", "http://10.1.2.3/wiki/Page",
			[]netguard.Option{netguard.AllowCIDR(netip.MustParsePrefix("10.9.0.0/16"))}, StatusInvalid, "private/local target blocked"},
		{"domain allowlist refuses other hosts", "https://example.org/a",
			[]netguard.Option{netguard.DomainAllowlist("example.com")}, StatusInvalid, "domain allowlist"},
		{"domain allowlist admits subdomains", "https://docs.example.com/a",
			[]netguard.Option{netguard.DomainAllowlist("example.com")}, StatusBlocked, "dry-run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Files: map[string]string{
				"citations/url-map.json": urlMapJSON(t, "RUN", tt.url),
			}})
			e := newEngine()
			e.GuardOptions = tt.opts
			if _, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "test"}, nil); err != nil {
				t.Fatal(err)
			}
			recs := readCitationLines(t, r.cit("citations.jsonl"))
			if len(recs) != 1 || recs[0].Status != tt.wantStatus || !strings.Contains(recs[0].Notes, tt.wantNote) {
				t.Fatalf("records = %+v, want %s with %q", recs, tt.wantStatus, tt.wantNote)
			}
		})
	}
}
