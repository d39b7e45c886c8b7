package engine

// askOnline asks the operator's gates before a call that would validate
// live: OnlineGate for fetching at all, EndpointGate for each provider
// endpoint the run's documents set; and it caps the ladder policy at
// PolicyCeiling.
func (e *Engine) askOnline(cfg *citationConfig) error {
	if cfg.mode != ModeOnline || cfg.onlineDryRun {
		return nil
	}
	if e.OnlineGate != nil {
		if err := e.OnlineGate(cfg.modeSource); err != nil {
			return err
		}
	}
	if e.EndpointGate != nil {
		for _, ep := range []struct {
			name   string
			url    *string
			source string
		}{{"bright_data", cfg.endpoints.BrightData, cfg.endpointSources.BrightData}, {"apify", cfg.endpoints.Apify, cfg.endpointSources.Apify}} {
			if ep.url == nil {
				continue
			}
			if err := e.EndpointGate(ep.name, *ep.url, ep.source); err != nil {
				return err
			}
		}
	}
	if e.PolicyCeiling != nil {
		cfg.policy = cfg.policy.capped(*e.PolicyCeiling)
	}
	return nil
}
