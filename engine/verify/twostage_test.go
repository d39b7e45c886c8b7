package verify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/judge"
)

// stagedJudge answers by the text it is given and records each call.
type stagedJudge struct {
	answer func(source string) (judge.Verdict, error)
	seen   []string
}

func (s *stagedJudge) Judge(_ context.Context, _ string, source string) (judge.Verdict, error) {
	s.seen = append(s.seen, source)
	return s.answer(source)
}
func (s *stagedJudge) EstimateMaxCostUSD(string, string) float64 { return 0 }
func (s *stagedJudge) Name() string                              { return "staged" }

// TestJudgeTwoStage: the focused excerpt first; the full passages only
// when the first answer is not supported and there is more to read; both
// calls' usage in the verdict; a failed first call ends it.
func TestJudgeTwoStage(t *testing.T) {
	cost := func(c float64) *float64 { return &c }
	answer := func(outcome string) judge.Verdict {
		return judge.Verdict{Outcome: outcome, InputTokens: 10, OutputTokens: 2, LatencyMS: 5, CostUSD: cost(0.5)}
	}
	for _, tc := range []struct {
		name          string
		focused, full string
		first         string // the first call's outcome; "" fails it
		wantCalls     int
		wantOutcome   string
		wantIn        int
	}{
		{"supported from the excerpt", "A.", "A. B.", judge.VerdictSupported, 1, judge.VerdictSupported, 10},
		{"unsupported: read it all", "A.", "A. B.", judge.VerdictUnsupported, 2, judge.VerdictSupported, 20},
		{"uncertain: read it all", "A.", "A. B.", judge.VerdictUncertain, 2, judge.VerdictSupported, 20},
		{"nothing more to read", "A. B.", "A. B.", judge.VerdictUnsupported, 1, judge.VerdictUnsupported, 10},
		{"first call fails", "A.", "A. B.", "", 1, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &stagedJudge{answer: func(source string) (judge.Verdict, error) {
				if source == tc.focused {
					if tc.first == "" {
						return judge.Verdict{}, errors.New("boom")
					}
					return answer(tc.first), nil
				}
				return answer(judge.VerdictSupported), nil
			}}
			v, err := JudgeTwoStage(context.Background(), j, "claim", tc.focused, tc.full)
			if (err != nil) != (tc.first == "") || len(j.seen) != tc.wantCalls || v.Outcome != tc.wantOutcome || v.InputTokens != tc.wantIn {
				t.Fatalf("verdict %+v, %v after %d calls; want %s, %d input tokens, %d calls", v, err, len(j.seen), tc.wantOutcome, tc.wantIn, tc.wantCalls)
			}
			if tc.wantCalls == 2 && (*v.CostUSD != 1 || v.LatencyMS != 10 || v.OutputTokens != 4) {
				t.Errorf("usage not summed: %+v", v)
			}
		})
	}
}

// TestJudgeInputs: the focused excerpt is within its budget and holds the
// claim's sentence; the full passages are JudgeInput's.
func TestJudgeInputs(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><article>")
	for i := range 120 {
		b.WriteString("<p>Filler sentence number " + strings.Repeat("x", i%7+1) + " about nothing in particular here.</p>")
		if i == 80 {
			b.WriteString("<p>The harbour bridge opened to traffic on 27 May 1937 after four years of work.</p>")
		}
	}
	b.WriteString("</article></body></html>")
	page := []byte(b.String())
	claim := "The harbour bridge opened on 27 May 1937."
	focused, full := JudgeInputs(page, "text/html", claim)
	if len(focused) > focusedSourceChars || !strings.Contains(focused, "opened to traffic on 27 May 1937") {
		t.Errorf("focused excerpt (%d bytes): %q", len(focused), focused)
	}
	if full != JudgeInput(page, "text/html", claim) || len(full) <= len(focused) {
		t.Errorf("full passages differ from JudgeInput or are not longer (%d vs %d bytes)", len(full), len(focused))
	}
}
