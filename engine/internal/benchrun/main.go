// Command benchrun measures `citegate run` offline end to end on generated
// corpora and compares it, in the same run, with the floor program
// (engine/internal/floor: read + goldmark parse + hash + write the same
// number of bytes with fsync). Runs alternate citegate, floor, citegate,
// floor… so that machine noise hits both alike; it prints medians of wall
// time, CPU time (user+sys of the child) and peak RSS, and the CPU ratio.
//
//	go build -o /tmp/citegate . && go run ./engine/internal/benchrun -bin /tmp/citegate
//	go run ./engine/internal/benchrun -bin /tmp/citegate -files 200,2000,20000 -runs 3
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/citegate/citegate/engine/internal/corpus"
)

// sample is one child process's cost.
type sample struct {
	wall, cpu time.Duration
	rssKB     int64
}

type samples []sample

func (s samples) median(f func(sample) float64) float64 {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func main() {
	bin := flag.String("bin", "", "path to a built citegate binary (required)")
	floorBin := flag.String("floor", "", "path to a built floor program (default: built from engine/internal/floor)")
	runs := flag.Int("runs", 5, "timed runs of each program per size")
	sizes := flag.String("files", "2000", "comma-separated corpus sizes in wave files (25 URLs each)")
	flag.Parse()
	if *bin == "" {
		fail(2, "-bin is required")
	}
	work, err := os.MkdirTemp("", "citegate-bench-")
	if err != nil {
		fail(1, err)
	}
	defer os.RemoveAll(work)
	if *floorBin == "" {
		*floorBin = filepath.Join(work, "floor")
		if out, err := exec.Command("go", "build", "-o", *floorBin, "./engine/internal/floor").CombinedOutput(); err != nil {
			fail(1, fmt.Sprintf("building floor: %v\n%s", err, out))
		}
	}
	fmt.Printf("%-7s %-8s %-9s %-9s %-9s %-9s %-8s %-9s %-9s %-7s\n", "files", "URLs", "cg wall", "cg CPU", "cg RSS", "KB/URL", "fl wall", "fl CPU", "fl RSS", "CPU ×")
	for _, field := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n <= 0 {
			fail(2, "bad -files entry "+field)
		}
		measure(work, *bin, *floorBin, n, *runs)
	}
}

func measure(work, bin, floorBin string, files, runs int) {
	dir := filepath.Join(work, fmt.Sprintf("run-%d", files))
	spec := corpus.Spec{Files: files, URLsPerFile: corpus.Default.URLsPerFile, Distinct: files * corpus.Default.Distinct / corpus.Default.Files}
	manifest, err := corpus.Generate(dir, spec)
	if err != nil {
		fail(1, err)
	}
	floorOut := filepath.Join(work, "floor-out")
	if err := os.MkdirAll(floorOut, 0o755); err != nil {
		fail(1, err)
	}
	citegate := exec.Command(bin, "run", "--headless", "--manifest-path", manifest)
	if _, err := child(citegate); err != nil { // warm-up; also produces the artifacts to size
		fail(1, err)
	}
	written := artifactBytes(dir)
	var cg, fl samples
	for i := 0; i < runs; i++ {
		s, err := child(exec.Command(bin, "run", "--headless", "--manifest-path", manifest))
		if err != nil {
			fail(1, err)
		}
		cg = append(cg, s)
		s, err = child(exec.Command(floorBin, "-root", dir, "-out", floorOut, "-write-bytes", strconv.FormatInt(written, 10)))
		if err != nil {
			fail(1, err)
		}
		fl = append(fl, s)
	}
	wall := func(s sample) float64 { return s.wall.Seconds() }
	cpu := func(s sample) float64 { return s.cpu.Seconds() }
	rss := func(s sample) float64 { return float64(s.rssKB) / 1024 }
	urls := countLines(filepath.Join(dir, "citations", "normalized-urls.txt"))
	fmt.Printf("%-7d %-8d %-9s %-9s %-9s %-9.1f %-8s %-9s %-9s %-7.2f\n", files, urls,
		fmt.Sprintf("%.2fs", cg.median(wall)), fmt.Sprintf("%.2fs", cg.median(cpu)), fmt.Sprintf("%.0fMB", cg.median(rss)),
		cg.median(rss)*1024/float64(max(urls, 1)),
		fmt.Sprintf("%.2fs", fl.median(wall)), fmt.Sprintf("%.2fs", fl.median(cpu)), fmt.Sprintf("%.0fMB", fl.median(rss)),
		cg.median(cpu)/fl.median(cpu))
	fmt.Printf("        (%d runs each, interleaved; citegate wrote %.1f MB, the floor the same)\n", runs, float64(written)/(1<<20))
}

// child runs cmd and returns its wall time, CPU time and peak RSS. Exit 4
// (Gate C failed) is a result, not an error.
func child(cmd *exec.Cmd) (sample, error) {
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 4 {
		err = nil
	}
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w\n%s", cmd.Path, err, out)
	}
	s := sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rssKB = ru.Maxrss // kilobytes on Linux
	}
	return s, nil
}

// artifactBytes is what a run wrote: citations/, gates.json and logs/.
func artifactBytes(root string) int64 {
	var total int64
	for _, p := range []string{"citations", "gates.json", "logs"} {
		_ = filepath.WalkDir(filepath.Join(root, p), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					total += info.Size()
				}
			}
			return nil
		})
	}
	return total
}

func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

func fail(code int, v any) {
	fmt.Fprintln(os.Stderr, "benchrun:", v)
	os.Exit(code)
}
