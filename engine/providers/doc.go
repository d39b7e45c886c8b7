// Package providers holds the third-party rungs of citegate's escalation
// ladder: the clients that ask somebody else to fetch a citation URL after
// citegate's own direct fetch failed (bot wall, 403, 429, 5xx, timeout).
//
// There are three clients with one shape, Fetch(ctx, target) (*Content, error):
//
//   - BrightData calls the Bright Data Web Unlocker Direct API.
//   - Apify runs the apify/rag-web-browser Actor synchronously.
//   - Adapter speaks the reference implementation's generic contract: an
//     operator-run endpoint that answers with a citation status itself.
//
// # What is sent to whom
//
// Each Fetch makes exactly one HTTP request, to one host, and sends the
// target URL and nothing else of the run (no citation text, no other URLs, no
// cookies, no file names):
//
//   - BrightData: POST <BaseURL>/request (default https://api.brightdata.com)
//     with "Authorization: Bearer <BRIGHTDATA_API_KEY>" and the JSON body
//     {"zone":<BRIGHTDATA_UNLOCKER_ZONE>,"url":<target>,"format":"raw"},
//     plus "data_format":"markdown" and "country" when configured.
//   - Apify: POST <BaseURL>/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items
//     (default https://api.apify.com) with "Authorization: Bearer <APIFY_TOKEN>"
//     and the Actor input {"query":<target>,"maxResults":1,
//     "outputFormats":["markdown"]}, plus "requestTimeoutSecs" and the
//     "?timeout=" run limit derived from the context deadline, and
//     "scrapingTool" when configured. The token is never put in the query
//     string, where it would end up in access logs.
//   - Adapter: POST <Endpoint> with only "Content-Type: application/json" and
//     {"url":<target>,"ladder_step":<Step>}. No credentials are sent.
//
// The provider fetches the target from its own network, so the whole target
// URL, query string included, is disclosed to it. The caller decides which URL
// that is (the engine passes the URL it is prepared to disclose); a target
// carrying userinfo, a non-http(s) scheme, or white space is refused with
// ErrInvalidTarget before anything is sent, because the Apify Actor would
// treat a non-URL as a Google search query.
//
// # Secrets
//
// API keys and tokens come only from the environment, through the getenv
// function given to BrightDataFromEnv and ApifyFromEnv. They are sent only in
// the Authorization header of the request to the configured base URL, only
// over https (plain http is accepted for loopback base URLs, which is what the
// tests use), and redirects from the provider APIs are never followed, so the
// header cannot be carried anywhere else. The package does not log. Every
// error message and every Content field is scrubbed of the key (a provider
// that echoes it back does not leak it), and every URL in an error message,
// the target included, goes through netguard.RedactText.
//
// # Limits
//
// Timeouts come only from the context: the caller's deadline bounds the
// request, the wait for headers, and the body read. Every response body is
// read through an io.LimitReader: page content stops at MaxBody (default
// DefaultMaxBody, 2 MiB) with Content.Truncated set; an Apify JSON envelope
// stops at 2×MaxBody+64 KiB (JSON escaping inflates the markdown it carries)
// and is a failure if larger; error bodies stop at 8 KiB.
//
// # Errors
//
// Every failure is an *Error that wraps exactly one sentinel, so callers
// branch with errors.Is: ErrNoCredentials (rung not configured; no request
// made), ErrInvalidTarget, ErrUnauthorized, ErrQuota (with RetryAfter),
// ErrProviderBlocked (the provider reached out but could not get the page),
// ErrProviderTimeout and ErrProviderFailed. A target's own status, even 403 or
// 404, is not an error: when the provider delivers the target's response as is,
// Fetch returns it in Content.StatusCode and the caller judges it exactly as it
// judges a direct fetch.
package providers
