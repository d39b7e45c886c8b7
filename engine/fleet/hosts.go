package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/citegate/citegate/netguard"
	"github.com/go-redis/redis_rate/v10"
)

// Hosts is the fleet-wide per-host budget: at most PerHost requests in
// flight to a host across every process on the store, starts spaced by the
// host's spacing (a GCRA limiter, redis_rate, with burst 1: the
// theoretical arrival time moves one spacing on per start), and the
// adaptive spacing and pauses engine/ladder applies locally, shared, so one
// process's 429 slows them all. Each method falls back to doing nothing
// when the store is lost; the caller's local gate still holds.
type Hosts struct {
	s        *Store
	lim      *redis_rate.Limiter
	perHost  int
	interval time.Duration
	// SlotTTL is how long a slot outlives a process that stopped renewing
	// it; the holder renews it every third of that.
	SlotTTL time.Duration
	// MinSlow, MaxSlow and RecoverAfter are engine/ladder's adaptive
	// spacing bounds.
	MinSlow, MaxSlow time.Duration
	RecoverAfter     int

	mu   sync.Mutex
	slow map[string]bool // hosts last seen with a spacing above interval
}

// DefaultSlotTTL bounds how long a killed process's slot blocks a host.
const DefaultSlotTTL = 15 * time.Second

// slotPoll is the first pause between tries for a full host's slot.
const (
	slotPoll    = 10 * time.Millisecond
	slotPollMax = 100 * time.Millisecond
	// slowKeep is how long a host's shared slow-down state outlives its
	// last change.
	slowKeep = 10 * time.Minute
)

// NewHosts is the budget on s: perHost in flight per host, interval between
// starts.
func NewHosts(s *Store, perHost int, interval time.Duration) *Hosts {
	return &Hosts{s: s, lim: redis_rate.NewLimiter(s.rdb), perHost: max(1, perHost), interval: interval, SlotTTL: DefaultSlotTTL,
		MinSlow: 250 * time.Millisecond, MaxSlow: 8 * time.Second, RecoverAfter: 5, slow: map[string]bool{}}
}

func hostKey(host, what string) string { return prefix + "host:{" + host + "}:" + what }

// Acquire waits for one of host's fleet-wide slots and for its next start
// time. release must be called when the request is over. Only a cancelled
// ctx is an error; a lost store admits at once.
func (h *Hosts) Acquire(ctx context.Context, host string) (release func(), err error) {
	noop := func() {}
	token, slots, slow := newToken(), hostKey(host, "slots"), hostKey(host, "slow")
	for wait := slotPoll; ; {
		if !h.s.usable() {
			return noop, nil
		}
		c, cancel := op(ctx)
		res, err := takeSlot.Run(c, h.s.rdb, []string{slots, slow}, token, h.perHost, h.SlotTTL.Milliseconds(), h.interval.Milliseconds()).Int64Slice()
		cancel()
		if err != nil || len(res) != 3 {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			h.s.fail(ctx, err)
			return noop, nil
		}
		if res[0] == 1 {
			release = h.s.holdSlot(slots, token, h.SlotTTL)
			if err := h.space(ctx, host, time.Duration(res[2])*time.Millisecond); err != nil {
				release()
				return nil, err
			}
			return release, nil
		}
		d := wait
		if res[1] > 0 {
			d = time.Duration(res[1]) * time.Millisecond // paused: the pause's end
		} else {
			wait = min(2*wait, slotPollMax)
		}
		if err := netguard.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// space waits for host's next start under the GCRA limiter.
func (h *Hosts) space(ctx context.Context, host string, spacing time.Duration) error {
	h.note(host, spacing)
	if spacing <= 0 {
		return nil
	}
	for h.s.usable() {
		c, cancel := op(ctx)
		res, err := h.lim.Allow(c, hostKey(host, "gcra"), redis_rate.Limit{Rate: 1, Burst: 1, Period: spacing})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			h.s.fail(ctx, err)
			return nil
		}
		if res.Allowed > 0 {
			return nil
		}
		if err := netguard.Sleep(ctx, res.RetryAfter); err != nil {
			return err
		}
	}
	return nil
}

// SlowDown shares a host's request to slow down (its spacing doubles) and
// pauses it until until, for every process.
func (h *Hosts) SlowDown(ctx context.Context, host string, until time.Time) {
	h.shareSlow(ctx, host, until, true)
}

// Pause holds every process's requests to host until until.
func (h *Hosts) Pause(ctx context.Context, host string, until time.Time) {
	h.shareSlow(ctx, host, until, false)
}

func (h *Hosts) shareSlow(ctx context.Context, host string, until time.Time, double bool) {
	if !h.s.usable() {
		return
	}
	flag := "0"
	if double {
		flag = "1"
		h.note(host, h.MinSlow)
	}
	c, cancel := op(ctx)
	defer cancel()
	h.s.fail(ctx, slowDown.Run(c, h.s.rdb, []string{hostKey(host, "slow")}, max(time.Until(until), 0).Milliseconds(),
		h.interval.Milliseconds(), h.MinSlow.Milliseconds(), h.MaxSlow.Milliseconds(), flag, slowKeep.Milliseconds()).Err())
}

// Answered is an ordinary answer from host. It costs a Redis call only for
// a host last seen slowed down.
func (h *Hosts) Answered(ctx context.Context, host string) {
	if !h.s.usable() || !h.isSlow(host) {
		return
	}
	c, cancel := op(ctx)
	defer cancel()
	sp, err := answered.Run(c, h.s.rdb, []string{hostKey(host, "slow")}, h.interval.Milliseconds(), h.RecoverAfter,
		h.MinSlow.Milliseconds()).Int64()
	if err != nil {
		h.s.fail(ctx, err)
		return
	}
	h.note(host, time.Duration(sp)*time.Millisecond)
}

func (h *Hosts) note(host string, spacing time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if spacing > h.interval {
		h.slow[host] = true
	} else {
		delete(h.slow, host)
	}
}

func (h *Hosts) isSlow(host string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slow[host]
}

// holdSlot renews a host slot until the returned release frees it.
func (s *Store) holdSlot(key, token string, ttl time.Duration) func() {
	return s.renewWhileHeld(ttl, func(c context.Context) error {
		return renewSlot.Run(c, s.rdb, []string{key}, token, ttl.Milliseconds()).Err()
	}, func(c context.Context) error {
		return s.rdb.ZRem(c, key, token).Err()
	})
}
