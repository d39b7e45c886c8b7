package netguard

import (
	"net/netip"
	"slices"
	"testing"

	"code.dny.dev/ssrf"
)

// addr.go copies the IANA special-purpose registries by hand. These tests
// hold that copy against code.dny.dev/ssrf (MIT, v0.3.0, a test-only
// dependency), whose deny lists its generator ssrfgen derives from IANA's
// registry CSV files: IPv4DeniedPrefixes (every IPv4 registry block, plus
// multicast), IPv6GlobalUnicast (2000::/3; everything outside it is
// denied), IPv6DeniedPrefixes (the registry blocks inside 2000::/3) and
// IPv6NAT64Prefix. Its classifier, Guardian.SafeAddr with the default
// options, is the reference verdict.
//
// Every place where netguard deliberately differs is listed here, with the
// reason: ssrfAdditions (blocked by netguard, admitted by ssrf) and
// embeddedRules in addr_sample_test.go (denied whole by ssrf, judged by the
// embedded IPv4 address in netguard). Nothing else may differ.

var ssrfGuardian = ssrf.New()

func ssrfDenies(a netip.Addr) bool { return ssrfGuardian.SafeAddr(a) != nil }

// ssrfAdditions are ranges netguard blocks although ssrf admits them.
var ssrfAdditions = []listedRange{
	// Azure's WireServer answers every VM on this ordinary-looking public
	// address with instance metadata and agent configuration; it is not in
	// any IANA registry because it is Microsoft's own address.
	{netip.MustParsePrefix("168.63.129.16/32"), "Azure WireServer (cloud metadata)"},
}

func inSSRFAdditions(a netip.Addr) bool {
	return slices.ContainsFunc(ssrfAdditions, func(x listedRange) bool { return x.prefix.Contains(a) })
}

// ssrfV4 is ssrf's IPv4 verdict with netguard's additions.
func ssrfV4(a netip.Addr) bool { return ssrfDenies(a) || inSSRFAdditions(a) }

// expectSSRF is the verdict ssrf implies for a, with netguard's listed
// differences applied.
func expectSSRF(a netip.Addr) (bool, string) {
	return expectWith(a, ssrfV4, ssrfV4)
}

// ssrfCheck fails t if netguard's verdict on a is not the expected one.
func ssrfCheck(t *testing.T, what string, a netip.Addr) {
	t.Helper()
	want, rule := expectSSRF(a)
	if got := blocked(a); got != want {
		if rule == "" {
			rule = "no exception applies"
		}
		t.Errorf("%s: netguard blocked(%s) = %v, ssrf implies %v (%s)", what, a, got, want, rule)
	}
}

// Every range ssrf denies is blocked: the network address, the broadcast
// or last address and a few inside each IPv4 and IPv6 prefix, every IPv6
// form of each IPv4 sample, and the IPv6 space outside 2000::/3 — except
// where an embedded rule says the IPv4 address inside decides.
func TestClassifierBlocksSSRFDenyLists(t *testing.T) {
	rng := newSampler()
	for _, p := range ssrf.IPv4DeniedPrefixes {
		for _, v := range samples(p, rng, 8) {
			if !ssrfDenies(v) {
				t.Fatalf("sampler bug: ssrf admits %s from its own %s", v, p)
			}
			if !blocked(v) {
				t.Errorf("ssrf denies %s (in %s), netguard admits it", v, p)
			}
			for _, f := range embeddings(v) {
				// The forms of a denied address are blocked by every
				// rule: ssrf denies them as IPv6, netguard by v.
				if !blocked(f.addr) {
					t.Errorf("ssrf denies %s (in %s), netguard admits its %s form %s", v, p, f.name, f.addr)
				}
			}
		}
	}
	// netguard's own additions are blocked in every form too.
	for _, x := range ssrfAdditions {
		for _, v := range samples(x.prefix, rng, 8) {
			for _, f := range append(embeddings(v), v6Form{"plain", v}) {
				if !blocked(f.addr) {
					t.Errorf("netguard admits the %s form %s of %s, which it lists as blocked (%s)", f.name, f.addr, v, x.why)
				}
			}
		}
	}
	v6 := slices.Clone(ssrf.IPv6DeniedPrefixes)
	// Outside 2000::/3 ssrf denies everything: the seven other /3 blocks,
	// and the embedded-form blocks in them, which random samples of a /3
	// would never hit.
	for i := range 8 {
		p := netip.PrefixFrom(netip.AddrFrom16([16]byte{byte(i << 5)}), 3)
		if p != ssrf.IPv6GlobalUnicast {
			v6 = append(v6, p)
		}
	}
	v6 = append(v6, ssrf.IPv6NAT64Prefix)
	for _, r := range embeddedRules {
		v6 = append(v6, r.prefix)
	}
	for _, p := range v6 {
		for _, a := range samples(p, rng, 16) {
			if !ssrfDenies(a) {
				t.Fatalf("sampler bug: ssrf admits %s from %s", a, p)
			}
			ssrfCheck(t, "in "+p.String(), a)
		}
	}
}

