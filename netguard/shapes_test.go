package netguard

import "testing"

// TestCredShapesCovered: every format in credShapes recognises at least
// one sample of pathTokens in both readings, and every sample is recognised
// by some format, so a format cannot be added without a test case.
func TestCredShapesCovered(t *testing.T) {
	for i := range credShapes {
		c := &credShapes[i]
		found := false
		for _, tok := range pathTokens {
			m := runMemo{s: tok}
			found = found || (c.match(&m, 0, true) && c.match(&m, 0, false))
		}
		if !found {
			t.Errorf("format %s has no sample in pathTokens", c.name)
		}
	}
	for name, tok := range pathTokens {
		if m := (runMemo{s: tok}); !m.shapeAt(0, true) || !m.shapeAt(0, false) {
			t.Errorf("sample %s (%s) is not recognised", name, tok)
		}
	}
}

// TestCredShapesStrictness: prefixes shared with ordinary words need more
// than the prefix in a path segment, but the bare format in a value.
func TestCredShapesStrictness(t *testing.T) {
	tests := []struct {
		s             string
		value, strict bool
	}{
		{"sk-learn-pipelines-for-text-classification", true, false},
		{"sk-proj-abcdefghijklmnopqrstuvwx", true, false},
		{tokOpenAI, true, true},
		{"sk_test_framework", true, false},
		{tokStripeTest, true, true},
		{"xoxb-2024-recap-and-more", true, false},
		{"xoxo-gossip-girl", false, false},
		{tokSlack, true, true},
		{"github_pat_rotation_policy_guide", true, false},
		{tokGitHubPAT, true, true},
		{"glpat-rotation-guide-for-admins", true, false},
		{tokGitLab, true, true},
		{"AKIAIOSFODNN7EXAMPLES", false, false},
		{"AKIAIOSFODNN7EXAMPL", false, false},
		{tokAWS + "-x", true, true},
		{"eyJhbGciOiJIUzI1NiJ9", false, false},
		{"eyJhbGciOiJIUzI1NiJ9.json", false, false},
		{tokJWTNone, true, true},
	}
	for _, tc := range tests {
		m := runMemo{s: tc.s}
		if got := m.shapeAt(0, false); got != tc.value {
			t.Errorf("value reading of %q = %v, want %v", tc.s, got, tc.value)
		}
		if got := m.shapeAt(0, true); got != tc.strict {
			t.Errorf("strict reading of %q = %v, want %v", tc.s, got, tc.strict)
		}
	}
}
