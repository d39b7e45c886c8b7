package netguard

import (
	"encoding/csv"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"code.dny.dev/ssrf"
)

// The second independent source: IANA's special-purpose address registries
// themselves, as the CSV files IANA publishes (testdata/iana/, origin and
// date in its README.md). They are newer than code.dny.dev/ssrf v0.3.0 and
// include what ssrf's generator leaves out: the blocks outside 2000::/3
// (64:ff9b:1::/48, 100:0:0:1::/64, 5f00::/16, …) and the "Globally
// Reachable" column, which says where blocking is a choice rather than a
// rule. Every row that is not globally reachable (False, N/A, or terminated)
// must be blocked, except where an embedded rule (addr_sample_test.go) lets
// the IPv4 address inside decide; every row that is globally reachable must
// be admitted unless ianaBlockedAnyway lists it.

// ianaRow is one block of a registry row (a row may name several).
type ianaRow struct {
	prefix     netip.Prefix
	name       string
	reachable  string // "True", "False", "N/A"; "" for a terminated row
	terminated bool
}

// ianaFootnote is a reference like " [2]" that IANA appends to a cell.
var ianaFootnote = regexp.MustCompile(`\s*\[\d+\]`)

func readIANA(t *testing.T, file string) []ianaRow {
	t.Helper()
	f, err := os.Open("testdata/iana/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	col := map[string]int{}
	for i, h := range records[0] {
		col[h] = i
	}
	for _, h := range []string{"Address Block", "Name", "Termination Date", "Globally Reachable"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("%s: no %q column", file, h)
		}
	}
	var rows []ianaRow
	for _, rec := range records[1:] {
		cell := func(h string) string { return strings.TrimSpace(ianaFootnote.ReplaceAllString(rec[col[h]], "")) }
		r := ianaRow{name: cell("Name"), reachable: cell("Globally Reachable")}
		r.terminated = cell("Termination Date") != "N/A"
		if !r.terminated && r.reachable != "True" && r.reachable != "False" && r.reachable != "N/A" {
			t.Fatalf("%s: %s: Globally Reachable %q", file, cell("Address Block"), r.reachable)
		}
		for _, s := range strings.Split(cell("Address Block"), ",") {
			r.prefix = netip.MustParsePrefix(strings.TrimSpace(s))
			rows = append(rows, r)
		}
	}
	return rows
}

func ianaRows(t *testing.T) []ianaRow {
	t.Helper()
	return append(readIANA(t, "iana-ipv4-special-registry-1.csv"), readIANA(t, "iana-ipv6-special-registry-1.csv")...)
}

// ianaAdditions are ranges netguard blocks that are in neither registry.
var ianaAdditions = []listedRange{
	// IANA lists multicast in its own registry (IPv4 Multicast Address
	// Space, RFC 5771), not among the special-purpose blocks; ssrf adds it
	// for the same reason. IPv6 multicast (ff00::/8) is outside 2000::/3.
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	// An ordinary-looking public address (see ssrfAdditions).
	{netip.MustParsePrefix("168.63.129.16/32"), "Azure WireServer (cloud metadata)"},
}

// ianaBlockedAnyway are the rows IANA marks globally reachable that
// netguard blocks all the same: anycast service addresses, tunnelling and
// DNS sink blocks and overlay identifiers. They are reachable, but no web
// page lives there, so a citation resolving there is refused; a deny costs
// nothing (addr.go). 64:ff9b::/96, also globally reachable, is not here:
// an embedded rule judges it.
var ianaBlockedAnyway = []listedRange{
	{netip.MustParsePrefix("192.0.0.9/32"), "Port Control Protocol anycast"},
	{netip.MustParsePrefix("192.0.0.10/32"), "TURN anycast"},
	{netip.MustParsePrefix("192.31.196.0/24"), "AS112-v4"},
	{netip.MustParsePrefix("192.52.193.0/24"), "AMT"},
	{netip.MustParsePrefix("192.175.48.0/24"), "AS112 direct delegation"},
	{netip.MustParsePrefix("2001:1::1/128"), "Port Control Protocol anycast"},
	{netip.MustParsePrefix("2001:1::2/128"), "TURN anycast"},
	{netip.MustParsePrefix("2001:1::3/128"), "DNS-SD Service Registration Protocol anycast"},
	{netip.MustParsePrefix("2001:3::/32"), "AMT"},
	{netip.MustParsePrefix("2001:4:112::/48"), "AS112-v6"},
	{netip.MustParsePrefix("2001:20::/28"), "ORCHIDv2"},
	{netip.MustParsePrefix("2001:30::/28"), "Drone Remote ID entity tags"},
	{netip.MustParsePrefix("2620:4f:8000::/48"), "AS112 direct delegation"},
}

func listed(list []listedRange, p netip.Prefix) bool {
	return slices.ContainsFunc(list, func(x listedRange) bool { return x.prefix == p })
}

