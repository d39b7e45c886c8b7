package ui

import (
	"runtime/debug"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "f19e92879f74f009118c395b2efef0579c43d462"
	tests := []struct {
		name   string
		ldflag string
		bi     *debug.BuildInfo
		ok     bool
		want   string
	}{
		{"ldflags win", "v1.4.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, true, "v1.4.0"},
		{"ldflags trimmed", " v1.4.0\n", nil, false, "v1.4.0"},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, true, "v1.3.0"},
		{"pseudo-version from a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261123204711-f19e92879f74"}}, true, "v0.0.0-20261123204711-f19e92879f74"},
		{"devel with revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, true, "devel+f19e92879f74"},
		{"devel with dirty tree", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, true, "devel+f19e92879f74-dirty"},
		{"short revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc", "false")}, true, "devel+abc"},
		{"no vcs", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
		{"no build info", "", nil, false, "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionFrom(tt.ldflag, tt.bi, tt.ok); got != tt.want {
				t.Errorf("versionFrom = %q, want %q", got, tt.want)
			}
		})
	}
}
