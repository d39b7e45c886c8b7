package netguard

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// systemResolver is the built-in Resolver: Go's own DNS client (so
// /etc/resolv.conf and /etc/hosts mean what they mean to every Go program),
// strict, so that a failed query of a lookup fails the lookup instead of
// leaving an empty answer, and watching the responses it reads (dnsSeen):
// Go reports NXDOMAIN and NODATA with the same error and drops TTLs.
var systemResolver = newSystemResolver("")

// newSystemResolver returns the built-in resolver; a non-empty server
// ("ip:port") replaces the name servers of /etc/resolv.conf.
func newSystemResolver(server string) *net.Resolver {
	return &net.Resolver{PreferGo: true, StrictErrors: true, Dial: watchDNS(server)}
}

// dnsSeenKey carries a *dnsSeen in the context of one resolver call.
type dnsSeenKey struct{}

// dnsSeen is what the responses to one resolver call said: whether one
// had rcode NXDOMAIN or NOERROR, and the smallest TTL of its answer (or,
// for a negative answer, of its SOA, RFC 2308); ttl < 0 when none was seen.
type dnsSeen struct {
	mu                sync.Mutex
	nxDomain, noError bool
	ttl               time.Duration
}

// watchDNS returns a Resolver.Dial that connects as net.Dialer would and
// reads along the responses. server, when set, replaces resolv.conf's
// name server.
func watchDNS(server string) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		if server != "" {
			address = server
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		seen, _ := ctx.Value(dnsSeenKey{}).(*dnsSeen)
		if seen == nil {
			return c, nil
		}
		w := &watcher{seen: seen, ids: map[uint16]bool{}}
		if pc, ok := c.(*net.UDPConn); ok {
			// Go's resolver speaks datagrams only to a net.PacketConn.
			return &udpWatch{UDPConn: pc, w: w}, nil
		}
		return &streamWatch{Conn: c, w: w}, nil
	}
}

// watcher records the IDs of the queries written and reads the responses
// that carry one of them (a stray or spoofed datagram is ignored, as Go's
// resolver ignores it).
type watcher struct {
	seen *dnsSeen
	mu   sync.Mutex
	ids  map[uint16]bool
}

func (w *watcher) query(msg []byte) {
	if len(msg) >= 2 {
		w.mu.Lock()
		w.ids[binary.BigEndian.Uint16(msg)] = true
		w.mu.Unlock()
	}
}

func (w *watcher) response(msg []byte) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil || !h.Response {
		return
	}
	w.mu.Lock()
	ours := w.ids[h.ID]
	w.mu.Unlock()
	if !ours || p.SkipAllQuestions() != nil {
		return
	}
	ttl := time.Duration(-1)
	note := func(d time.Duration) {
		if ttl < 0 || d < ttl {
			ttl = d
		}
	}
	for {
		ah, err := p.AnswerHeader()
		if err != nil {
			break
		}
		note(time.Duration(ah.TTL) * time.Second)
		if p.SkipAnswer() != nil {
			break
		}
	}
	_ = p.SkipAllAnswers()
	for {
		ah, err := p.AuthorityHeader()
		if err != nil {
			break
		}
		if ah.Type != dnsmessage.TypeSOA {
			if p.SkipAuthority() != nil {
				break
			}
			continue
		}
		soa, err := p.SOAResource()
		if err != nil {
			break
		}
		note(time.Duration(min(ah.TTL, soa.MinTTL)) * time.Second)
	}
	s := w.seen
	s.mu.Lock()
	defer s.mu.Unlock()
	switch h.RCode {
	case dnsmessage.RCodeNameError:
		s.nxDomain = true
	case dnsmessage.RCodeSuccess:
		s.noError = true
	}
	if ttl >= 0 && (s.ttl < 0 || ttl < s.ttl) {
		s.ttl = ttl
	}
}

// udpWatch is a watched datagram connection: one message per Read and
// Write.
type udpWatch struct {
	*net.UDPConn
	w *watcher
}

func (c *udpWatch) Write(b []byte) (int, error) {
	c.w.query(b)
	return c.UDPConn.Write(b)
}

func (c *udpWatch) Read(b []byte) (int, error) {
	n, err := c.UDPConn.Read(b)
	if n > 0 {
		c.w.response(b[:n])
	}
	return n, err
}

// streamWatch is a watched TCP connection: messages with a two-byte length
// prefix, read in whatever pieces the resolver asks for.
type streamWatch struct {
	net.Conn
	w   *watcher
	in  []byte
	out []byte
}

func (c *streamWatch) Write(b []byte) (int, error) {
	c.out = append(c.out, b...)
	for len(c.out) >= 2 {
		n := int(binary.BigEndian.Uint16(c.out))
		if len(c.out) < 2+n {
			break
		}
		c.w.query(c.out[2 : 2+n])
		c.out = c.out[2+n:]
	}
	return c.Conn.Write(b)
}

func (c *streamWatch) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.in = append(c.in, b[:n]...)
	for len(c.in) >= 2 {
		m := int(binary.BigEndian.Uint16(c.in))
		if len(c.in) < 2+m {
			break
		}
		c.w.response(c.in[2 : 2+m])
		c.in = c.in[2+m:]
	}
	return n, err
}
