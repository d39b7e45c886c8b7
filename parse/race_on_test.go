//go:build race

package parse

// raceEnabled: the race detector multiplies time and memory, so the large
// inputs are scaled down or skipped.
const raceEnabled = true
