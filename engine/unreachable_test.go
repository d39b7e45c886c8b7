package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/citegate/citegate/netguard"
)

// downDNS is a resolver with no network: every lookup fails to reach the
// name server (not NXDOMAIN, which would be an answer).
type downDNS struct{}

func (downDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "dial udp 10.255.255.53:53: connect: network is unreachable", Name: host, IsTemporary: true}
}

// downDial fails every connect, as a machine without a route does.
func downDial(_ context.Context, network, _ string) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}
}

// downGuard is a guard on a machine without network.
func downGuard() []netguard.Option {
	return []netguard.Option{netguard.WithResolver(downDNS{}), netguard.WithDialContext(downDial)}
}

// fastPolicy retries the direct rung once, quickly.
const fastPolicy = `{"schema_version":"run_policy.v1","citations_ladder_policy_v1":{` +
	`"direct_fetch_max_attempts":2,"backoff_initial_ms":1,"backoff_max_ms":2}}`

// offlineNetRun is an online run citing live URLs (names, and an IP literal
// that skips DNS), and settled URLs: nine replayed from online fixtures.
func offlineNetRun(t *testing.T) testRun {
	t.Helper()
	live := []string{"https://live.example.com/a", "http://93.184.216.34/b"}
	var replay, cites []string
	for i := range 18 {
		u := fmt.Sprintf("https://settled.example.org/%d", i)
		replay = append(replay, fmt.Sprintf("%q: \"valid\"", u))
		cites = append(cites, "- "+u)
	}
	for _, u := range live {
		cites = append(cites, "- "+u)
	}
	return newRun(t, runSpec{Sensitivity: "normal", RunConfig: runConfig("RUN", "online"), Files: map[string]string{
		"wave-1/p1.md":           "# P\n\n## Sources\n" + strings.Join(cites, "\n") + "\n",
		"online.json":            "{" + strings.Join(replay, ", ") + "}",
		"run-config/policy.json": fastPolicy,
	}})
}

