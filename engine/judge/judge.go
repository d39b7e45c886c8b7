package judge

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/citegate/citegate/netguard"
)

// Verdict is one judge decision.
type Verdict struct {
	// Outcome is VerdictSupported, VerdictUnsupported or VerdictUncertain
	// (a judge that does not know says so).
	Outcome string
	// Supported is the best guess, also when Outcome is uncertain (seed
	// 002's boolean; the forced-choice answer).
	Supported  bool
	Confidence float64 // in [0,1], two decimals: confidence in Outcome
	Rationale  string
	// InputTokens and OutputTokens are the provider's usage figures; 0 for
	// the lexical judge and when a server reports no usage.
	InputTokens, OutputTokens int
	// CostUSD is the cost of the call computed from Prices; nil when it is
	// unknown (openai-compatible servers), 0 for the lexical judge.
	CostUSD   *float64
	LatencyMS int64
}

// Judge decides whether a source supports a claim. Implementations are safe
// for concurrent use.
type Judge interface {
	// Judge decides whether source supports claim. Errors are *Error with
	// Kind KindMalformed ("malformed_judge_response"), KindLLM
	// ("llm_judge_error"), KindAuth ("auth"), KindRateLimited
	// ("rate_limited") or KindTimeout ("timeout"). When the API answered
	// but no verdict could be read from the answer, the returned Verdict
	// still carries the call's tokens, cost and latency: it was billed.
	Judge(ctx context.Context, claim, source string) (Verdict, error)
	// EstimateMaxCostUSD is the pessimistic cost of one call (seed 002):
	// ceil((len(claim)+len(source))/4) input tokens and 512 output tokens
	// at the model's price, lengths in UTF-16 code units as in the
	// reference. It is 0 for free judges and for judges whose cost is
	// unknown (openai-compatible).
	EstimateMaxCostUSD(claim, source string) float64
	// Name is "anthropic/<model>", "openai/<model>",
	// "openai-compatible/<model>", "ollama/<model>" or "lexical".
	Name() string
}

// Error kinds.
const (
	// KindMalformed: the judge answered, but not with a verdict object
	// whose confidence is a number in [0,1] (seed 002's malformed_response).
	KindMalformed = "malformed_judge_response"
	// KindLLM: every other failure of a call: 4xx other than 401/403/429,
	// 5xx, oversized or undecodable bodies, redirects, transport errors,
	// cancellation.
	KindLLM = "llm_judge_error"
	// KindAuth: the API answered 401 or 403.
	KindAuth = "auth"
	// KindRateLimited: the API answered 429; Error.RetryAfter carries its
	// Retry-After header.
	KindRateLimited = "rate_limited"
	// KindTimeout: the call's deadline passed (Config.Timeout or the
	// context's), or the API answered 408 or 504.
	KindTimeout = "timeout"

	// KindUnknownModel: New was given a model without a Prices entry
	// (seed 002's "Unknown model"), or one whose provider cannot be
	// inferred.
	KindUnknownModel = "unknown_model"
	// KindMissingKey: New found no API key in the environment.
	KindMissingKey = "missing_api_key"
	// KindConfig: any other invalid Config (provider, base URL, client).
	KindConfig = "config"
)

// Error describes a failed judge call or an invalid Config. Its strings are
// safe to log: provider text is redacted and the API key scrubbed.
type Error struct {
	Kind    string // one of the Kind constants
	Message string
	// HTTPStatus is the status of the API response; 0 when there was none.
	HTTPStatus int
	// RetryAfter is the Retry-After of a rate_limited answer; 0 if not sent.
	RetryAfter time.Duration
	cause      error // context.Canceled or context.DeadlineExceeded, never a transport error
	// loading marks a server still loading its model (loading.go): the
	// call is retried.
	loading bool
}

// Error renders "judge: <kind>: <message>[ (retry after <d>)]".
func (e *Error) Error() string {
	s := "judge: " + e.Kind + ": " + e.Message
	if e.RetryAfter > 0 {
		s += " (retry after " + e.RetryAfter.String() + ")"
	}
	return s
}

// Unwrap returns the context error behind a timeout or cancellation, so
// errors.Is(err, context.DeadlineExceeded) works.
func (e *Error) Unwrap() error { return e.cause }

// Providers.
const (
	ProviderAnthropic        = "anthropic"
	ProviderOpenAI           = "openai"
	ProviderOpenAICompatible = "openai-compatible"
	// ProviderOllama is Ollama's native chat API (POST {base}/api/chat),
	// chosen by name or by a base URL on Ollama's port without "/v1"
	// (ollama.go); Ollama's "/v1" is openai-compatible.
	ProviderOllama  = "ollama"
	ProviderLexical = "lexical"
)

// Default base URLs; the paths /v1/messages and /v1/chat/completions are
// appended.
const (
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultOpenAIBaseURL    = "https://api.openai.com"
)

