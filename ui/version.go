package ui

import (
	"runtime/debug"
	"strings"
)

// Version is the release version, set when building a release:
//
//	go build -ldflags "-X github.com/citegate/citegate/ui.Version=v1.2.3"
//
// Left empty, VersionString falls back to what the Go toolchain recorded in
// the binary (see versionFrom).
var Version = ""

// develVersion is what a build that carries no version information reports.
const develVersion = "devel"

// VersionString is the version `citegate --version` prints.
func VersionString() string {
	bi, ok := debug.ReadBuildInfo()
	return versionFrom(Version, bi, ok)
}

// versionFrom picks the version, most specific first: the -ldflags -X value;
// the module version `go install …@vX.Y.Z` records; the VCS revision a
// build inside a git checkout records (marked -dirty when the tree had
// uncommitted changes); else "devel".
func versionFrom(ldflag string, bi *debug.BuildInfo, ok bool) string {
	if v := strings.TrimSpace(ldflag); v != "" {
		return v
	}
	if !ok || bi == nil {
		return develVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return develVersion
	}
	return develVersion + "+" + rev[:min(len(rev), 12)] + dirty
}
