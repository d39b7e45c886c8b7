// Package ladder is citegate's live validation: the escalation ladder that
// settles one URL by fetching it directly (through netguard), then, when the
// page is walled or the site refuses automated clients, through Bright
// Data's Web Unlocker and Apify's browser (or the operator's adapter
// endpoints).
//
// It is built from small layers, each in its own file with its own tests:
//
//   - hosts.go: host politeness — at most PerHost requests in flight to a
//     host, starts spaced by HostInterval, and a host-wide pause after a 429;
//   - retry.go: attempts with exponential backoff, a server's Retry-After
//     honoured up to MaxRetryWait, and the retryable transport errors;
//   - fetch.go: one direct request under the host gate, HEAD first with a
//     GET fallback at the basic tier;
//   - direct.go: the direct rung — the layers above, then the classifier
//     (engine/classify) and the site probe (probe.go) on a valid page;
//   - providers.go: the third-party rungs, their attempts and notes;
//   - ladder.go: the worker pool (host-aware dispatch) and the escalation
//     from one rung to the next.
//
// The engine hands it Items and gets back one Decision per item; progress
// (attempts, their outcomes, retry waits) goes out as Progress reports,
// which the engine turns into its event stream.
package ladder
