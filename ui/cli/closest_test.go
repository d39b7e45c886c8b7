package cli

import "testing"

func TestClosest(t *testing.T) {
	cmds := []string{"extract", "normalize", "validate", "gate-c", "render", "verify", "init", "run", "demo", "mcp", "relocate", "help", "version"}
	for in, want := range map[string]string{"rnu": "run", "valdiate": "validate", "demoo": "demo", "gatec": "gate-c",
		"xyz": "", "deploy": "", "": ""} {
		if got := Closest(in, cmds); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Closest("--headles", []string{"--headless", "--help"}); got != "--headless" {
		t.Errorf("flag: %q", got)
	}
}
