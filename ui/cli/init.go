package cli

import (
	"flag"
	"path/filepath"
	"strings"
)

// parseInitOperands reads init's operands: the run directory first (default
// the working directory), then any further paths, which are wave-1 inputs
// like --waves's (so "--waves a.md b.md" takes both). Flags may come
// between them.
func parseInitOperands(fs *flag.FlagSet, c *Command, rest []string) ([]string, error) {
	for len(rest) > 0 {
		if strings.HasPrefix(rest[0], "-") && rest[0] != "-" {
			break
		}
		if c.Init.Dir == "" {
			c.Init.Dir = rest[0]
		} else if err := fs.Set("waves", rest[0]); err != nil { // in command-line order with --waves's
			return nil, &UsageError{Command: "init", Msg: err.Error()}
		}
		if err := fs.Parse(rest[1:]); err != nil {
			return nil, &UsageError{Command: "init", Msg: err.Error()}
		}
		rest = fs.Args()
	}
	return rest, nil
}

// absInitPaths resolves init's paths against the working directory, as every
// path the command line takes is (the tool commands' --args-json keeps the
// seeds' absolute-path rule).
func absInitPaths(c *Command) error {
	a := &c.Init
	if a.Dir == "" {
		a.Dir = "."
	}
	var err error
	if a.Dir, err = filepath.Abs(a.Dir); err != nil {
		return &UsageError{Command: "init", Msg: err.Error()}
	}
	for _, list := range []*[]string{&a.Waves, &a.Waves2} {
		for i, p := range *list {
			if (*list)[i], err = filepath.Abs(p); err != nil {
				return &UsageError{Command: "init", Msg: err.Error()}
			}
		}
	}
	return nil
}
