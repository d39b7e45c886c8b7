// Package verify checks whether the sources an agent's output cites
// support its claims (seed 002's verify_citations): it finds the citations
// (parse.Cite, with reference lists, author–year and footnotes resolved),
// fetches each cited URL or DOI through netguard, reduces it to readable
// text (pages through the classifier, PDFs through pdftext, a walled DOI
// through its registration metadata), and asks a judge (engine/judge)
// whether the text supports the claim, within seed 002's caps on
// citations, bytes, time and cost.
//
// Run is the whole check; JudgeInput and OfflineJudgeInput are what a judge
// reads of a page (the development tools judge pages on disk with them).
// The engine calls Run for `citegate verify` and for `run --verify`, where
// Args.GateStatus brings in the run's Gate C statuses and Settled feeds the
// live view.
package verify
