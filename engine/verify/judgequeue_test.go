package verify

import "testing"

// TestJudgeBase: --provider ollama without --base-url trusts and calls
// Ollama's default address; every other setting keeps the operator's base.
func TestJudgeBase(t *testing.T) {
	for _, tc := range []struct{ provider, base, want string }{
		{"ollama", "", "http://127.0.0.1:11434"},
		{" Ollama ", "", "http://127.0.0.1:11434"},
		{"ollama", "http://10.0.0.5:11434", "http://10.0.0.5:11434"},
		{"openai-compatible", "", ""},
		{"", "", ""},
		{"", "http://127.0.0.1:8080", "http://127.0.0.1:8080"},
	} {
		if got := judgeBase(tc.provider, tc.base); got != tc.want {
			t.Errorf("judgeBase(%q, %q) = %q, want %q", tc.provider, tc.base, got, tc.want)
		}
	}
}