// Environment variables holding the keys. Each goes to one place only:
// EnvAnthropicKey to Anthropic's API host, EnvOpenAIKey to OpenAI's, and
// EnvJudgeKey to the operator's own endpoint (any other --base-url), so a
// key meant for one provider never reaches another host.
const (
	EnvAnthropicKey = "ANTHROPIC_API_KEY"
	EnvOpenAIKey    = "OPENAI_API_KEY"
	EnvJudgeKey     = "CITEGATE_JUDGE_API_KEY"
)

// The providers' own API hosts: the only hosts their keys are sent to.
const (
	anthropicHost = "api.anthropic.com"
	openAIHost    = "api.openai.com"
)

// DefaultTimeout bounds one LLM judge call when Config.Timeout is 0.
const DefaultTimeout = 60 * time.Second

// Config selects a judge.
type Config struct {
	// Model is the model id ("claude-haiku-4-5-20251001", "gpt-4o-mini",
	// "llama3.1" for a local server) or "lexical".
	Model string
	// Provider is "", "anthropic", "openai", "openai-compatible", "ollama"
	// or "lexical". When empty it is inferred (InferProvider): from BaseURL
	// when one is given (Anthropic's or OpenAI's API host, Ollama's port
	// without "/v1", else openai-compatible, whatever the model is
	// called), else from Model
	// ("claude-*" → anthropic, "gpt-*" and "o<digit>*" → openai).
	Provider string
	// BaseURL overrides the API's base URL (scheme://host[:port][/prefix]);
	// required for openai-compatible. A trailing "/v1" is accepted: the
	// judge then does not add another one. The key sent is chosen by the
	// base URL's host (keyVar): OPENAI_API_KEY only to api.openai.com,
	// ANTHROPIC_API_KEY only to api.anthropic.com, CITEGATE_JUDGE_API_KEY
	// to any other host. A key never goes over plain http to a host that
	// is not loopback: New refuses such a base for anthropic and openai,
	// and an openai-compatible judge then sends no key.
	BaseURL string
	// Getenv reads the API keys; nil means os.Getenv.
	Getenv func(string) string
	// Client performs every request; required for all but the lexical
	// judge. The caller passes netguard's guarded client. The judge uses a
	// copy that does not follow redirects.
	Client *http.Client
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout time.Duration
	// Protocol is "", "json" or "minicheck" (minicheck.go). When empty, an
	// openai-compatible model whose name contains "minicheck" speaks
	// MiniCheck's protocol and every other model seed 002's JSON one.
	Protocol string
}

// maxTokens is seed 002's verdict budget.
const maxTokens = 256

// New returns the judge for cfg (see Config for provider inference). It
// fails with KindUnknownModel for an anthropic or openai model without a
// Prices entry (openai-compatible judges have unknown cost and need none;
// the lexical judge is free), with KindMissingKey when the key an anthropic
// or openai judge would send (keyVar) is not set, and with KindConfig for
// an unknown provider, a bad base URL or a missing Client.
func New(cfg Config) (Judge, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	model := strings.TrimSpace(cfg.Model)
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if provider == "" {
		var err error
		if provider, err = InferProvider(model, cfg.BaseURL); err != nil {
			return nil, err
		}
	}
	if provider == ProviderLexical {
		return NewLexical(), nil
	}

	var price *Price
	var defBase string
	switch provider {
	case ProviderAnthropic:
		defBase = DefaultAnthropicBaseURL
	case ProviderOpenAI:
		defBase = DefaultOpenAIBaseURL
	case ProviderOpenAICompatible:
		if strings.TrimSpace(cfg.BaseURL) == "" {
			return nil, configError(KindConfig, "provider openai-compatible needs a base URL (--base-url), e.g. http://127.0.0.1:8080")
		}
	case ProviderOllama:
		defBase = DefaultOllamaBaseURL
	default:
		return nil, configError(KindConfig, fmt.Sprintf("unknown provider %q (want anthropic, openai, openai-compatible, ollama or lexical)", safeDetail(cfg.Provider, "")))
	}
	if !operatorServer(provider) {
		if model == "" {
			return nil, configError(KindUnknownModel, "no model given")
		}
		p, ok := Prices[model]
		if !ok {
			return nil, configError(KindUnknownModel, fmt.Sprintf("Unknown model %q for provider %s: citegate knows the prices of %s only; use one of them, "+
				"or provider openai-compatible with a base URL for any other model", safeDetail(model, ""), provider, strings.Join(KnownModels(provider), ", ")))
		}
		price = &p
	}

	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = defBase
	}
	keyVar := keyVar(provider, base)
	key := strings.TrimSpace(getenv(keyVar))
	if key == "" && !operatorServer(provider) {
		return nil, configError(KindMissingKey, fmt.Sprintf("%s is not set: the %s judge at %s needs an API key (or use the model lexical, which needs none)",
			keyVar, provider, safeDetail(hostOf(base), "")))
	}
	endpoint, cleartext, err := endpointURL(base, provider, key != "")
	if err != nil {
		return nil, err
	}
	if cleartext {
		// openai-compatible over plain http to a non-loopback host: the key
		// is optional there, so it is left out rather than exposed.
		key = ""
	}
	if cfg.Client == nil {
		return nil, configError(KindConfig, "no HTTP client: the caller must pass one (netguard's guarded client)")
	}
	client := *cfg.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return withProtocol(cfg.Protocol, &llmJudge{
		provider: provider,
		model:    model,
		price:    price,
		key:      key,
		endpoint: endpoint,
		client:   &client,
		timeout:  timeout,
		sleep:    netguard.Sleep,
	})
}

