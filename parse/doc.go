// Package parse reads what agents write: the Sources sections of wave
// markdown (for Gate C) and the citations of a synthesis (for verify), and
// puts URLs in the reference's canonical and normalized forms.
//
// Sources extraction (Sources, SourcesWith; sources.go, titles.go) reads the
// markdown with a CommonMark/GFM parser rather than line regexes, because a
// citation is a link the reader of the rendered page would see: code blocks,
// code spans and raw HTML hold examples, not sources, and a "#" line inside
// a fence is not a heading. The one exception is a link reference
// definition written in a Sources section: it renders as nothing, but
// "[1]: https://…" lines are how agents often list their sources. The work
// is bounded on hostile input (limits.go, blocks.go, inline.go, refs.go):
// block structure is read in windows, only Sources blocks are inline-parsed,
// and what cannot be bounded is refused with a *LimitError.
//
// Citation extraction (Cite; cite*.go) finds URLs, DOIs, numbered markers,
// author–year citations and footnotes in a synthesis, with the claim each
// supports, and resolves markers through the document's own reference list
// (reflist*.go, reftitle.go, baremarks.go).
//
// URLs (url.go): Canonical is the WHATWG serialization the reference's
// extractor emits; Normalize the reference's normalized form, from which
// the cid is computed (CID). Query strings are decoded with
// netguard.FormDecode, the one form decoder redaction uses too.
//
// Sub-packages: parse/icu orders strings as JavaScript's localeCompare
// does (ICU root collation); parse/textkit holds the sentence and word
// splitters, stemmer, stop words and folding every part of citegate shares.
package parse
