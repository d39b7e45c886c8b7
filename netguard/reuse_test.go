package netguard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// Kept-alive connections (issue 13) are reused for the same host only; a
// body that was not read to the end closes its connection.
func TestConnReuse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			fmt.Fprint(w, strings.Repeat("x", int(testLimits.MaxBodyBytes)*4))
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	port := portOf(t, srv.Listener.Addr().String())
	p := strconv.Itoa(port)
	fetch := func(r *rig, u string) {
		t.Helper()
		if _, err := r.g.Fetch(context.Background(), Request{URL: u}); err != nil && !strings.Contains(err.Error(), "body") {
			t.Fatalf("Fetch %s: %v", u, err)
		}
	}

	t.Run("same host: one connection", func(t *testing.T) {
		r := newRig(t, port)
		for range 3 {
			fetch(r, r.base+"/a")
		}
		if got := r.dial.dials(); len(got) != 1 {
			t.Errorf("dials = %v, want 1 for three requests to one host", got)
		}
	})
	t.Run("another host on the same address: its own connection", func(t *testing.T) {
		r := newRig(t, port)
		r.res.set("one.example.com", "127.0.0.1")
		r.res.set("two.example.com", "127.0.0.1")
		fetch(r, "http://one.example.com:"+p+"/a")
		fetch(r, "http://two.example.com:"+p+"/a")
		fetch(r, "http://one.example.com:"+p+"/a")
		if got := r.dial.dials(); len(got) != 2 {
			t.Errorf("dials = %v, want one per host", got)
		}
		if n := r.res.count("two.example.com"); n != 1 {
			t.Errorf("two.example.com looked up %d times, want 1", n)
		}
	})
	t.Run("a body cut at the cap closes its connection", func(t *testing.T) {
		r := newRig(t, port)
		fetch(r, r.base+"/big")
		fetch(r, r.base+"/a")
		if got := r.dial.dials(); len(got) != 2 {
			t.Errorf("dials = %v, want a fresh connection after a truncated body", got)
		}
	})
}
