package judge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemPromptMatchesSeed compares SystemPrompt with seed 002's SYSTEM
// constant. testdata/seed002-system.txt is that constant's text, copied
// verbatim on 2026-11-23 from the project's seed 002
// (../shared/seeds/002_*.txt), so the test needs nothing beside the
// repository.
func TestSystemPromptMatchesSeed(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "seed002-system.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(seed) != SeedSystemPrompt {
		t.Errorf("SeedSystemPrompt differs from seed 002:\nseed: %q\nours: %q", seed, SeedSystemPrompt)
	}
	// SystemPrompt is the seed's with exactly one amendment (issue 11): the
	// verdict instruction before the response format, and the format's
	// extra "verdict" field.
	want := strings.Replace(SeedSystemPrompt, " Respond with a single JSON object", " "+verdictInstruction+" Respond with a single JSON object", 1)
	want = strings.Replace(want, `{ "supported": <boolean>`, `{ "verdict": "supported" | "unsupported" | "uncertain", "supported": <boolean>`, 1)
	if want != SystemPrompt {
		t.Errorf("SystemPrompt is not the seed's plus the verdict amendment:\nwant %q\ngot  %q", want, SystemPrompt)
	}
}

func TestParseOutcome(t *testing.T) {
	for _, tc := range []struct {
		raw       string
		supported bool
		want      string
	}{
		{`{"verdict":"uncertain","supported":true,"confidence":0.4,"rationale":"x"}`, true, VerdictUncertain},
		{"```json\n{\"verdict\": \" Unsupported \", \"supported\": false, \"confidence\": 0.9}\n```", false, VerdictUnsupported},
		{`{"verdict":"SUPPORTED","supported":true,"confidence":0.9}`, true, VerdictSupported},
		{`{"supported":true,"confidence":0.9}`, true, VerdictSupported},     // seed 002's shape
		{`{"supported":false,"confidence":0.9}`, false, VerdictUnsupported}, // seed 002's shape
		{`{"verdict":"maybe","supported":false,"confidence":0.5}`, false, VerdictUnsupported},
		{`{"verdict":3,"supported":true,"confidence":0.5}`, true, VerdictSupported},
	} {
		if got := ParseOutcome(tc.raw, tc.supported); got != tc.want {
			t.Errorf("ParseOutcome(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestSystemPromptContent(t *testing.T) {
	for _, want := range []string{
		"citation verification evaluator",
		"Do NOT penalize paraphrasing; DO penalize invented specifics not in the source.",
		`"supported": <boolean>`, `"confidence": <number 0.00..1.00>`, "quote 5-15 words",
		`"verdict": "supported" | "unsupported" | "uncertain"`, `"uncertain" when you cannot tell`,
		"JSON", // required by OpenAI's json_object mode
	} {
		if !strings.Contains(SystemPrompt, want) {
			t.Errorf("SystemPrompt lacks %q", want)
		}
	}
}

func TestUserPrompt(t *testing.T) {
	if got, want := UserPrompt("the claim", "the source"), "CLAIM:\nthe claim\n\nSOURCE TEXT:\nthe source"; got != want {
		t.Errorf("UserPrompt = %q, want %q", got, want)
	}

	exact := strings.Repeat("a", MaxSourceChars)
	if got := UserPrompt("c", exact); !strings.HasSuffix(got, exact) || strings.Contains(got, "truncated") {
		t.Error("a source of exactly MaxSourceChars must not be truncated")
	}

	long := strings.Repeat("a", MaxSourceChars) + "TAIL"
	got := UserPrompt("c", long)
	if !strings.HasSuffix(got, strings.Repeat("a", MaxSourceChars)+"\n\n[…source truncated…]") {
		t.Errorf("truncated prompt ends %q", got[len(got)-60:])
	}
	if strings.Contains(got, "TAIL") {
		t.Error("text past the cap reached the prompt")
	}

	// JavaScript counts UTF-16 code units: an emoji is two, "é" one.
	emoji := strings.Repeat("😀", MaxSourceChars/2) // exactly 12,000 units
	if got := UserPrompt("c", emoji); strings.Contains(got, "truncated") {
		t.Error("6,000 emoji are 12,000 UTF-16 units and must not be truncated")
	}
	odd := "a" + strings.Repeat("😀", MaxSourceChars/2) // 12,001 units
	got = UserPrompt("c", odd)
	body := strings.TrimSuffix(strings.TrimPrefix(got, "CLAIM:\nc\n\nSOURCE TEXT:\n"), TruncationMarker)
	if utf16Len(body) != MaxSourceChars-1 || !strings.HasPrefix(body, "a😀") {
		t.Errorf("cut inside a surrogate pair: kept %d units", utf16Len(body))
	}
	accents := strings.Repeat("é", MaxSourceChars+1)
	body = strings.TrimSuffix(strings.TrimPrefix(UserPrompt("c", accents), "CLAIM:\nc\n\nSOURCE TEXT:\n"), TruncationMarker)
	if utf16Len(body) != MaxSourceChars {
		t.Errorf("kept %d units of é, want %d", utf16Len(body), MaxSourceChars)
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		supported bool
		conf      float64
		rationale string
		malformed bool
	}{
		{"plain", `{"supported": true, "confidence": 0.9, "rationale": "quoted"}`, true, 0.9, "quoted", false},
		{"fenced json", "```json\n{\"supported\": true, \"confidence\": 0.8, \"rationale\": \"r\"}\n```", true, 0.8, "r", false},
		{"fenced JSON upper", "```JSON {\"supported\": false, \"confidence\": 0.1}```", false, 0.1, "", false},
		{"bare fence", "```\n{\"supported\": true, \"confidence\": 1}\n```", true, 1, "", false},
		{"prose around", `Here is my verdict: {"supported": false, "confidence": 0.2, "rationale": "no"} Hope it helps.`, false, 0.2, "no", false},
		{"leading space and BOM", "\uFEFF  {\"supported\": true, \"confidence\": 0.7}  ", true, 0.7, "", false},
		{"supported string is not true", `{"supported": "true", "confidence": 0.9}`, false, 0.9, "", false},
		{"supported 1 is not true", `{"supported": 1, "confidence": 0.9}`, false, 0.9, "", false},
		{"confidence as string", `{"supported": true, "confidence": "0.75"}`, true, 0.75, "", false},
		{"confidence null is 0 as in JS", `{"supported": false, "confidence": null}`, false, 0, "", false},
		{"confidence empty string is 0 as in JS", `{"supported": false, "confidence": ""}`, false, 0, "", false},
		{"rounded half up", `{"supported": true, "confidence": 0.875}`, true, 0.88, "", false},
		{"rounded down", `{"supported": true, "confidence": 0.123}`, true, 0.12, "", false},
		{"rationale not a string", `{"supported": true, "confidence": 0.5, "rationale": 5}`, true, 0.5, "", false},
		{"nested braces", `{"supported": true, "confidence": 0.6, "rationale": "a {b} c"}`, true, 0.6, "a {b} c", false},
		{"confidence above 1", `{"supported": true, "confidence": 1.5}`, false, 0, "", true},
		{"confidence below 0", `{"supported": true, "confidence": -0.1}`, false, 0, "", true},
		{"confidence 95 as percent", `{"supported": true, "confidence": 95}`, false, 0, "", true},
		{"confidence missing", `{"supported": true}`, false, 0, "", true},
		{"confidence word", `{"supported": true, "confidence": "high"}`, false, 0, "", true},
		{"confidence object", `{"supported": true, "confidence": {}}`, false, 0, "", true},
		{"confidence Infinity string", `{"supported": true, "confidence": "inf"}`, false, 0, "", true},
		{"no JSON", "The source supports the claim.", false, 0, "", true},
		{"only open brace", "{", false, 0, "", true},
		{"invalid JSON", `{"supported": true, "confidence": 0.9,}`, false, 0, "", true},
		{"empty", "", false, 0, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, c, r, err := ParseVerdict(tc.raw)
			if tc.malformed {
				var je *Error
				if !errors.As(err, &je) || je.Kind != KindMalformed {
					t.Fatalf("err = %v, want a %s *Error", err, KindMalformed)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if s != tc.supported || c != tc.conf || r != tc.rationale {
				t.Errorf("got (%v, %v, %q), want (%v, %v, %q)", s, c, r, tc.supported, tc.conf, tc.rationale)
			}
		})
	}
}

func TestParseVerdictErrorQuotesAnswer(t *testing.T) {
	_, _, _, err := ParseVerdict("I cannot decide\nthis one.")
	if err == nil || !strings.Contains(err.Error(), "I cannot decide this one.") {
		t.Errorf("error %v should quote the answer, folded onto one line", err)
	}
	_, _, _, err = ParseVerdict(strings.Repeat("x", 5000))
	if err == nil || len(err.Error()) > 400 {
		t.Errorf("error quoting a long answer is %d bytes", len(err.Error()))
	}
}

func FuzzParseVerdict(f *testing.F) {
	f.Add(`{"supported": true, "confidence": 0.9}`)
	f.Add("```json\n{}\n```")
	f.Add(`{"confidence": "0x10"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		s, c, _, err := ParseVerdict(raw)
		if err != nil {
			var je *Error
			if !errors.As(err, &je) || je.Kind != KindMalformed {
				t.Fatalf("error %v is not malformed_judge_response", err)
			}
			return
		}
		if c < 0 || c > 1 || c != round2(c) {
			t.Fatalf("confidence %v out of range or not rounded", c)
		}
		_ = s
	})
}
