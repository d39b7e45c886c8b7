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
package engine
