package ladder

import (
	"context"
	"time"
)

// FleetGate is the per-host politeness budget shared with other processes
// (engine/fleet.Hosts). The ladder applies it on top of its own hostGate:
// the local gate keeps this process's workers fair among hosts, the fleet
// gate keeps every process together within the limits. An implementation
// that loses its store admits at once; the local gate still holds.
type FleetGate interface {
	Acquire(ctx context.Context, host string) (release func(), err error)
	SlowDown(ctx context.Context, host string, until time.Time)
	Pause(ctx context.Context, host string, until time.Time)
	Answered(ctx context.Context, host string)
}

// SingleFlight lets one process fetch a URL while the others wait for its
// verdict. Claim returns either the verdict another process reached (and
// its checked_at), or a release to call once this process has settled the
// item and its done callback has returned (the verdict is cached by then).
type SingleFlight interface {
	Claim(ctx context.Context, it *Item) (d Decision, checkedAt string, settled bool, release func())
}

// settle checks one item, under single flight when there is one.
func (l *Ladder) settle(ctx context.Context, it *Item, done func(*Item, Decision, string)) {
	if l.cfg.Flight != nil {
		d, at, ok, release := l.cfg.Flight.Claim(ctx, it)
		if ok {
			done(it, d, at)
			return
		}
		defer release()
	}
	d := l.check(ctx, it)
	done(it, d, l.cfg.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
}

// fleetAcquire takes host's fleet-wide slot, if there is a fleet.
func (l *Ladder) fleetAcquire(ctx context.Context, host string) (func(), error) {
	if l.cfg.Fleet == nil {
		return func() {}, nil
	}
	return l.cfg.Fleet.Acquire(ctx, host)
}
