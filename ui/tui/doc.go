// Package tui is citegate's terminal UI: a Bubble Tea program that reads
// the engine's event stream and shows the run live — the URL list with its
// filters, sort and search, a URL's detail, run --verify's claims list and
// a claim's detail, the Gate C, counts and outcome panels, the pager, the
// keys and the styles.
//
// Run is the entry point: package ui starts the pipeline, hands Run the
// event stream and an Outcome channel, and acts on the Result once the
// operator leaves. The UI decides and writes nothing: it only shows what
// the engine reports, so a run in the terminal UI writes the same
// artifacts as a headless one. It imports engine (and engine/gate for the
// live Gate C panel), never package ui.
package tui
