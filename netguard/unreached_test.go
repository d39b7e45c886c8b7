package netguard

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// Unreached tells a fetch that reached no server (the network down: DNS or
// connect failed, or timed out) from one a server or DNS answered, however
// badly.
func TestUnreached(t *testing.T) {
	reset := rawServer(t, func(c net.Conn) { readRequest(c) }) // closes without answering
	hang := rawServer(t, func(c net.Conn) { readRequest(c); waitClosed(c) })
	failDial := func(errno syscall.Errno) Option {
		return WithDialContext(func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
		})
	}
	refusedDial := WithDialContext(func(context.Context, string, string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	})
	tests := []struct {
		name      string
		port      int
		host      string
		answer    answerFunc // for the host; nil: pinned to loopback
		extra     []Option
		unreached bool
		reason    string
	}{
		{"DNS unreachable", reset, "down.example.com", func(context.Context, int) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "dial udp 10.0.0.53:53: connect: network is unreachable", Name: "down.example.com.", IsTemporary: true}
		}, nil, true, "no answer from the resolver"}, // retried with backoff first (resolve.go)
		{"DNS times out", reset, "slow.example.com", func(ctx context.Context, _ int) ([]netip.Addr, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, nil, true, "no answer from the resolver"},
		{"connect: network unreachable", reset, "news.example.com", nil, []Option{failDial(syscall.ENETUNREACH)}, true, "network error"},
		{"connect refused", reset, "news.example.com", nil, []Option{refusedDial}, true, "connection refused"},
		{"NXDOMAIN is an answer", reset, "gone.example.com", func(context.Context, int) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "no such host", Name: "gone.example.com.", IsNotFound: true}
		}, nil, false, "no such host"},
		{"a server that closes is reached", reset, "news.example.com", nil, nil, false, "connection reset by server"},
		{"a server that never answers is reached", hang, "news.example.com", nil, nil, false, "timed out"},
		{"a refusal reaches nothing but is not unreached", reset, "10.0.0.1", nil, nil, false, "private/local target blocked by SSRF policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, tt.port, tt.extra...)
			if tt.answer != nil {
				r.res.script(tt.host, tt.answer)
			}
			_, err := r.g.Fetch(context.Background(), Request{URL: "http://" + tt.host + ":" + strconv.Itoa(tt.port) + "/a"})
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			if Unreached(err) != tt.unreached || Reason(err) != tt.reason {
				t.Errorf("Unreached = %v, Reason %q (%v); want %v, %q", Unreached(err), Reason(err), err, tt.unreached, tt.reason)
			}
		})
	}
}
