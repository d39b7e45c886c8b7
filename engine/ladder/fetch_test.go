package ladder

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/citegate/citegate/netguard"
)

func TestHeadThenGet(t *testing.T) {
	ok := func(code int) func() (*netguard.Response, error) {
		return func() (*netguard.Response, error) { return &netguard.Response{StatusCode: code}, nil }
	}
	fail := func(err error) func() (*netguard.Response, error) {
		return func() (*netguard.Response, error) { return nil, err }
	}
	for _, tc := range []struct {
		name      string
		head      func() (*netguard.Response, error)
		wantCalls []string
		wantHead  bool
		wantErr   error
		wantCode  int
	}{
		{"HEAD answers", ok(200), []string{"HEAD"}, true, nil, 200},
		{"HEAD redirect-final 304 counts", ok(304), []string{"HEAD"}, true, nil, 304},
		{"HEAD refused by the server", ok(405), []string{"HEAD", "GET"}, false, nil, 200},
		{"HEAD 404 is asked again with GET", ok(404), []string{"HEAD", "GET"}, false, nil, 200},
		{"HEAD transport error", fail(netguard.ErrConnReset), []string{"HEAD", "GET"}, false, nil, 200},
		{"refused target is final", fail(netguard.ErrBlockedAddress), []string{"HEAD"}, true, netguard.ErrBlockedAddress, 0},
		{"no such host is final", fail(netguard.ErrNoSuchHost), []string{"HEAD"}, true, netguard.ErrNoSuchHost, 0},
		{"a refused certificate is final", fail(&netguard.TLSError{Rule: "cert-expired", Note: "x"}), []string{"HEAD"}, true, netguard.ErrTLS, 0},
		{"another TLS failure is asked again", fail(netguard.ErrTLS), []string{"HEAD", "GET"}, false, nil, 200},
	} {
		var calls []string
		resp, head, err := headThenGet(func(method string) (*netguard.Response, error) {
			calls = append(calls, method)
			if method == http.MethodHead {
				return tc.head()
			}
			return &netguard.Response{StatusCode: 200}, nil
		})
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		if !slices.Equal(calls, tc.wantCalls) || head != tc.wantHead || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) || code != tc.wantCode {
			t.Errorf("%s: calls %v head %v err %v code %d; want %v %v %v %d", tc.name, calls, head, err, code,
				tc.wantCalls, tc.wantHead, tc.wantErr, tc.wantCode)
		}
	}
}
