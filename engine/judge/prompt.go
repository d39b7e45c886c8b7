package judge

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// SeedSystemPrompt is seed 002's judge system prompt, verbatim (the seed's
// copy has its line breaks folded into spaces, and so does this one).
const SeedSystemPrompt = `You are a citation verification evaluator. Given a claim extracted from AI-generated output and the text of a cited source, decide whether the source supports the claim. Score 0.00 means the source contradicts the claim or does not mention it. Score 1.00 means the source clearly supports the claim. Be strict: do not rate as supported unless the source actually contains the assertion. Do NOT penalize paraphrasing; DO penalize invented specifics not in the source. Respond with a single JSON object — no markdown, no prose: { "supported": <boolean>, "confidence": <number 0.00..1.00>, "rationale": "<1-2 sentences — quote 5-15 words from the source if you found support>" }`

// SystemPrompt is seed 002's prompt with one amendment (issue 11): the
// judge may say that it cannot tell. It asks for a "verdict" of
// "supported", "unsupported" or "uncertain" beside seed 002's fields, whose
// "supported" stays the judge's best guess. The amendment sits before the
// response format, which is extended by the one field.
const SystemPrompt = `You are a citation verification evaluator. Given a claim extracted from AI-generated output and the text of a cited source, decide whether the source supports the claim. Score 0.00 means the source contradicts the claim or does not mention it. Score 1.00 means the source clearly supports the claim. Be strict: do not rate as supported unless the source actually contains the assertion. Do NOT penalize paraphrasing; DO penalize invented specifics not in the source. ` + verdictInstruction + ` Respond with a single JSON object — no markdown, no prose: { "verdict": "supported" | "unsupported" | "uncertain", "supported": <boolean>, "confidence": <number 0.00..1.00>, "rationale": "<1-2 sentences — quote 5-15 words from the source if you found support>" }`

// verdictInstruction is the amendment: when to answer "uncertain".
const verdictInstruction = `Give a "verdict": "supported" when the source clearly states the claim, "unsupported" when it contradicts the claim or clearly lacks one of its facts, and "uncertain" when you cannot tell from the text given (for example the passage is on the topic but neither states nor contradicts the claim); an uncertain verdict is better than a guess. "supported" is your best guess either way, and "confidence" is your confidence in the verdict.`

// MaxSourceChars is seed 002's source cap in UserPrompt (~3k tokens),
// counted like JavaScript's String.length, in UTF-16 code units.
const MaxSourceChars = 12_000

// TruncationMarker is appended to a source cut at MaxSourceChars.
const TruncationMarker = "\n\n[…source truncated…]"

// UserPrompt is seed 002's buildUser: the claim and the source text, the
// source cut to MaxSourceChars UTF-16 code units (never inside a character)
// plus TruncationMarker when longer.
func UserPrompt(claim, source string) string {
	if utf16Len(source) > MaxSourceChars {
		source = utf16Prefix(source, MaxSourceChars) + TruncationMarker
	}
	return "CLAIM:\n" + claim + "\n\nSOURCE TEXT:\n" + source
}

