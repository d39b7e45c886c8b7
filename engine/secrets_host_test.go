package engine

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/netguard"
)

// TestHostLabelCredentialsOnline: a credential used as a host label (a
// GitHub token, an OpenAI key, as a subdomain) is redacted in every
// artifact, result and event, lower-cased or not (canonical URLs lower-case
// the host); the URL counts as credentialed: its own site is fetched, no
// provider is sent it, and no answer is cached. The unknown host's 421 page
// echoes the host name, so the page's text is hostile too.
func TestHostLabelCredentialsOnline(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	const (
		markerA = "HOSTLABELA"
		markerB = "HOSTLABELB"
	)
	hostA := "ghp_" + markerA + "0123456789abcdefXYZ.hostlabel.sim" // served: a valid article
	hostB := "docs.sk-proj" + markerB + "0123456789abcdefghijKLMNOPQRSTUV.hostlabel.sim"
	w.AddHost(hostA, 1)
	lines := []string{
		fmt.Sprintf("- [Token host](%s)", w.URL(hostA, "/a/0")),
		fmt.Sprintf("- [Key subdomain](%s) (a site that answers 421)", w.URL(hostB, "/report")),
	}
	r := simRunOpts(t, w, simOpts{scenarios: []string{"news-article"}, extra: lines})
	inputs := snapshot(t, r.Root)
	e := fastSimEngine(w, true)
	// hostB is not simulated: pinned, it answers 421 Misdirected Request,
	// which the ladder would take to a provider.
	e.GuardOptions = append(e.GuardOptions, netguard.Pin(strings.ToLower(hostB), w.Port(), netip.MustParseAddr("127.0.0.1")))
	e.Net.CacheDir = filepath.Join(t.TempDir(), "cache")
	sum, events, err := collect(t, e, bg, RunArgs{ManifestPath: r.Manifest, Reason: "host labels"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Artifacts.BlockedURLsQueue == nil {
		t.Error("no blocked-urls queue: the 421 host was not blocked")
	} else if q := readFile(t, *sum.Artifacts.BlockedURLsQueue); !strings.Contains(q, "redacted.hostlabel.sim") {
		t.Errorf("the blocked-urls queue does not list the redacted host:\n%s", q)
	}
	if w.Requests(hostA) == 0 || w.Requests(hostB) == 0 {
		t.Errorf("the cited hosts were not fetched directly: %d, %d requests", w.Requests(hostA), w.Requests(hostB))
	}
	if got := w.ProviderTargets(); len(got) != 0 {
		t.Errorf("providers were sent %d targets", len(got))
	}
	for _, h := range []string{simweb.BrightDataHost, simweb.ApifyHost} {
		if n := w.Requests(h); n != 0 {
			t.Errorf("%s received %d requests", h, n)
		}
	}
	redacted := 0
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		if !strings.Contains(c.URLOriginal, "hostlabel.sim") {
			continue
		}
		redacted++
		// Both are hrefs: the host, placeholder included, is lower-cased.
		if !strings.Contains(c.URLOriginal, "redacted.hostlabel.sim") || !strings.Contains(c.NormalizedURL, "redacted.hostlabel.sim") {
			t.Errorf("record %s / %s shows no redacted host", c.URLOriginal, c.NormalizedURL)
		}
		if strings.Contains(c.URLOriginal, "/report") &&
			(c.Status != StatusBlocked || !strings.Contains(c.Notes, "bright_data=skipped(URL carried credentials; never sent to a third party)")) {
			t.Errorf("421 record %s %q, want blocked with the providers withheld", c.Status, c.Notes)
		}
	}
	if redacted != 2 {
		t.Errorf("%d records of the token hosts, want 2", redacted)
	}
	// Only the ordinary article is cached.
	if files, _ := os.ReadDir(e.Net.CacheDir); len(files) != 1 {
		t.Errorf("cache holds %d entries, want 1 (the ordinary article)", len(files))
	}
	assertNoMarkers(t, []string{markerA, markerB}, inputs, snapshot(t, r.Root), snapshot(t, e.Net.CacheDir), mustJSON(t, sum)+mustJSON(t, events))
}

// assertNoMarkers checks, ignoring case, that no output file (inputs left
// out) and no text holds a marker.
func assertNoMarkers(t *testing.T, markers []string, inputs map[string][]byte, outputs map[string][]byte, more ...any) {
	t.Helper()
	outputs = mergeSnapshots(outputs, more...)
	checked := 0
	for path, data := range outputs {
		if _, in := inputs[path]; in {
			continue
		}
		checked++
		low := bytes.ToLower(data)
		for _, m := range markers {
			if bytes.Contains(low, []byte(strings.ToLower(m))) {
				t.Errorf("%s contains %q", path, m)
			}
		}
	}
	if checked < 8 {
		t.Errorf("only %d outputs checked", checked)
	}
}

// mergeSnapshots adds further snapshots (map[string][]byte) and texts
// (string, named "text N") to outputs.
func mergeSnapshots(outputs map[string][]byte, more ...any) map[string][]byte {
	all := make(map[string][]byte, len(outputs))
	for k, v := range outputs {
		all[k] = v
	}
	for i, m := range more {
		switch m := m.(type) {
		case map[string][]byte:
			for k, v := range m {
				all[k] = v
			}
		case string:
			all[fmt.Sprintf("text %d", i)] = []byte(m)
		}
	}
	return all
}
