//go:build !race

package engine

// raceEnabled lets heavy tests shrink their inputs under the race detector.
const raceEnabled = false