// ParseVerdict is seed 002's parseJudgeResult: the raw answer is trimmed,
// a leading ```json or ``` fence and a trailing ``` removed, and the text
// from the first '{' to the last '}' decoded as a JSON object. supported is
// true only for the JSON literal true; confidence must be a number in
// [0,1] (or a value JavaScript's Number() turns into one, such as "0.8")
// and is rounded to two decimals; rationale is "" unless a string. Any
// failure is an *Error of Kind KindMalformed. The three-way verdict is read
// by ParseOutcome.
func ParseVerdict(raw string) (supported bool, confidence float64, rationale string, err error) {
	trimmed := strings.TrimFunc(raw, isJSSpace)
	// The reference applies its three replacements in turn.
	if hasPrefixFold(trimmed, "```json") {
		trimmed = strings.TrimLeftFunc(trimmed[len("```json"):], isJSSpace)
	}
	if strings.HasPrefix(trimmed, "```") {
		trimmed = strings.TrimLeftFunc(trimmed[len("```"):], isJSSpace)
	}
	trimmed = strings.TrimSuffix(trimmed, "```")
	trimmed = strings.TrimFunc(trimmed, isJSSpace)

	first := strings.IndexByte(trimmed, '{')
	last := strings.LastIndexByte(trimmed, '}')
	if first < 0 || last <= first {
		return false, 0, "", malformed("judge did not emit JSON: " + safeDetail(utf16Prefix(raw, 200), ""))
	}
	var obj map[string]json.RawMessage
	if jerr := json.Unmarshal([]byte(trimmed[first:last+1]), &obj); jerr != nil {
		return false, 0, "", malformed("judge emitted invalid JSON: " + safeDetail(jerr.Error(), ""))
	}
	supported = string(obj["supported"]) == "true"
	confRaw, present := obj["confidence"]
	c := jsNumber(confRaw, present)
	if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 || c > 1 {
		shown := "undefined"
		if present {
			shown = safeDetail(string(confRaw), "")
		}
		return false, 0, "", malformed("judge confidence out of [0..1]: " + shown)
	}
	if r, ok := obj["rationale"]; ok {
		var s string
		if json.Unmarshal(r, &s) == nil {
			rationale = s
		}
	}
	return supported, round2(c), rationale, nil
}

// ParseOutcome reads the answer's "verdict" (issue 11): "supported",
// "unsupported" or "uncertain", in any case and with surrounding space. A
// judge that gives none (a seed 002 prompt, a model that ignores the
// amendment) or another value has its boolean taken as the verdict.
func ParseOutcome(raw string, supported bool) string {
	first := strings.IndexByte(raw, '{')
	last := strings.LastIndexByte(raw, '}')
	if first >= 0 && last > first {
		var obj struct {
			Verdict any `json:"verdict"`
		}
		if json.Unmarshal([]byte(raw[first:last+1]), &obj) == nil {
			if s, ok := obj.Verdict.(string); ok {
				switch v := strings.ToLower(strings.TrimSpace(s)); v {
				case VerdictSupported, VerdictUnsupported, VerdictUncertain:
					return v
				}
			}
		}
	}
	if supported {
		return VerdictSupported
	}
	return VerdictUnsupported
}

func malformed(msg string) *Error { return &Error{Kind: KindMalformed, Message: msg} }

// round2 is JavaScript's Math.round(x*100)/100 (halves round up).
func round2(x float64) float64 { return math.Floor(x*100+0.5) / 100 }

// jsNumber approximates JavaScript's Number() on a decoded JSON value:
// numbers as they are, strings parsed after trimming ("" is 0), true 1,
// false and null 0, [] 0 and [x] Number(x), anything else (objects, a
// missing key) NaN.
func jsNumber(raw json.RawMessage, present bool) float64 {
	if !present {
		return math.NaN()
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return math.NaN()
	}
	return jsNumberOf(v)
}

func jsNumberOf(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		s := strings.TrimFunc(x, isJSSpace)
		if s == "" {
			return 0
		}
		if strings.ContainsAny(s, "_xXpP") || strings.EqualFold(s, "inf") || strings.EqualFold(s, "nan") ||
			strings.EqualFold(s, "+inf") || strings.EqualFold(s, "-inf") || strings.EqualFold(s, "infinity") {
			// Forms Go accepts and JavaScript does not (or that are not
			// finite anyway).
			return math.NaN()
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	case []any:
		switch len(x) {
		case 0:
			return 0
		case 1:
			if _, nested := x[0].([]any); nested {
				return math.NaN()
			}
			if _, obj := x[0].(map[string]any); obj {
				return math.NaN()
			}
			return jsNumberOf(x[0])
		}
	}
	return math.NaN()
}

// isJSSpace is JavaScript's white space for trim() and \s: Unicode white
// space plus the byte-order mark.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// utf16Len is JavaScript's String.length of s: UTF-16 code units, with each
// invalid UTF-8 byte counted as one U+FFFD.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// utf16Prefix returns the longest prefix of s of at most n UTF-16 code
// units that does not split a character.
func utf16Prefix(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}
