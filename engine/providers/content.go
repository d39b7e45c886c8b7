package providers

import "context"

// Provider labels used in Content.Provider and Error.Provider.
const (
	ProviderBrightData = "bright_data"
	ProviderApify      = "apify"
	// adapterPrefix is followed by the Adapter's Step: "adapter:bright_data".
	adapterPrefix = "adapter:"
)

// DefaultMaxBody caps page content when MaxBody is zero or negative.
const DefaultMaxBody int64 = 2 << 20

// Content is what a provider obtained for a URL.
type Content struct {
	Provider    string // "bright_data", "apify", "adapter:bright_data", …
	StatusCode  int    // the target's status as the provider reports it (x-brd-status-code / crawl.httpStatusCode); 0 if unknown
	FinalURL    string // the URL after redirects, if reported
	ContentType string // media type without parameters: "text/html", "text/markdown", …
	Charset     string // charset parameter, if known ("utf-8" for provider-made markdown)
	Body        []byte // capped at MaxBody; Truncated is set when more was available
	Truncated   bool
	Title       string // metadata title if the provider gives one
	// Verdict is set only by the generic adapter, which returns a citation
	// status itself.
	Verdict *AdapterVerdict
}

// AdapterVerdict is the citation verdict an operator adapter returned (the
// reference contract's response fields). Status is one of valid, paywalled,
// mismatch or invalid; "blocked" is reported as ErrProviderBlocked.
type AdapterVerdict struct {
	Status, Notes, URL, Title, Publisher, EvidenceSnippet string
	HTTPStatus                                            int
}

// Fetcher is the shape shared by BrightData, Apify and Adapter.
type Fetcher interface {
	Fetch(ctx context.Context, target string) (*Content, error)
}

var (
	_ Fetcher = (*BrightData)(nil)
	_ Fetcher = (*Apify)(nil)
	_ Fetcher = (*Adapter)(nil)
)
