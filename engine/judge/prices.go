package judge

import (
	"math"
	"slices"
)

// Price is a model's list price in USD per million tokens.
type Price struct {
	InputPerM, OutputPerM float64
	// NoTemperature marks models that reject a temperature parameter
	// (Claude Opus 4.7 and later, OpenAI o-series); the judge then sends
	// none instead of seed 002's temperature 0.
	NoTemperature bool
}

// Prices is the single model/price table, keyed by exact model id. It is
// data, not logic (apis.md: "never hard-code model ids or prices in
// logic"): a caller may add entries before calling New. Sources:
// apis.md §3 (Anthropic, [doc]) and §4.3 (OpenAI, [3p]; o1-mini
// UNCONFIRMED). Left out: models apis.md lists as retired on the
// provider's own API (claude-sonnet-4-20250514, claude-opus-4-1-20250805)
// and newer generations whose ids it does not give. Cached-input discounts
// are not modelled: usage is billed at the full input price, which can
// only over-estimate.
var Prices = map[string]Price{
	// Anthropic (apis.md §3).
	"claude-haiku-4-5-20251001":  {InputPerM: 1, OutputPerM: 5},
	"claude-haiku-4-5":           {InputPerM: 1, OutputPerM: 5},  // alias, UNCONFIRMED in apis.md
	"claude-sonnet-4-5-20250929": {InputPerM: 3, OutputPerM: 15}, // deprecated, retires 2026-11-30
	"claude-sonnet-4-6":          {InputPerM: 3, OutputPerM: 15},
	"claude-opus-4-5-20251101":   {InputPerM: 5, OutputPerM: 25},
	"claude-opus-4-6":            {InputPerM: 5, OutputPerM: 25},
	"claude-opus-4-7":            {InputPerM: 5, OutputPerM: 25, NoTemperature: true},
	"claude-opus-4-8":            {InputPerM: 5, OutputPerM: 25, NoTemperature: true},

	// OpenAI (apis.md §4.3).
	"gpt-4o":      {InputPerM: 2.50, OutputPerM: 10.00},
	"gpt-4o-mini": {InputPerM: 0.15, OutputPerM: 0.60},
	// Seed 002 supports o1-mini; apis.md says it was deprecated in 2025
	// and its price is UNCONFIRMED. Kept for parity with the reference.
	"o1-mini": {InputPerM: 1.10, OutputPerM: 4.40, NoTemperature: true},
}

// Cost returns the USD cost of inTok input and outTok output tokens.
func (p Price) Cost(inTok, outTok int) float64 {
	return float64(inTok)*p.InputPerM/1e6 + float64(outTok)*p.OutputPerM/1e6
}

// Pessimistic pre-call estimate of seed 002: the context is assumed to cost
// one token per four characters and the answer 512 tokens (twice the
// 256-token verdict budget).
const (
	estimateCharsPerToken = 4
	estimateOutputTokens  = 512
)

// estimateMaxCost is seed 002's
// estimateCostUsd(model, ceil((claim.length+source.length)/4), 512), with
// JavaScript string lengths (UTF-16 code units).
func estimateMaxCost(p Price, claim, source string) float64 {
	n := utf16Len(claim) + utf16Len(source)
	in := int(math.Ceil(float64(n) / estimateCharsPerToken))
	return p.Cost(in, estimateOutputTokens)
}

// KnownModels lists, sorted, the models of provider that have a Prices
// entry: the names an unknown-model error offers instead.
func KnownModels(provider string) []string {
	var out []string
	for m := range Prices {
		if p, err := InferProvider(m, ""); err == nil && p == provider {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}
