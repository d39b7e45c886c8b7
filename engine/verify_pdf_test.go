package engine

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/netguard"
)

// pdfWeb serves PDFs on loopback as http://papers.heat.example/NAME with
// the given content type and returns the guard options that reach it. The
// files are copies of engine/pdftext/testdata (see its README.md):
// oslo-trial.pdf is multipage.pdf, locked-report.pdf encrypted-aes256.pdf.
func pdfWeb(t *testing.T, contentType string) []netguard.Option {
	t.Helper()
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(verifyDir, "pages", filepath.Base(r.URL.Path)))
		if err != nil || r.Host != "papers.heat.example" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}))
	t.Cleanup(web.Close)
	_, p, _ := net.SplitHostPort(web.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	lo := netip.MustParseAddr("127.0.0.1")
	var d net.Dialer
	return []netguard.Option{netguard.AllowCIDR(netip.PrefixFrom(lo, 32)), netguard.AllowPorts(port),
		netguard.Pin("papers.heat.example", 80, lo),
		netguard.WithDialContext(func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			return d.DialContext(ctx, network, net.JoinHostPort(host, p))
		})}
}

// TestVerifyReadsPDFSources: a claim whose support is on page 3 of a PDF
// (FlateDecode, nested page tree, words set by kerning, a rotated page) is
// resolved and judged, not refused as not_text; the PDF's type comes from
// the Content-Type or, under a generic type, from the %PDF- signature. A
// password-protected PDF is an unreadable_pdf error that says so; a PDF
// cut at the body cap is judged on the pages before the cut.
func TestVerifyReadsPDFSources(t *testing.T) {
	claim := "In the Oslo trial the heat pumps kept a seasonal coefficient of performance of 2.7 through the winter of 2024"
	tests := []struct {
		name, contentType, file string
		maxBytes                int
		wantKind                string // resolve error kind; "" = judged
		wantSupported           bool
	}{
		{"application/pdf", "application/pdf", "oslo-trial.pdf", 0, "", true},
		{"pdf served as octet-stream", "application/octet-stream", "oslo-trial.pdf", 0, "", true},
		{"pdf with parameters", "application/pdf; qs=0.001", "oslo-trial.pdf", 0, "", true},
		{"password-protected", "application/pdf", "locked-report.pdf", 0, "unreadable_pdf", false},
		// Cut inside page 3: pages 1 and 2 are read, page 3's sentence is
		// gone, so the claim is not supported (and nothing panics).
		{"cut at the body cap", "application/pdf", "oslo-trial.pdf", 2000, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine()
			e.GuardOptions = pdfWeb(t, tt.contentType)
			out := []byte(claim + " [1].\n\n## Sources\n\n1. http://papers.heat.example/" + tt.file + "\n")
			res, err := e.Verify(context.Background(), out, verify.Args{Model: "lexical", AllowFetch: true, PerSourceMaxBytes: tt.maxBytes})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Citations) != 1 {
				t.Fatalf("citations: %+v", res.Citations)
			}
			c := res.Citations[0]
			if c.Source == nil || !strings.Contains(c.Source.ContentType, strings.Split(tt.contentType, ";")[0]) {
				t.Errorf("source %+v", c.Source)
			}
			if tt.wantKind != "" {
				if c.ResolveError == nil || c.ResolveError.Kind != tt.wantKind || c.Judge != nil {
					t.Fatalf("got %+v / %+v, want resolve error %s", c.ResolveError, c.Judge, tt.wantKind)
				}
				if !strings.Contains(c.ResolveError.Message, "encrypted") {
					t.Errorf("message %q does not say why", c.ResolveError.Message)
				}
				return
			}
			if c.ResolveStatus != "ok" || c.Judge == nil {
				t.Fatalf("not judged: status %s, error %+v", c.ResolveStatus, c.ResolveError)
			}
			if c.Judge.Supported != tt.wantSupported {
				t.Errorf("supported = %v, want %v (%s)", c.Judge.Supported, tt.wantSupported, c.Judge.Rationale)
			}
			if tt.maxBytes > 0 && !c.Source.Truncated {
				t.Errorf("source not marked truncated: %+v", c.Source)
			}
		})
	}
}
