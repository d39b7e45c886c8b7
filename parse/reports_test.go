package parse

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// reportsDir holds short excerpts of real deep-research reports from public
// repositories (see its README.md for each one's origin and licence).
const reportsDir = "../testdata/parse/reports"

// reportGolden is the golden form of one excerpt: the citations Cite
// returns and the reference lists it found, so that a change in what counts
// as a list shows in review.
type reportGolden struct {
	Citations []Citation       `json:"citations"`
	Lists     []refListGolden  `json:"lists"`
	Footnotes []footnoteGolden `json:"footnotes"`
}

type refListGolden struct {
	Line    int              `json:"line"`
	Entries []refEntryGolden `json:"entries"`
}

type refEntryGolden struct {
	Numbers []int  `json:"numbers,omitempty"`
	Lines   [2]int `json:"lines"` // first and last line
	Target  string `json:"target"`
}

type footnoteGolden struct {
	Label  string `json:"label"`
	Line   int    `json:"line"`
	Target string `json:"target"`
}

// lineOf returns the 1-based line of byte offset off.
func lineOf(src []byte, off int) int {
	return strings.Count(string(src[:min(off, len(src))]), "\n") + 1
}

// entrySpans returns the byte ranges of every list entry and footnote
// definition the citer filed.
func entrySpans(c *citer) []span {
	var out []span
	for _, l := range c.lists {
		for _, e := range l.entries {
			out = append(out, span{e.start, e.end})
		}
	}
	for _, e := range c.footnotes {
		out = append(out, span{e.start, e.end})
	}
	return out
}

func goldenOf(src []byte, c *citer) reportGolden {
	g := reportGolden{Citations: c.out, Lists: []refListGolden{}, Footnotes: []footnoteGolden{}}
	if g.Citations == nil {
		g.Citations = []Citation{}
	}
	for _, l := range c.lists {
		nums := map[*refEntry][]int{}
		for n, e := range l.byNum {
			nums[e] = append(nums[e], n)
		}
		lg := refListGolden{Line: lineOf(src, l.pos), Entries: []refEntryGolden{}}
		for _, e := range l.entries {
			ns := nums[e]
			slices.Sort(ns)
			lg.Entries = append(lg.Entries, refEntryGolden{Numbers: ns,
				Lines: [2]int{lineOf(src, e.start), lineOf(src, max(e.end-1, e.start))}, Target: e.target})
		}
		g.Lists = append(g.Lists, lg)
	}
	for label, e := range c.footnotes {
		g.Footnotes = append(g.Footnotes, footnoteGolden{label, lineOf(src, e.start), e.target})
	}
	sort.Slice(g.Footnotes, func(i, j int) bool { return g.Footnotes[i].Line < g.Footnotes[j].Line })
	return g
}

// reportExpect is what a reader of an excerpt sees in it, written down by
// hand: the entries of each reference list, how many in-text markers
// resolve and how many cannot (their entry is not in the report), and
// markers checked against the entry they must reach.
type reportExpect struct {
	entries    []int             // entries per list, in document order
	resolved   int               // numbered, footnote and author–year citations with a target
	unresolved int               // … without one
	urls       int               // url and doi citations
	checks     map[string]string // Raw of the first citation with it → its target
}