// A random sweep of both families, compared both ways: netguard blocks
// exactly what ssrf denies, apart from the listed differences.
func TestClassifierMatchesSSRFVerdicts(t *testing.T) {
	rng := newSampler()
	all4 := netip.MustParsePrefix("0.0.0.0/0")
	for range 5000 {
		ssrfCheck(t, "IPv4 sweep", randomIn(all4, rng))
	}
	for _, p := range []netip.Prefix{ssrf.IPv6GlobalUnicast, netip.MustParsePrefix("::/0")} {
		for range 5000 {
			ssrfCheck(t, "IPv6 sweep of "+p.String(), randomIn(p, rng))
		}
	}
	// Inside the embedded-form blocks, random addresses mix admitted and
	// blocked readings, which checks each reading is taken where the
	// rule says.
	for _, r := range embeddedRules {
		for range 2000 {
			ssrfCheck(t, "sweep of "+r.prefix.String(), randomIn(r.prefix, rng))
		}
	}
	// Each IPv4 address's forms follow its own verdict, public or not.
	for range 500 {
		v := randomIn(all4, rng)
		for _, f := range embeddings(v) {
			ssrfCheck(t, f.name+" form of "+v.String(), f.addr)
		}
	}
	// The controls the sweep is expected to admit, so the comparison is
	// not trivially "everything blocked".
	for _, s := range []string{"8.8.8.8", "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"} {
		if a := netip.MustParseAddr(s); blocked(a) {
			t.Errorf("control %s is blocked", s)
		}
	}
}

// The other direction, on the tables themselves: each entry of netguard's
// tables is covered by ssrf's lists or is a listed addition, each of ssrf's
// prefixes is covered by a netguard entry or an embedded rule, and no
// listed exception is stale.
func TestClassifierTablesMatchSSRF(t *testing.T) {
	if globalUnicast != ssrf.IPv6GlobalUnicast {
		t.Errorf("IPv6 allow prefix %s, ssrf's %s", globalUnicast, ssrf.IPv6GlobalUnicast)
	}
	if nat64 != ssrf.IPv6NAT64Prefix {
		t.Errorf("NAT64 prefix %s, ssrf's %s", nat64, ssrf.IPv6NAT64Prefix)
	}
	var ours4, ours6 []netip.Prefix
	for _, r := range blockedV4 {
		ours4 = append(ours4, r.prefix)
	}
	for _, r := range blockedV6 {
		ours6 = append(ours6, r.prefix)
	}
	var additions, rules []netip.Prefix
	for _, x := range ssrfAdditions {
		additions = append(additions, x.prefix)
	}
	for _, r := range embeddedRules {
		rules = append(rules, r.prefix)
	}

	for _, p := range ours4 {
		if !coveredBy(p, ssrf.IPv4DeniedPrefixes) && !slices.Contains(additions, p) {
			t.Errorf("netguard blocks %s, which ssrf does not deny and ssrfAdditions does not list", p)
		}
	}
	for _, p := range ours6 {
		if !coveredBy(p, ssrf.IPv6DeniedPrefixes) {
			t.Errorf("netguard blocks %s, which ssrf does not deny", p)
		}
	}
	for _, p := range ssrf.IPv4DeniedPrefixes {
		if !coveredBy(p, ours4) {
			t.Errorf("ssrf denies %s, no entry of blockedV4 covers it", p)
		}
	}
	for _, p := range ssrf.IPv6DeniedPrefixes {
		if !coveredBy(p, ours6) && !slices.Contains(rules, p) {
			t.Errorf("ssrf denies %s, no entry of blockedV6 nor an embedded rule covers it", p)
		}
	}
	for _, p := range additions {
		if !slices.Contains(ours4, p) || coveredBy(p, ssrf.IPv4DeniedPrefixes) {
			t.Errorf("stale exception: ssrfAdditions lists %s, but netguard does not block it or ssrf denies it", p)
		}
	}
	// Each embedded rule is one netguard applies: its prefix is one of
	// addr.go's (the mapped block is handled by Unmap in addrVerdict).
	mine := []netip.Prefix{netip.MustParsePrefix("::ffff:0:0/96"), compatV4, nat64, nat64Local, sixToFour, teredo}
	for _, p := range rules {
		if !slices.Contains(mine, p) {
			t.Errorf("stale exception: embedded rule %s is not one of netguard's", p)
		}
	}
	for _, p := range mine {
		if !slices.Contains(rules, p) {
			t.Errorf("netguard judges %s by the embedded address, embeddedRules does not list it", p)
		}
	}
}

// coveredBy reports whether p lies inside one of list.
func coveredBy(p netip.Prefix, list []netip.Prefix) bool {
	return slices.ContainsFunc(list, func(q netip.Prefix) bool {
		return q.Bits() <= p.Bits() && q.Contains(p.Addr())
	})
}
