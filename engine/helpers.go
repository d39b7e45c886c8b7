package engine

import (
	"path/filepath"
	"strings"
)

// Small helpers shared by the stages: text lists as the reference writes
// them, and run-relative paths. (Defaults for optional strings are cmp.Or.)

// lines joins text-list entries the reference's way: "\n" after each, and an
// empty file for an empty list.
func lines(items []string) []byte {
	n := 0
	for _, s := range items {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for _, s := range items {
		b = append(b, s...)
		b = append(b, '\n')
	}
	return b
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