// With no network, every direct fetch fails at DNS or connect. The run says
// "network unreachable" once (an event, the summary's warnings), is marked
// not checked (Gate C fails with NETWORK_UNREACHABLE even though 18 of 20
// URLs were settled from fixtures, enough to pass), and does not send the
// user to a provider.
func TestNetworkUnreachableIsNotAPass(t *testing.T) {
	r := offlineNetRun(t)
	e := newEngine()
	e.GuardOptions = downGuard()
	sum, events, err := collect(t, e, bg, RunArgs{ManifestPath: r.Manifest, OnlineFixturesPath: r.path("online.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts.Blocked != 2 || sum.Counts.Valid != 18 {
		t.Fatalf("counts %+v", sum.Counts)
	}
	if sum.Passed() || strings.Join(sum.GateC.Warnings, ",") != "NETWORK_UNREACHABLE" ||
		!strings.HasPrefix(sum.GateC.Notes, "Gate C not checked: network unreachable") {
		t.Errorf("gate C %+v, want a fail marked NETWORK_UNREACHABLE", sum.GateC)
	}
	said := 0
	for _, ev := range events {
		if ev.Kind == EventWarning && strings.Contains(ev.Detail, "network unreachable") {
			said++
		}
	}
	if n := strings.Count(strings.Join(sum.Warnings, "\n"), "network unreachable"); n != 1 || said != 1 {
		t.Errorf("said %d times in the warnings, %d in events; want once each: %q", n, said, sum.Warnings)
	}
	var gates GatesDoc
	if err := json.Unmarshal([]byte(readFile(t, sum.Artifacts.Gates)), &gates); err != nil {
		t.Fatal(err)
	}
	if c := gates.Gates.C; c.Status != "fail" || !strings.Contains(fmt.Sprint(c.Warnings), "NETWORK_UNREACHABLE") {
		t.Errorf("gates.json C %+v", c)
	}
	for _, name := range []string{"blocked-urls.json", "blocked-urls.queue.md"} {
		data := readFile(t, r.cit(name))
		if strings.Contains(data, "Bright Data") || !strings.Contains(strings.ToLower(data), "network unreachable") {
			t.Errorf("%s sends the user to a provider or does not say why:\n%s", name, data)
		}
	}
}

// One host down while another answers is a blocked URL, not a network
// outage: no warning, Gate C as computed, and the blocked action as before.
func TestOneHostDownIsNotNetworkUnreachable(t *testing.T) {
	r := offlineNetRun(t)
	e := newEngine()
	// live.example.com does not resolve at all (the stub's NXDOMAIN: an
	// answer); the IP literal's connect fails.
	e.GuardOptions = []netguard.Option{netguard.WithResolver(noDNS{}), netguard.WithDialContext(downDial)}
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest, OnlineFixturesPath: r.path("online.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(sum.Warnings, "\n"), "network unreachable") || len(sum.GateC.Warnings) != 0 {
		t.Errorf("warnings %q, gate C %+v", sum.Warnings, sum.GateC)
	}
	if sum.Counts.Invalid != 1 || sum.Counts.Blocked != 1 || !sum.Passed() {
		t.Errorf("counts %+v, gate %s", sum.Counts, sum.GateC.Status)
	}
}

// A resolver that answers NXDOMAIN for every name, real ones included (an
// offline sandbox's, a corporate one that leaves the internet to a proxy),
// proves nothing about the cited hosts: the canary check finds it, no
// citation is called invalid, each says why it was not checked, and a run
// that reached nothing says "network unreachable" and is not checked.
func TestResolverThatDeniesEveryNameIsNotEvidence(t *testing.T) {
	r := offlineNetRun(t)
	e := newEngine()
	e.GuardOptions = []netguard.Option{netguard.WithResolver(denyAllDNS{}), netguard.WithDialContext(downDial)}
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest, OnlineFixturesPath: r.path("online.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counts.Invalid != 0 || sum.Counts.Blocked != 2 {
		t.Errorf("counts %+v: want the two live URLs blocked, none invalid", sum.Counts)
	}
	if !strings.Contains(strings.Join(sum.Warnings, "\n"), "network unreachable") || sum.Passed() {
		t.Errorf("warnings %q, gate %s: want network unreachable and not passed", sum.Warnings, sum.GateC.Status)
	}
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		if c.NormalizedURL == "https://live.example.com/a" &&
			!strings.Contains(c.Notes, `the resolver also denies names that exist — "example.com"`) {
			t.Errorf("notes %q: want the canary's evidence", c.Notes)
		}
	}
}

// worldDNS is a private test world's name server: it knows the world's
// hosts and nothing else, not even the public canary names.
type worldDNS map[string]netip.Addr

func (w worldDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := w[strings.TrimSuffix(host, ".")]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// In a private world whose resolver knows the cited hosts but not the
// public canaries, a made-up host's NXDOMAIN is still evidence: another
// cited host resolves, so the resolver tells names apart.
func TestNXDOMAINCountsWhenOtherCitedHostsResolve(t *testing.T) {
	r := newRun(t, runSpec{Sensitivity: "normal", RunConfig: runConfig("RUN", "online"), Files: map[string]string{
		"wave-1/p1.md":           "# P\n\n## Sources\n- https://made-up.example.net/b\n- https://real.example.net/a\n",
		"run-config/policy.json": fastPolicy,
	}})
	e := newEngine()
	e.GuardOptions = []netguard.Option{netguard.WithResolver(worldDNS{"real.example.net": netip.MustParseAddr("93.184.216.34")}),
		netguard.WithDialContext(downDial)}
	if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		if c.NormalizedURL == "https://made-up.example.net/b" && (c.Status != StatusInvalid || !strings.Contains(c.Notes, "[dns-nxdomain]")) {
			t.Errorf("made-up host: %s %q, want invalid by NXDOMAIN", c.Status, c.Notes)
		}
	}
}
