// Package ui is citegate's front end: it runs a parsed command (ui/cli
// parses it, prints the envelopes and names the exit codes) and feeds the
// engine's event stream to one of two consumers — the headless progress
// printer (progress.go) or the Bubble Tea terminal UI of package ui/tui,
// which interactive.go starts, bridging the run, its reruns and the
// outcome — plus the demo bootstrap (demo.go, simdemo.go), help topics and
// --version.
//
// The engine decides and writes everything; this package only turns
// arguments into engine calls and events into progress output, so every
// front end produces the same artifacts.
package ui
