// Package fleet lets many citegate processes share one Redis: a verdict
// cache (Cache), single flight of a URL across processes (Lease) and the
// per-host politeness budget (Hosts). The Redis address is operator input
// (a flag or the run configuration, never a cited URL or an MCP client), so
// it does not pass the cited-URL SSRF guard; its password never appears in
// an error, a warning or an artifact (Addr).
//
// Every operation degrades: the first Redis error marks the store lost,
// says so once through the warn callback, and from then on the callers use
// their local limits and cache (Lost). An operator who must not exceed the
// budget asks for Required, and the run then fails instead.
//
// Key layout (all under one prefix, "citegate:v1:", with the host or the
// verdict hash in braces so that Redis Cluster keeps one host's keys in
// one slot):
//
//	citegate:v1:verdict:{H}        string, a versioned JSON verdict, TTL per status
//	citegate:v1:lease:{H}          string, the token of the process fetching H, TTL LeaseTTL
//	citegate:v1:host:{HOST}:slots  sorted set, in-flight tokens scored by expiry (ms)
//	citegate:v1:host:{HOST}:slow   hash, shared adaptive spacing: spacing, until, calm
//	rate:citegate:v1:host:{HOST}:gcra  redis_rate's GCRA state (spacing between starts)
//
// H is the SHA-256 (hex, 32 characters) of the normalized URL and its
// verdict context; see engine/cache.go.
package fleet
