package ladder

import (
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"

	"github.com/citegate/citegate/netguard"
)

// articleHTML is a page the classifier reads as a valid article.
func articleHTML(title string) string {
	return "<html><head><title>" + title + "</title></head><body><article><h1>Report</h1><p>" +
		"A long enough article body about the measured results of the study, with several sentences of text. " +
		"It discusses methods, data and conclusions at length so that it reads as a real page.</p></article></body></html>"
}

// loopbackGuard admits the test servers' loopback ports through explicit
// allow rules (the guard stays on).
func loopbackGuard(servers ...*httptest.Server) *netguard.Guard {
	var ports []int
	for _, s := range servers {
		u, _ := url.Parse(s.URL)
		p, _ := strconv.Atoi(u.Port())
		ports = append(ports, p)
	}
	return netguard.New(netguard.AllowCIDR(netip.MustParsePrefix("127.0.0.1/32")), netguard.AllowPorts(ports...))
}
