package cli

import (
	"flag"
	"path/filepath"
	"strings"
)

// parseDecideOperands takes decide's RUN_DIR and URL, with flags before,
// between or after them (the flag package stops at the first operand).
func parseDecideOperands(fs *flag.FlagSet, c *Command, rest []string) ([]string, error) {
	var operands []string
	for len(rest) > 0 {
		if strings.HasPrefix(rest[0], "-") {
			break
		}
		operands = append(operands, rest[0])
		if err := fs.Parse(rest[1:]); err != nil {
			return nil, &UsageError{Command: "decide", Msg: err.Error()}
		}
		rest = fs.Args()
	}
	if len(rest) > 0 {
		return rest, nil
	}
	if len(operands) == 0 {
		return nil, &UsageError{Command: "decide", Msg: "missing RUN_DIR: the run directory whose citation you decide"}
	}
	if len(operands) > 2 {
		return nil, &UsageError{Command: "decide", Msg: "unexpected argument " + quote(operands[2]) + ": give RUN_DIR and one URL"}
	}
	dir, err := filepath.Abs(operands[0])
	if err != nil {
		return nil, &UsageError{Command: "decide", Msg: err.Error()}
	}
	c.Decide.Dir = dir
	if len(operands) == 2 {
		c.Decide.URL = operands[1]
	}
	return nil, nil
}

func quote(s string) string { return `"` + s + `"` }
