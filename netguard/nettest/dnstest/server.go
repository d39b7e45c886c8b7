// Package dnstest is a small authoritative-style DNS server over UDP for
// tests and evaluations of citegate's resolver handling: it answers A and
// AAAA queries from a table, says NXDOMAIN for names it does not know and
// NOERROR with no answer (NODATA) for a known name without records of the
// asked type, and can lose or delay queries on purpose, deterministically
// from a seed. It only ever listens where it is told (a loopback address
// in tests, a private network namespace in dnseval).
package dnstest

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// Host is one name's records.
type Host struct {
	A, AAAA []netip.Addr
	// ServFail answers every query for the name with SERVFAIL.
	ServFail bool
}

// Server answers from Hosts. Zero Loss and MaxDelay make a clean server.
type Server struct {
	Hosts map[string]Host // lower-case names without the trailing dot
	TTL   uint32          // of every answer and of the negative answers' SOA
	// Loss is the share of queries dropped without an answer (0–1);
	// MaxDelay delays every other answer by up to this much. Which query
	// is lost and how long one waits follows from Seed, the name, the type
	// and how many times that name and type were asked, so a run loses the
	// same queries however the lookups interleave.
	Loss     float64
	MaxDelay time.Duration
	Seed     uint64
	// Lose, when set, decides instead of Loss which queries are lost: the
	// nth (from 0) query of that name and type (dnsmessage.TypeA, TypeAAAA).
	Lose func(name string, qtype dnsmessage.Type, nth int) bool

	mu      sync.Mutex
	asked   map[key]int
	dropped int
}

type key struct {
	name  string
	qtype dnsmessage.Type
}

// Queries is how many queries the server received for name, of any type.
func (s *Server) Queries(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.asked {
		if k.name == name {
			n += c
		}
	}
	return n
}

// Totals is how many queries the server received and how many it dropped.
func (s *Server) Totals() (queries, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.asked {
		queries += c
	}
	return queries, s.dropped
}

// Serve answers queries on pc until ctx ends.
func (s *Server) Serve(ctx context.Context, pc net.PacketConn) error {
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		q := append([]byte(nil), buf[:n]...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, wait, ok := s.answer(q); ok {
				t := time.NewTimer(wait)
				defer t.Stop()
				select {
				case <-t.C:
					_, _ = pc.WriteTo(out, from)
				case <-ctx.Done():
				}
			}
		}()
	}
}

// answer builds the response to one query, its delay, and false when the
// query is lost (or not a query).
func (s *Server) answer(q []byte) ([]byte, time.Duration, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil || h.Response {
		return nil, 0, false
	}
	question, err := p.Question()
	if err != nil {
		return nil, 0, false
	}
	name := strings.ToLower(strings.TrimSuffix(question.Name.String(), "."))
	k := key{name, question.Type}
	s.mu.Lock()
	nth := s.asked[k]
	s.asked = ensure(s.asked)
	s.asked[k]++
	lost := s.roll(k, nth, 0) < s.Loss
	if s.Lose != nil {
		lost = s.Lose(name, question.Type, nth)
	}
	if lost {
		s.dropped++
	}
	s.mu.Unlock()
	if lost {
		return nil, 0, false
	}
	wait := time.Duration(s.roll(k, nth, 1) * float64(s.MaxDelay))
	out, err := s.build(h.ID, question, name)
	return out, wait, err == nil
}

func ensure(m map[key]int) map[key]int {
	if m == nil {
		return map[key]int{}
	}
	return m
}

// roll is a number in [0, 1) fixed by the seed, the query and salt.
func (s *Server) roll(k key, nth, salt int) float64 {
	f := fnv.New64a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], s.Seed)
	f.Write(b[:])
	f.Write([]byte(k.name))
	binary.BigEndian.PutUint64(b[:], uint64(k.qtype)<<32|uint64(nth)<<8|uint64(salt))
	f.Write(b[:])
	return float64(mix(f.Sum64())>>11) / (1 << 53)
}

// mix is splitmix64's finalizer: FNV alone leaves the high bits nearly
// blind to the last bytes hashed (the call number).
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s *Server) build(id uint16, q dnsmessage.Question, name string) ([]byte, error) {
	host, known := s.Hosts[name]
	rcode := dnsmessage.RCodeSuccess
	switch {
	case !known:
		rcode = dnsmessage.RCodeNameError
	case host.ServFail:
		rcode = dnsmessage.RCodeServerFailure
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, Response: true, Authoritative: true,
		RecursionDesired: true, RecursionAvailable: true, RCode: rcode})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: s.TTL}
	n := 0
	if rcode == dnsmessage.RCodeSuccess {
		for _, a := range map[dnsmessage.Type][]netip.Addr{dnsmessage.TypeA: host.A, dnsmessage.TypeAAAA: host.AAAA}[q.Type] {
			n++
			var err error
			if a.Is4() {
				err = b.AResource(rh, dnsmessage.AResource{A: a.As4()})
			} else {
				err = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if n == 0 && rcode != dnsmessage.RCodeServerFailure {
		// A negative answer carries the zone's SOA (RFC 2308).
		if err := b.StartAuthorities(); err != nil {
			return nil, err
		}
		zone := dnsmessage.MustNewName("test.")
		soa := dnsmessage.SOAResource{NS: dnsmessage.MustNewName("ns.test."), MBox: dnsmessage.MustNewName("hostmaster.test."),
			Serial: 1, Refresh: 3600, Retry: 600, Expire: 86400, MinTTL: s.TTL}
		if err := b.SOAResource(dnsmessage.ResourceHeader{Name: zone, Class: dnsmessage.ClassINET, TTL: s.TTL}, soa); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
