// Package engine runs the citation pipeline: extract → normalize → validate →
// Gate C → render, over one deep-research run directory.
//
// Each stage is a pure computation over in-memory inputs plus a thin tool wrapper
// that reads and writes the reference implementation's artifacts. The `run`
// pipeline chains the computations and writes every artifact only at the end, so
// an interrupted run leaves the previous artifacts untouched, and it produces the
// same bytes as calling the tools one after another.
//
// Validation publishes one ordered stream of per-URL events; the terminal UI and
// the headless progress printer are two consumers of the same stream, which is
// why they cannot disagree about the artifacts.
//
// The files follow the data: extract.go, normalize.go, validate.go (offline
// and replayed fixtures, the cache, then the live ladder), gatec.go with
// engine/gate (Gate C's one rule, a leaf package), render.go, and pipeline.go, which runs
// them in that order and commits every artifact at once (rundir.go,
// engine/fsx). Each on-disk format has one file with its type, encoder,
// typed check, reader and the audit line of the stage that writes it:
// citation.go (citations.jsonl; the statuses and the verdict record live in
// engine/record), foundby.go, urlmap.go, gates.go, online.go (the online
// side artifacts and the blocked-URL queue), fixtures.go, render.go.
// engine.go holds the Engine, manifest.go the manifest and the loaded
// RunDir; events.go, errors.go (the envelope and its helpers); the bridges
// to the sub-packages are ladder_adapter.go and verify_adapter.go; small
// helpers in helpers.go.
//
// Sub-packages: engine/ladder (live validation: direct fetch, providers,
// politeness, retries, the site probe), engine/verify (does a cited source
// support its claim), engine/classify (one page classifier for every rung),
// engine/providers (Bright Data, Apify, adapter clients), engine/judge (LLM
// and offline judges), engine/pdftext (PDF text), engine/schema (embedded
// JSON Schemas), engine/jsonx (JSON as JavaScript writes it, digests),
// engine/fsx (all-or-nothing commits, the run-directory lock, path checks),
// engine/record (statuses and the verdict record), engine/simweb (the
// simulated web of tests, benchmarks and the demo).
package engine
