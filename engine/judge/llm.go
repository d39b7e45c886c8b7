package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/citegate/citegate/netguard"
)

const (
	// MaxResponseBytes caps every API response body read.
	MaxResponseBytes = 1 << 20
	// maxDetail bounds provider-supplied text quoted in an error message.
	maxDetail = 240
	// anthropicVersion is the API version header value (apis.md §3).
	anthropicVersion = "2023-06-01"
	userAgent        = "citegate-judge/1"
)

// llmJudge is the Anthropic, OpenAI and openai-compatible judge; the wire
// format is chosen by provider.
type llmJudge struct {
	provider string
	model    string
	price    *Price // nil: cost unknown (openai-compatible)
	key      string // may be "" for openai-compatible
	endpoint string
	client   *http.Client // caller's client, copied, redirects off
	timeout  time.Duration
	// sleep waits out a rate limit or a loading model, now reads the
	// clock; tests replace both.
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

func (j *llmJudge) Name() string {
	if j.model == "" {
		return j.provider
	}
	return j.provider + "/" + j.model
}

func (j *llmJudge) EstimateMaxCostUSD(claim, source string) float64 {
	if j.price == nil {
		return 0
	}
	return estimateMaxCost(*j.price, claim, source)
}

// answer is what a provider call yields before parsing the verdict.
type answer struct {
	text          string
	inTok, outTok int
	hasUsage      bool
}

func (j *llmJudge) Judge(ctx context.Context, claim, source string) (Verdict, error) {
	body, err := j.requestBody(claim, source)
	if err != nil {
		return Verdict{}, &Error{Kind: KindLLM, Message: "encoding request: " + j.sanitize(err.Error())}
	}
	start := time.Now()
	raw, err := j.postRetrying(ctx, body)
	latency := time.Since(start).Milliseconds()
	if err != nil {
		return Verdict{}, err
	}
	ans, derr := j.decode(raw)

	// The call was answered and billed: tokens, cost and latency are kept
	// even when no verdict can be read from it (as in seed 002, which adds
	// the cost before parsing).
	v := Verdict{InputTokens: ans.inTok, OutputTokens: ans.outTok, LatencyMS: latency}
	if j.price != nil {
		var cost float64
		if ans.hasUsage {
			cost = j.price.Cost(ans.inTok, ans.outTok)
		} else {
			// No usage reported: charge the pessimistic estimate so a
			// caller's cost cap still holds.
			cost = j.EstimateMaxCostUSD(claim, source)
		}
		v.CostUSD = &cost
	}
	if derr != nil {
		return v, derr
	}
	text := j.scrub(ans.text)
	supported, conf, rationale, perr := ParseVerdict(text)
	if perr != nil {
		var je *Error
		if errors.As(perr, &je) {
			je.Message = j.scrub(je.Message)
		}
		return v, perr
	}
	v.Outcome = ParseOutcome(text, supported)
	v.Supported, v.Confidence, v.Rationale = supported, conf, j.scrub(rationale)
	return v, nil
}

// Rate limits: a 429 is retried up to maxRetries times, after the
// server's Retry-After when it sends one, else after an exponential
// backoff from firstBackoff; a Retry-After longer than maxRetryWait is not
// waited for (the call fails rate_limited with it).
const (
	maxRetries   = 3
	firstBackoff = time.Second
	maxRetryWait = 30 * time.Second
)

// postRetrying is post with rate limits and a loading model waited out.
// Each attempt has the judge's timeout; a loading model's retries all fit
// in one judge timeout from the first attempt (loading.go); the waits end
// with ctx.
func (j *llmJudge) postRetrying(ctx context.Context, body []byte) ([]byte, error) {
	load := j.newLoadingBudget()
	for attempt := 0; ; attempt++ {
		raw, err := j.postOnce(ctx, body, load.remaining())
		var je *Error
		if err == nil || !errors.As(err, &je) {
			return raw, err
		}
		var wait time.Duration
		switch {
		case je.loading:
			var ok bool
			if wait, ok = load.next(); !ok {
				je.Message += load.gaveUp()
				return nil, je
			}
		case je.Kind == KindRateLimited && attempt < maxRetries:
			if wait = je.RetryAfter; wait <= 0 {
				wait = firstBackoff << attempt
			}
			if wait > maxRetryWait {
				return nil, err
			}
		default:
			return raw, err
		}
		sleep := j.sleep
		if sleep == nil {
			sleep = netguard.Sleep
		}
		if sleep(ctx, wait) != nil {
			return nil, j.transportError(ctx, ctx.Err())
		}
	}
}

// postOnce is one attempt, bounded by the judge's timeout or, when set
// and shorter, by limit.
func (j *llmJudge) postOnce(ctx context.Context, body []byte, limit time.Duration) ([]byte, error) {
	timeout := j.timeout
	if limit > 0 {
		timeout = min(timeout, limit)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return j.post(ctx, body)
}

// post sends body and returns the response body of a 2xx answer, or the
// mapped *Error.
func (j *llmJudge) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Kind: KindLLM, Message: "building request: " + j.sanitize(err.Error())}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if j.provider == ProviderAnthropic {
		req.Header.Set("x-api-key", j.key)
		req.Header.Set("anthropic-version", anthropicVersion)
	} else if j.key != "" {
		req.Header.Set("Authorization", "Bearer "+j.key)
	}

	resp, err := j.client.Do(req)
	if err != nil {
		return nil, j.transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if rerr != nil {
		return nil, j.transportError(ctx, rerr)
	}
	tooBig := len(data) > MaxResponseBytes
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if tooBig {
			return nil, &Error{Kind: KindLLM, HTTPStatus: resp.StatusCode,
				Message: fmt.Sprintf("%s: response exceeds %d bytes", j.provider, MaxResponseBytes)}
		}
		return data, nil
	}
	return nil, j.statusError(resp, data[:min(len(data), MaxResponseBytes)])
}