var reportExpects = map[string]reportExpect{
	// Gemini exports: "#### **Works cited**" and its translations; the
	// body's citations are digits glued to the punctuation ("crop.1
	// Furthermore") or <sup>N</sup>. 02's list was cut off after entry 1,
	// so only its "1" markers are citations; 04 writes its whole list on
	// one line ("1\. … 2\. …", cut after four here); 05 and 06 write
	// "Merging 1）", too close to "Phase 1" to take.
	"01-gemini-works-cited-en.md": {entries: []int{7}, resolved: 1, checks: map[string]string{
		"1": "https://www.growseed.co.uk/high-calorie-crops-maximizing-energy-yield-from-your-garden.html"}},
	"02-gemini-works-cited-truncated-en.md": {entries: []int{1}, resolved: 2},
	"04-gemini-quellenangaben-de.md":        {entries: []int{4}},
	"05-gemini-inyou-bunken-ja.md":          {entries: []int{3}},
	// The first list is a label paragraph of internal documents; its
	// opening sentence is filed as an entry too (harmless: no link).
	"06-gemini-two-lists-ja.md": {entries: []int{5, 3}},
	"07-gemini-sup-works-cited-zh.md": {entries: []int{2}, resolved: 1, checks: map[string]string{
		"<sup>1</sup>": "https://dev.epicgames.com/documentation/en-us/unreal-engine/scripting-and-automating-the-unreal-editor"}},
	"08-gemini-zh-tw-heading-en.md": {entries: []int{4}, resolved: 3, checks: map[string]string{
		"1": "https://www.britannica.com/science/horizontal-gene-transfer",
		"2": "https://en.wikipedia.org/wiki/Horizontal_gene_transfer"}},
	// ChatGPT copied from the UI: inline links in the body, a "**Sources:**"
	// label over a numbered list.
	"03-chatgpt-sources-label-en.md": {entries: []int{2}, urls: 3},
	// OpenAI docx export: no heading, "[1] [4] [8] host" then the URL.
	"09-openai-docx-unheaded-en.md": {entries: []int{4}, resolved: 4, checks: map[string]string{
		"[1]":  "https://academic.oup.com/plcell/article/37/9/koaf195/8238793",
		"[2]":  "https://deepblue.lib.umich.edu/handle/2027.42/62688",
		"[73]": "https://europepmc.org/article/MED/28672159",
	}},
	"10-chatgpt-cite-tokens-no-list-en.md": {},
	"11-dls-references-doi-en.md": {entries: []int{15}, resolved: 14, checks: map[string]string{
		"[1]": "10.1038/nature11152", "[6]": "https://arxiv.org/pdf/2408.07222.pdf",
		"[10]": "https://pubmed.ncbi.nlm.nih.gov/20428170/",
	}},
	"12-claude-cankao-wenxian-zh.md": {entries: []int{5}, resolved: 4, checks: map[string]string{
		"[1]": "https://www.epochtimes.com/gb/14/8/27/n4234092.htm", "[2]": "https://chinadigitaltimes.net/chinese/550513.html",
	}},
	"13-claude-zh-label-en.md": {entries: []int{18}, resolved: 2, checks: map[string]string{
		"[1]": "https://arxiv.org/abs/2011.03044", "[18]": "https://www.brookings.edu/articles/generative-ai-the-american-worker-and-the-future-of-work/",
	}},
	// "**Bibliography**" then "**Primary Sources:**" and "**Secondary
	// Sources:**" labels over bullet lists (the first label holds nothing),
	// a note paragraph after the last list (prose: one URL), then the
	// unheaded docx list. The body cites with links (one URL).
	"14-chatgpt-docx-bibliography-en.md": {entries: []int{0, 1, 2, 2}, urls: 2},
	// The "*(Note: …)*" paragraph under References is filed as an entry.
	"15-chatgpt-numbered-references-apa-en.md": {entries: []int{4}},
	"16-agent-sources-image-sources-en.md": {entries: []int{6}, resolved: 5, checks: map[string]string{
		"[4]":  "https://fortune.com/2025/12/02/sam-altman-declares-code-red-google-gemini-ceo-sundar-pichai/",
		"[17]": "https://datasciencedojo.com/blog/the-complete-history-of-openai-models/",
	}},
	"17-agent-sources-footer-en.md": {entries: []int{2}, resolved: 1, checks: map[string]string{
		"[6]": "https://www.technavio.com/report/knitting-and-crochet-market-industry-analysis"}},
	"18-claude-research-skill-subheadings-en.md": {entries: []int{9}, urls: 3},
	"19-openclaw-numbered-chinese-table-zh.md": {entries: []int{3}, resolved: 2, checks: map[string]string{
		"[1]": "https://github.com/langchain-ai/langgraph", "[2]": "https://microsoft.github.io/autogen/stable/",
	}},
	"20-openclaw-laiyuan-liebiao-zh.md": {entries: []int{3}, urls: 2},
	"21-agent-cankao-ziliao-zh.md":      {entries: []int{3}},
	// STORM: a "References:" line inside a paragraph, and a "[1] …" line
	// ending the article's last paragraph.
	"23-storm-references-label-en.md": {entries: []int{5, 1}, resolved: 2, urls: 2, checks: map[string]string{
		"[1]": "https://clinicaltrials.gov/ct2/show/NCT04597863",
	}},
	"24-gpt-researcher-two-lists-zh.md":      {entries: []int{2, 3}, urls: 2},
	"25-gpt-researcher-cankao-wenxian-zh.md": {entries: []int{2}, urls: 1},
	"26-gpt-researcher-unnumbered-apa-en.md": {entries: []int{3}, urls: 2},
}

// TestCiteReportLayouts runs Cite on every excerpt: its citations and lists
// must match the golden file (`go test ./parse -update` rewrites them), no
// list entry may be reported as a citation, and the hand-written
// expectations above must hold.
func TestCiteReportLayouts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(reportsDir, "*.md"))
	if err != nil || len(files) < 12 {
		t.Fatalf("want at least 12 excerpts in %s, got %d (%v)", reportsDir, len(files), err)
	}
	for _, md := range files {
		name := filepath.Base(md)
		if name == "README.md" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			c := runCite(src)
			checkCitations(t, src, c.out)
			spans := entrySpans(c)
			for _, cit := range c.out {
				for _, s := range spans {
					if cit.OffsetStart >= s.start && cit.OffsetStart < s.end {
						t.Errorf("list entry on line %d reported as citation %q", lineOf(src, cit.OffsetStart), cit.Raw)
					}
				}
			}
			want, ok := reportExpects[name]
			if !ok {
				t.Fatalf("no expectations for %s", name)
			}
			var entries []int
			for _, l := range c.lists {
				entries = append(entries, len(l.entries))
			}
			if !slices.Equal(entries, want.entries) {
				t.Errorf("entries per list = %v, want %v", entries, want.entries)
			}
			var resolved, unresolved, urls int
			seen := map[string]string{}
			for _, cit := range c.out {
				switch {
				case cit.Kind == CiteURL || cit.Kind == CiteDOI:
					urls++
				case cit.Target != "":
					resolved++
				default:
					unresolved++
				}
				if _, dup := seen[cit.Raw]; !dup {
					seen[cit.Raw] = cit.Target
				}
			}
			if resolved != want.resolved || unresolved != want.unresolved || urls != want.urls {
				t.Errorf("resolved, unresolved, urls = %d, %d, %d; want %d, %d, %d",
					resolved, unresolved, urls, want.resolved, want.unresolved, want.urls)
			}
			for raw, target := range want.checks {
				if got, ok := seen[raw]; !ok || got != target {
					t.Errorf("%s resolves to %q, want %q", raw, got, target)
				}
			}
			checkGolden(t, md, goldenOf(src, c))
		})
	}
}
