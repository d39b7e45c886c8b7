package parse

import "testing"

// TestCiteReference: a marker resolved to an entry without a URL or DOI
// carries the entry's text (for a registry search), list marker and
// emphasis removed; one resolved to an entry with a URL, or to nothing,
// carries none.
func TestCiteReference(t *testing.T) {
	doc := []byte("Costs fell [1]. Buses last [2]. Nobody knows [3]. As Okafor said (Okafor, 2024).\n\n## References\n\n" +
		"1. Okafor, N. (2024). *Grid-scale storage costs: a ten-year review*. Energy Press.\n" +
		"2. Varga, T. (2023). Bus batteries. https://example.org/bus\n")
	want := map[string]string{
		"[1]":            "Okafor, N. (2024). Grid-scale storage costs: a ten-year review. Energy Press.",
		"[2]":            "",
		"[3]":            "",
		"(Okafor, 2024)": "Okafor, N. (2024). Grid-scale storage costs: a ten-year review. Energy Press.",
	}
	got := map[string]string{}
	for _, c := range Cite(doc) {
		got[c.Raw] = c.Reference
	}
	for raw, ref := range want {
		if got[raw] != ref {
			t.Errorf("%s: reference %q, want %q", raw, got[raw], ref)
		}
	}
}
