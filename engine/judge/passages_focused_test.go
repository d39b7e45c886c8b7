package judge

import (
	"fmt"
	"strings"
	"testing"
)

// TestFocusedPassages: under a small budget FocusedPassages keeps the
// claim's best sentence with both neighbours before a weaker match, where
// Passages takes every match first and neighbours after.
func TestFocusedPassages(t *testing.T) {
	sents := make([]string, 40)
	for i := range sents {
		sents[i] = fmt.Sprintf("Sentence %02d is plain filler text with no claim words in it at all.", i)
	}
	sents[10] = "The harbour bridge opened to traffic in May of the year 1937."
	sents[30] = "A harbour bridge was seen there and noted by the town."
	source := strings.Join(sents, " ")
	claim := "The harbour bridge opened in May 1937."
	budget := len(sents[0]) + len(sents[9]) + len(sents[10]) + len(sents[11]) + 4*3

	focused := FocusedPassages(source, claim, budget)
	if !strings.Contains(focused, sents[9]) || !strings.Contains(focused, sents[11]) || strings.Contains(focused, sents[30]) {
		t.Errorf("focused: want sentence 10 with both neighbours, not sentence 30:\n%s", focused)
	}
	plain := Passages(source, claim, budget)
	if !strings.Contains(plain, sents[30]) || strings.Contains(plain, sents[11]) {
		t.Errorf("plain: want both matches before the neighbours:\n%s", plain)
	}
	for name, got := range map[string]string{"focused": focused, "plain": plain} {
		if !strings.Contains(got, sents[10]) || len(got) > budget {
			t.Errorf("%s: %d bytes (budget %d), want the best sentence:\n%s", name, len(got), budget, got)
		}
	}
	if FocusedPassages("Short page.", claim, budget) != "Short page." {
		t.Error("a page within the budget must be returned whole")
	}
}
