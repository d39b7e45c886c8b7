// Package ui is citegate's front end: it runs a parsed command (ui/cli
// parses it, prints the envelopes and names the exit codes) and holds the
// two consumers of the engine's event stream — the headless progress
// printer (progress.go) and the Bubble Tea terminal UI (tui*.go: the URL
// list, the detail view, the claims of run --verify, the panels, pager,
// keys and styles) — plus the demo bootstrap (demo.go, simdemo.go) and
// --version.
//
// The engine decides and writes everything; this package only turns
// arguments into engine calls and events into progress output, so every
// front end produces the same artifacts.
package ui
