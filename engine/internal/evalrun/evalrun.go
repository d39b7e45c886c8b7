// Package evalrun runs a built citegate binary for the evaluation tools
// (engine/internal/probeeval, engine/internal/dnseval): one headless run
// with its summary and progress kept beside it, timed.
package evalrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Headless runs bin with args, its stdout in dir/summary.json and its
// stderr in dir/progress.log, stopped after timeout. env nil inherits the
// environment. It returns the exit code and the wall time; err is set only
// when the program could not be run or its logs written.
func Headless(bin string, args, env []string, dir string, timeout time.Duration) (exit int, wall time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	stdout, err := os.Create(filepath.Join(dir, "summary.json"))
	if err != nil {
		return 0, 0, err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, "progress.log"))
	if err != nil {
		return 0, 0, err
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr, cmd.Env = stdout, stderr, env
	start := time.Now()
	runErr := cmd.Run()
	wall = time.Since(start)
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		return ee.ExitCode(), wall, nil
	case runErr != nil:
		return 0, wall, fmt.Errorf("citegate run: %w", runErr)
	}
	return 0, wall, nil
}
