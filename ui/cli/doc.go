// Package cli is citegate's command line: the commands and their flags
// (flag names are the seeds' argument names in kebab case), --args-json,
// usage text and usage errors, the result and error envelopes every command
// prints, the operator's network flags, and the exit codes (exit.go, the one
// place they are named). It turns arguments into engine arguments; package
// ui runs them.
package cli
