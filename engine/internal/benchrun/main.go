// Command benchrun measures `citegate run` end to end on the generated
// benchmark corpus: median wall time and peak RSS over several runs.
//
//	go build -o /tmp/citegate . && go run ./engine/internal/benchrun -bin /tmp/citegate
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/citegate/citegate/engine/internal/corpus"
)

func main() {
	bin := flag.String("bin", "", "path to a built citegate binary (required)")
	runs := flag.Int("runs", 5, "number of timed runs")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "benchrun: -bin is required")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "citegate-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	manifest, err := corpus.Generate(dir, corpus.Default)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
	var walls []time.Duration
	var peak int64
	for i := 0; i < *runs; i++ {
		cmd := exec.Command(*bin, "run", "--headless", "--manifest-path", manifest)
		start := time.Now()
		out, err := cmd.Output()
		wall := time.Since(start)
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 4 {
			err = nil // Gate C failing is a result, not an error
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchrun: run %d: %v\n%s\n", i, err, out)
			os.Exit(1)
		}
		walls = append(walls, wall)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss) // kilobytes on Linux
		}
	}
	slices.Sort(walls)
	fmt.Printf("corpus: %d files x %d URLs (%d distinct)\n", corpus.Default.Files, corpus.Default.URLsPerFile, corpus.Default.Distinct)
	fmt.Printf("wall: median %v, min %v, max %v over %d runs\n", walls[len(walls)/2], walls[0], walls[len(walls)-1], len(walls))
	fmt.Printf("peak RSS: %.1f MB\n", float64(peak)/1024)
}