// transportError maps a failed round trip or body read.
func (j *llmJudge) transportError(ctx context.Context, err error) *Error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindTimeout, cause: context.DeadlineExceeded,
			Message: fmt.Sprintf("%s: no answer within the judge timeout (%s)", j.provider, j.timeout)}
	case errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled):
		return &Error{Kind: KindLLM, cause: context.Canceled, Message: j.provider + ": call canceled"}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Kind: KindTimeout, Message: j.provider + ": " + j.sanitize(err.Error())}
	}
	return &Error{Kind: KindLLM, Message: j.provider + ": " + j.sanitize(err.Error())}
}

// statusError maps a non-2xx answer. Both APIs send
// {"error":{"type":…,"message":…}} (Anthropic wraps it in
// {"type":"error",…}); Ollama and LM Studio {"error":"…"}, vLLM
// {"object":"error","message":…}; a body that is not JSON is quoted as
// text.
func (j *llmJudge) statusError(resp *http.Response, body []byte) *Error {
	var env struct {
		Error json.RawMessage `json:"error"`
		// vLLM: {"object":"error","message":…,"type":…,"code":…}.
		Object  string `json:"object"`
		Message string `json:"message"`
	}
	var detail struct {
		Type    string `json:"type"`
		Code    any    `json:"code"`
		Message string `json:"message"`
	}
	text := ""
	if json.Unmarshal(body, &env) == nil && len(env.Error) > 0 {
		if json.Unmarshal(env.Error, &detail) == nil {
			text = strings.TrimSpace(detail.Type + ": " + detail.Message)
			text = strings.TrimPrefix(text, ": ")
		} else {
			var s string
			if json.Unmarshal(env.Error, &s) == nil {
				text = s // Ollama: {"error":"…"}
			}
		}
	}
	if text == "" && env.Object == "error" {
		text = env.Message
	}
	if text == "" {
		text = string(body)
	}
	msg := fmt.Sprintf("%s: HTTP %d", j.provider, resp.StatusCode)
	if d := j.sanitize(text); d != "" {
		msg += ": " + d
	}
	e := &Error{Kind: KindLLM, HTTPStatus: resp.StatusCode, Message: msg}
	e.loading = resp.StatusCode == http.StatusServiceUnavailable && modelLoading(detail.Type, text)
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.Kind = KindAuth
	case http.StatusTooManyRequests:
		e.Kind = KindRateLimited
		e.RetryAfter = retryAfter(resp.Header, time.Now())
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		e.Kind = KindTimeout
	default:
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			e.Message = fmt.Sprintf("%s: HTTP %d: unexpected redirect (not followed)", j.provider, resp.StatusCode)
		}
	}
	return e
}

// retryAfter reads Retry-After (delta seconds or an HTTP date) and, failing
// that, retry-after-ms.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && secs < 1e6 {
			return time.Duration(secs * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			if d := t.Sub(now); d > 0 {
				return d.Round(time.Second)
			}
			return 0
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	return 0
}

// scrub removes the API key from s.
func (j *llmJudge) scrub(s string) string {
	return netguard.NewScrubber([]string{j.key}, nil).String(s)
}

// sanitize makes provider- or transport-supplied text safe for an error.
func (j *llmJudge) sanitize(s string) string { return safeDetail(s, j.key) }

// safeDetail makes untrusted text safe to put in an error
// (netguard.Scrubber.Detail with the key), cut to maxDetail bytes.
func safeDetail(s, key string) string {
	return netguard.NewScrubber([]string{key}, nil).Detail(s, maxDetail)
}
