package cli

// Closest is the candidate nearest to s by edit distance when it is near
// enough to be a typo (at most a third of the longer word, and at most 3
// edits), else "": "rnu" → "run", "--headles" → "--headless".
func Closest(s string, candidates []string) string {
	best, bestD := "", 4
	for _, c := range candidates {
		d := editDistance(s, c)
		limit := max(1, max(len(s), len(c))/3)
		if d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count
// one edit) between a and b, by bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
