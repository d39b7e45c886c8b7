// Package classify decides what one fetched citation URL is worth: valid,
// paywalled, invalid (dead), mismatch (reachable but the wrong page), or
// "escalate" (this rung could not tell; try the next rung of the ladder).
//
// Why a dedicated classifier: link checkers decide "alive or dead" from the
// status code alone, and their trackers are full of the result — bot walls
// (Cloudflare challenges, LinkedIn's 999, DataDome, PerimeterX, Akamai) are
// reported as dead links, users then accept every 403/429 and real 404s slip
// through, and soft 404s (a 200 "Page not found") pass as alive. A citation
// validator must tell these apart, because downstream synthesis may cite
// valid and paywalled sources but never invalid, blocked or mismatched ones:
//
//   - a bot wall says nothing about the page, so it escalates to the next rung
//     (Bright Data, Apify) and, if every rung is walled, becomes "blocked" —
//     never "invalid";
//   - a paywall or login wall is a real, citable source behind a barrier;
//   - a 404/410 or a soft 404 (a 200 page that says, in any of the major
//     languages or a server's template, that the page does not exist) is a
//     dead link; so is a page that looks like the site's answer to a URL
//     that cannot exist (see FingerprintOf and Like: the ladder's site
//     probe);
//   - a sign-in page, served directly or after a redirect, is a login wall;
//   - a page that clearly is not what the wave cited is a mismatch.
//
// Every rung (direct fetch, Web Unlocker, rag-web-browser) hands what it got
// to the single entry point [Classify], so all rungs are judged by the same
// rules. The signals follow the mission research (shared reference
// anchors.md §B "what users complain about" and §D "paywall, bot-block and
// soft-404 signals used in practice"), including its cautions: a CDN or WAF
// header alone only means a site uses the vendor, /cdn-cgi/challenge-platform
// is injected into ordinary pages, and short phrase matches hit boilerplate —
// so page-content signals only count on thin pages or with a blocking status.
//
// Files: classify.go (the rules' order), reasons.go (every negative
// verdict names its rule and quotes its evidence), html.go and extract.go
// (reading a body), fold.go (multilingual phrase matching), lead.go (where
// a page speaks for itself: its own headings and prose), walls.go,
// soft404.go, templates.go (server templates, status fields, placeholders,
// error pages), thin.go (title-only pages), paywall.go, match.go (content
// mismatch), probe.go (comparison with the site probe), urls.go (redirect
// rules), headers.go, text.go, pdf.go.
//
// Classify is pure (no I/O, no globals mutated): the HTML is tokenized once
// with golang.org/x/net/html, which costs about 0.3 ms for a 5 KB article
// and 10–20 ms for a 2 MB page (BenchmarkClassify) — small next to the fetch.
// Every string it returns is whitespace-collapsed, valid UTF-8, free of
// markup and redacted with netguard.RedactText.
package classify
