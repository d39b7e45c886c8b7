package engine

import (
	"bufio"
	"path/filepath"
	"strings"
)

// Small helpers shared by the stages: text lists as the reference writes
// them, and run-relative paths. (Defaults for optional strings are cmp.Or.)

// lines joins text-list entries the reference's way: "\n" after each, and an
// empty file for an empty list.
func writeLines(items []string) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error {
		for _, s := range items {
			_, _ = w.WriteString(s) // sticky: the commit's Flush reports it
			_ = w.WriteByte('\n')
		}
		return nil
	}
}

// splitLines splits on \n or \r\n, trims, and drops empty lines.
func splitLines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// relPOSIX returns target relative to root with forward slashes.
func relPOSIX(root, target string) string {
	rel, err := filepath.Rel(root, target)
	if err != nil {
		return filepath.ToSlash(target)
	}
	return filepath.ToSlash(rel)
}
