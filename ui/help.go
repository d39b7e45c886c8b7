package ui

import "embed"

// Help holds this package's reference topics for `citegate help TOPIC`:
// one markdown file per topic, named after it.
//
//go:embed help/*.md
var Help embed.FS
