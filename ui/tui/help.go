package tui

import "embed"

// Help holds this package's reference topic for `citegate help TOPIC`
// (help/tui.md: the terminal UI's keys, screens and quitting rules).
//
//go:embed help/*.md
var Help embed.FS
