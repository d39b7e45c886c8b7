package verify

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// judgeBase is the operator's judge base URL, or Ollama's default address
// for --provider ollama without one: the endpoint the judge client trusts
// must be the one the judge calls.
func judgeBase(provider, base string) string {
	if strings.TrimSpace(base) == "" && strings.EqualFold(strings.TrimSpace(provider), judge.ProviderOllama) {
		return judge.DefaultOllamaBaseURL
	}
	return base
}

// judgeClient is the judges' HTTP client. Its guard is not the sources':
// its timeouts are the judge's (a model may think for a minute; a source
// gets PerSourceTimeoutMS), and the operator's base URL, loopback or any
// port, is reachable through it and through it only
// (netguard.EndpointTransport), so a cited URL can never reach the model
// server. A base URL EndpointTransport cannot read gets the plain guarded
// transport; judge.New then reports what is wrong with it.
func judgeClient(env Env, base string, timeout time.Duration) *http.Client {
	g := netguard.New(append(slices.Clone(env.GuardOptions), netguard.WithLimits(netguard.Limits{HopTimeout: timeout}))...)
	if strings.TrimSpace(base) != "" {
		if t, err := g.EndpointTransport(base); err == nil {
			return &http.Client{Transport: t}
		}
	}
	return &http.Client{Transport: g.Transport()}
}

// judgeQueue runs up to n judge calls at once and hands every citation's
// entry to settle in citation order, so the result and the live view are
// the same whatever order the calls end in.
type judgeQueue struct {
	ctx    context.Context
	cancel context.CancelFunc
	j      judge.Judge
	sem    chan struct{}
	wg     sync.WaitGroup
	// pending are the entries not settled yet, in citation order.
	pending []*judgeSlot
	// settle lists an entry; finish turns a judge answer into one and
	// settles it.
	settle func(c parse.Citation, vc Citation, passage string) error
	finish func(c parse.Citation, vc Citation, passage string, v judge.Verdict, err error) error
	// cost is the cost of the settled judge calls.
	cost float64
}

type judgeSlot struct {
	c       parse.Citation
	vc      Citation
	passage string
	judged  bool
	est     float64 // the call's pessimistic cost, until it is settled
	done    chan struct{}
	v       judge.Verdict
	err     error
	// batch, when set, is the call that judges this entry with others: its
	// verdict and error are the batch's k-th.
	batch *batchRun
	k     int
}

func newJudgeQueue(ctx context.Context, j judge.Judge, n int) *judgeQueue {
	ctx, cancel := context.WithCancel(ctx)
	return &judgeQueue{ctx: ctx, cancel: cancel, j: j, sem: make(chan struct{}, max(n, 1))}
}

// done queues an entry that needs no judge.
func (q *judgeQueue) done(c parse.Citation, vc Citation, passage string) error {
	s := &judgeSlot{c: c, vc: vc, passage: passage, done: make(chan struct{})}
	close(s.done)
	q.pending = append(q.pending, s)
	return q.flush(false)
}

// judge starts the judge call for c once a slot is free.
func (q *judgeQueue) judge(c parse.Citation, vc Citation, passage string, est float64) error {
	select {
	case q.sem <- struct{}{}:
	case <-q.ctx.Done():
		return q.ctx.Err()
	}
	s := &judgeSlot{c: c, vc: vc, passage: passage, judged: true, est: est, done: make(chan struct{})}
	q.pending = append(q.pending, s)
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		defer func() { <-q.sem }()
		s.v, s.err = q.j.Judge(q.ctx, c.Claim, passage)
		close(s.done)
	}()
	return q.flush(false)
}

// batch starts one call deciding claims against passage once a slot is
// free; member queues each of its citations.
func (q *judgeQueue) batch(bj judge.BatchJudge, claims []string, passage string) (*batchRun, error) {
	select {
	case q.sem <- struct{}{}:
	case <-q.ctx.Done():
		return nil, q.ctx.Err()
	}
	b := &batchRun{passage: passage, done: make(chan struct{})}
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		defer func() { <-q.sem }()
		b.vs, b.errs = bj.JudgeBatch(q.ctx, claims, passage)
		close(b.done)
	}()
	return b, nil
}

// member queues the next citation of batch b. The batch's estimate is
// carried by its first citation's entry, as its cost is by its verdict.
func (q *judgeQueue) member(c parse.Citation, vc Citation, b *batchRun, est float64) error {
	s := &judgeSlot{c: c, vc: vc, passage: b.passage, judged: true, done: b.done, batch: b, k: b.next}
	if b.next == 0 {
		s.est = est
	}
	b.next++
	q.pending = append(q.pending, s)
	return q.flush(false)
}

// overCap reports whether a call estimated at est would take the total
// past limit. Calls in flight count at their estimate; when that says
// "over", they are waited for and counted at their real cost, so the
// answer is the one a run of one call at a time would give.
func (q *judgeQueue) overCap(est, limit float64) (bool, error) {
	inFlight := 0.0
	for _, s := range q.pending {
		if s.judged {
			inFlight += s.est
		}
	}
	if q.cost+inFlight+est <= limit {
		return false, nil
	}
	if err := q.flush(true); err != nil {
		return false, err
	}
	return q.cost+est > limit, nil
}

// drain waits for every call and settles every entry.
func (q *judgeQueue) drain() error { return q.flush(true) }

// flush settles the entries at the head of the queue whose calls have
// ended; with wait, all of them, waiting for the calls.
func (q *judgeQueue) flush(wait bool) error {
	for len(q.pending) > 0 {
		s := q.pending[0]
		if wait {
			<-s.done
		} else {
			select {
			case <-s.done:
			default:
				return nil
			}
		}
		q.pending = q.pending[1:]
		if s.batch != nil {
			s.v, s.err = s.batch.vs[s.k], s.batch.errs[s.k]
		}
		if !s.judged {
			if err := q.settle(s.c, s.vc, s.passage); err != nil {
				return err
			}
			continue
		}
		if s.v.CostUSD != nil {
			q.cost += *s.v.CostUSD
		}
		if err := q.finish(s.c, s.vc, s.passage, s.v, s.err); err != nil {
			return err
		}
	}
	return nil
}

// stop cancels the calls still running and waits for them.
func (q *judgeQueue) stop() {
	q.cancel()
	q.wg.Wait()
}