// mostSpecific is the row that decides a: the longest prefix containing it.
func mostSpecific(rows []ianaRow, a netip.Addr) (ianaRow, bool) {
	var best ianaRow
	found := false
	for _, r := range rows {
		if r.prefix.Contains(a) && (!found || r.prefix.Bits() > best.prefix.Bits()) {
			best, found = r, true
		}
	}
	return best, found
}

// ianaVerdict is what the registries imply for a, with the listed
// differences: the deciding row blocks a unless it is globally reachable
// and not in ianaBlockedAnyway; outside every row, only ianaAdditions block.
func ianaVerdict(rows []ianaRow) func(netip.Addr) bool {
	return func(a netip.Addr) bool {
		r, ok := mostSpecific(rows, a)
		if !ok {
			return slices.ContainsFunc(ianaAdditions, func(x listedRange) bool { return x.prefix.Contains(a) })
		}
		if r.reachable == "True" {
			return listed(ianaBlockedAnyway, r.prefix)
		}
		return true
	}
}

// The copy in testdata is the registry ssrf was generated from, or a later
// one: every block ssrf took from it is still there, and nothing is cut off.
func TestIANARegistryFilesAgreeWithSSRF(t *testing.T) {
	rows := ianaRows(t)
	var v4, v6 int
	has := map[netip.Prefix]bool{}
	for _, r := range rows {
		has[r.prefix] = true
		if r.prefix.Addr().Is4() {
			v4++
		} else {
			v6++
		}
	}
	// The registries as of the snapshot: 25 IPv4 rows naming 26 blocks,
	// 25 IPv6 rows.
	if v4 != 26 || v6 != 25 {
		t.Errorf("blocks: %d IPv4, %d IPv6; want 26 and 25 (a truncated or edited copy?)", v4, v6)
	}
	for _, p := range append(slices.Clone(ssrf.IPv4DeniedPrefixes), ssrf.IPv6DeniedPrefixes...) {
		if !has[p] && p != netip.MustParsePrefix("224.0.0.0/4") { // ssrfgen adds multicast itself
			t.Errorf("ssrf v0.3.0 took %s from the registry; the copy in testdata lacks it", p)
		}
	}
}

// Every block of both registries is sampled (network address, last
// address, a few inside), with every IPv6 form of each IPv4 sample, and
// netguard's verdict must be the registries'.
func TestClassifierMatchesIANARegistries(t *testing.T) {
	rows := ianaRows(t)
	verdict := ianaVerdict(rows)
	check := func(what string, a netip.Addr) {
		t.Helper()
		want, rule := expectWith(a, verdict, verdict)
		if got := blocked(a); got != want {
			if rule == "" {
				rule = "no exception applies"
			}
			t.Errorf("%s: netguard blocked(%s) = %v, the registries imply %v (%s)", what, a, got, want, rule)
		}
	}
	rng := newSampler()
	for _, r := range rows {
		what := r.prefix.String() + " " + r.name
		for _, a := range samples(r.prefix, rng, 8) {
			check(what, a)
			if a.Is4() {
				for _, f := range embeddings(a) {
					check(f.name+" form, "+what, f.addr)
				}
			}
		}
	}
	// The embedded-form blocks again, densely: their verdict depends on
	// the bits inside.
	for _, r := range embeddedRules {
		for range 1000 {
			check("sweep of "+r.prefix.String(), randomIn(r.prefix, rng))
		}
	}
}

// The other direction: each entry of netguard's tables is a registry block
// (or inside one) or a listed addition, and every listed exception is
// still needed.
func TestClassifierTablesCoveredByIANA(t *testing.T) {
	rows := ianaRows(t)
	var regs []netip.Prefix
	reachable := map[netip.Prefix]bool{}
	for _, r := range rows {
		regs = append(regs, r.prefix)
		reachable[r.prefix] = r.reachable == "True"
	}
	for _, r := range append(slices.Clone(blockedV4), blockedV6...) {
		if !coveredBy(r.prefix, regs) && !listed(ianaAdditions, r.prefix) {
			t.Errorf("netguard blocks %s (%s): in no registry block, and ianaAdditions does not list it", r.prefix, r.name)
		}
	}
	for _, x := range ianaAdditions {
		if coveredBy(x.prefix, regs) || !slices.ContainsFunc(blockedV4, func(r blockedRange) bool { return r.prefix == x.prefix }) {
			t.Errorf("stale exception: ianaAdditions lists %s (%s), but a registry has it or netguard does not block it", x.prefix, x.why)
		}
	}
	for _, x := range ianaBlockedAnyway {
		if !reachable[x.prefix] {
			t.Errorf("stale exception: ianaBlockedAnyway lists %s (%s), which is no globally reachable registry block", x.prefix, x.why)
		}
	}
}
