package netguard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// h2Rig is a guard admitting one HTTP/2 server (pinned as example.com),
// whose handler the test chooses.
func h2Rig(t *testing.T, h func(port int) http.HandlerFunc) (*rig, string) {
	var port int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(port)(w, r) }))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port = portOf(t, srv.Listener.Addr().String())
	r := newRig(t, port, Pin("example.com", port, loopback), trust(srv))
	return r, "https://example.com:" + strconv.Itoa(port)
}

// The limits hold under HTTP/2: the body cap, the header cap, and every
// redirect hop preflighted and dialled through the guard.
func TestHTTP2Limits(t *testing.T) {
	r, base := h2Rig(t, func(port int) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) { h2LimitsHandler(port, w, req) }
	})
	r.res.set("internal.example.net", "10.1.2.3")
	for _, tc := range []struct {
		path string
		want []error // any of
	}{
		{"/", nil},
		{"/big", []error{ErrBodyTooLarge}},
		{"/headers", []error{ErrHeaderTooLarge}},
		// Far over the cap: the HTTP/2 client stops decoding and closes
		// the connection (see isHTTP2Violation).
		{"/many-headers", []error{ErrHeaderTooLarge, ErrProtocol}},
		{"/to-private", []error{ErrBlockedAddress}},
		{"/to-named-private", []error{ErrBlockedAddress}},
		{"/loop", []error{ErrRedirectLoop}},
	} {
		resp, err := r.g.Fetch(context.Background(), Request{URL: base + tc.path})
		if !isAny(err, tc.want) {
			t.Errorf("%s: Fetch error %v, want %v", tc.path, err, tc.want)
			continue
		}
		if resp != nil && resp.Proto != "HTTP/2.0" {
			t.Errorf("%s: spoke %s, want HTTP/2.0", tc.path, resp.Proto)
		}
		switch {
		case tc.want == nil && string(resp.Body) != "HTTP/2.0":
			t.Errorf("%s: body %q", tc.path, resp.Body)
		case tc.path == "/big" && (len(resp.Body) != int(testLimits.MaxBodyBytes) || !resp.Truncated):
			t.Errorf("%s: body of %d bytes, truncated %v", tc.path, len(resp.Body), resp.Truncated)
		}
	}
	for _, a := range r.dial.dials() {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("dialled %s", a)
		}
	}
}

func isAny(err error, want []error) bool {
	if len(want) == 0 {
		return err == nil
	}
	for _, w := range want {
		if errors.Is(err, w) {
			return true
		}
	}
	return false
}

func h2LimitsHandler(port int, w http.ResponseWriter, req *http.Request) {
	switch req.URL.Path {
	case "/big":
		_, _ = w.Write([]byte(strings.Repeat("x", int(testLimits.MaxBodyBytes)+1)))
	case "/headers":
		// About 20 KiB of headers against a 16 KiB cap.
		for i := range 36 {
			w.Header().Set("X-Pad-"+strconv.Itoa(i), strings.Repeat("h", 512))
		}
		_, _ = w.Write([]byte("ok"))
	case "/many-headers":
		for i := range 256 {
			w.Header().Set("X-Pad-"+strconv.Itoa(i), strings.Repeat("h", 512))
		}
		_, _ = w.Write([]byte("ok"))
	case "/to-private":
		http.Redirect(w, req, "http://10.0.0.1/", http.StatusFound)
	case "/to-named-private":
		http.Redirect(w, req, "http://internal.example.net:"+strconv.Itoa(port)+"/", http.StatusFound)
	case "/loop":
		http.Redirect(w, req, "/loop", http.StatusFound)
	default:
		_, _ = w.Write([]byte(req.Proto))
	}
}

// Requests to one HTTP/2 host share its connection, as kept-alive HTTP/1.1
// ones do: one dial for several fetches.
func TestHTTP2Reuse(t *testing.T) {
	r, base := h2Rig(t, func(int) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) { _, _ = w.Write([]byte(req.Proto)) }
	})
	for i := range 4 {
		resp, err := r.g.Fetch(context.Background(), Request{URL: base + "/" + strconv.Itoa(i)})
		if err != nil || resp.Proto != "HTTP/2.0" {
			t.Fatalf("Fetch %d = %v, %v", i, resp, err)
		}
	}
	if n := len(r.dial.dials()); n != 1 {
		t.Errorf("%d dials for 4 fetches over HTTP/2, want 1", n)
	}
}