// InferProvider returns the provider New uses when Config.Provider is
// empty. A base URL decides: Anthropic's or OpenAI's API host names that
// provider, any other host is an operator's openai-compatible server, so
// "gpt-oss:20b" served by Ollama is not taken for an OpenAI model; a base
// on Ollama's port 11434 without "/v1" is Ollama's native API. Without
// a base URL the model id's shape is all there is: "claude-*" →
// anthropic, "gpt-*" and "o<digit>*" → openai.
func InferProvider(model, baseURL string) (string, error) {
	m := strings.ToLower(strings.TrimSpace(model))
	base := strings.TrimSpace(baseURL)
	switch {
	case m == ProviderLexical:
		return ProviderLexical, nil
	case m == "":
		return "", configError(KindUnknownModel, "no model given (use e.g. claude-haiku-4-5-20251001, gpt-4o-mini or lexical)")
	case base != "":
		switch hostOf(base) {
		case anthropicHost:
			return ProviderAnthropic, nil
		case openAIHost:
			return ProviderOpenAI, nil
		}
		if ollamaNative(base) {
			return ProviderOllama, nil
		}
		return ProviderOpenAICompatible, nil
	case strings.HasPrefix(m, "claude-"):
		return ProviderAnthropic, nil
	case strings.HasPrefix(m, "gpt-") || isOSeries(m):
		return ProviderOpenAI, nil
	}
	return "", configError(KindUnknownModel, fmt.Sprintf("Unknown model %q: cannot infer its provider; set the provider (openai-compatible with a base URL for a local server)", safeDetail(model, "")))
}

// keyVar is the environment variable whose key provider's judge sends to
// base: a provider's own key only to its own API host, the operator's
// judge key to every other host.
func keyVar(provider, base string) string {
	switch host := hostOf(base); {
	case provider == ProviderAnthropic && host == anthropicHost:
		return EnvAnthropicKey
	case provider != ProviderAnthropic && host == openAIHost:
		return EnvOpenAIKey
	}
	return EnvJudgeKey
}

// hostOf is base's host name, lower-case, without a trailing dot; "" when
// base does not parse.
func hostOf(base string) string {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// isOSeries reports whether m is an OpenAI reasoning model id ("o1-mini",
// "o3", "o4-mini"): "o" followed by a digit.
func isOSeries(m string) bool {
	return len(m) >= 2 && (m[0] == 'o' || m[0] == 'O') && m[1] >= '0' && m[1] <= '9'
}

// operatorServer reports a provider whose server the operator runs
// (openai-compatible, ollama): its key is optional and its cost unknown.
func operatorServer(provider string) bool {
	return provider == ProviderOpenAICompatible || provider == ProviderOllama
}

func configError(kind, msg string) *Error { return &Error{Kind: kind, Message: msg} }

// endpointURL validates base and returns the full endpoint. cleartext
// reports a plain-http, non-loopback openai-compatible base, to which no key
// may be sent; for the other providers such a base is an error when a key
// would be sent.
func endpointURL(base, provider string, sendsKey bool) (endpoint string, cleartext bool, err error) {
	u, perr := url.Parse(base)
	if perr != nil || u.Host == "" || u.Hostname() == "" {
		return "", false, configError(KindConfig, fmt.Sprintf("invalid base URL %q", safeDetail(base, "")))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false, configError(KindConfig, fmt.Sprintf("base URL %q is not http(s)", safeDetail(base, "")))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", false, configError(KindConfig, "base URL must not carry userinfo, a query or a fragment")
	}
	if scheme == "http" && sendsKey && !isLoopback(u.Hostname()) {
		if !operatorServer(provider) {
			return "", false, configError(KindConfig, fmt.Sprintf("refusing to send an API key over plain http to %s; use https", safeDetail(u.Host, "")))
		}
		cleartext = true
	}
	path := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(path, "/v1") {
		path += "/v1"
	}
	switch provider {
	case ProviderOllama:
		// The native API lives beside Ollama's "/v1", not under it.
		path = strings.TrimSuffix(path, "/v1") + "/api/chat"
	case ProviderAnthropic:
		path += "/messages"
	default:
		path += "/chat/completions"
	}
	u.Scheme, u.Path, u.RawPath = scheme, path, ""
	return u.String(), cleartext, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
