// Package parse finds citation URLs in wave markdown and canonicalizes them.
//
// It reads the markdown with a CommonMark/GFM parser rather than line
// regexes, because a citation is a link the reader of the rendered page would
// see: code blocks, code spans and raw HTML hold examples, not sources, and a
// "#" line inside a fence is not a heading. The one exception is a link
// reference definition written in a Sources section: it renders as nothing,
// but "[1]: https://…" lines are how agents often list their sources.
// Normalization then follows the reference pipeline exactly, since cids and
// artifact digests are compared byte for byte against it.
package parse
