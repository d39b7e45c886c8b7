// Package parse finds citation URLs in wave markdown and canonicalizes them.
//
// It reads the markdown with a CommonMark/GFM parser rather than line
// regexes, because a citation is a link the reader of the rendered page would
// see: code blocks, code spans and raw HTML hold examples, not sources, and a
// "#" line inside a fence is not a heading. Normalization then follows the
// reference pipeline exactly, since cids and artifact digests are compared
// byte for byte against it.
package parse
