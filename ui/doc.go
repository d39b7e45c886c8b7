// Package ui is citegate's front end: the command line (flags, --args-json,
// result envelopes, exit codes) and the two consumers of the engine's event
// stream, the headless progress printer and the Bubble Tea terminal UI.
//
// The engine decides and writes everything; this package only turns arguments
// into engine calls and events into progress output, so every front end
// produces the same artifacts.
package ui
