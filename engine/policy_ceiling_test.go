package engine

import "testing"

// TestPolicyCeiling: a ceiling lowers every ladder value a policy raised
// above it and keeps the ones below it.
func TestPolicyCeiling(t *testing.T) {
	ceiling := DefaultLadderPolicy()
	raised := LadderPolicy{DirectFetchTimeoutMS: 600000, EndpointTimeoutMS: 600000, MaxRedirects: 20, MaxBodyBytes: 64 << 20,
		DirectFetchMaxAttempts: 10, BrightDataMaxAttempts: 10, ApifyMaxAttempts: 10, BackoffInitialMS: 60000,
		BackoffMultiplier: 10, BackoffMaxMS: 600000}
	if got := raised.capped(ceiling); got != ceiling {
		t.Errorf("raised policy capped = %+v, want the ceiling %+v", got, ceiling)
	}
	lowered := LadderPolicy{DirectFetchTimeoutMS: 100, EndpointTimeoutMS: 100, MaxRedirects: 1, MaxBodyBytes: 1024,
		DirectFetchMaxAttempts: 1, BrightDataMaxAttempts: 1, ApifyMaxAttempts: 1, BackoffInitialMS: 1, BackoffMultiplier: 1, BackoffMaxMS: 1}
	if got := lowered.capped(ceiling); got != lowered {
		t.Errorf("lowered policy capped = %+v, want it unchanged", got)
	}
	cfg := &citationConfig{mode: ModeOnline, policy: raised}
	e := &Engine{PolicyCeiling: &ceiling}
	if err := e.askOnline(cfg); err != nil || cfg.policy != ceiling {
		t.Errorf("askOnline: %v, policy %+v", err, cfg.policy)
	}
}
