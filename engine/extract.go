package engine

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
	"github.com/citegate/citegate/parse/icu"
)

const (
	// maxProvenance bounds found-by items per distinct URL (seed 003).
	maxProvenance = 20
	// maxSourceLine bounds a provenance line so one pathological line cannot
	// bloat found-by.json twenty times over.
	maxSourceLine = 512
)

// ExtractArgs mirrors deep_research_citations_extract_urls.
type ExtractArgs struct {
	ManifestPath      string `json:"manifest_path" jsonschema:"Absolute path of the run directory's manifest.json (required). Relative paths are refused. The tool deep_research_citations_init (or citegate init DIR) writes a run directory with one."`
	IncludeWave2      *bool  `json:"include_wave2,omitempty" jsonschema:"Also read the wave-2 files: true or false. Default true."`
	ExtractedURLsPath string `json:"extracted_urls_path,omitempty" jsonschema:"Absolute path to write the extracted URLs (one per line) to, inside the run directory. Default (recommended): <run>/citations/extracted-urls.txt."`
	FoundByPath       string `json:"found_by_path,omitempty" jsonschema:"Absolute path to write found-by.json (which wave files cite each URL) to, inside the run directory. Default (recommended): <run>/citations/found-by.json."`
	Reason            string `json:"reason" jsonschema:"Why this step is run, in a few words (required; e.g. 'first pass' or 'recheck after fixing wave-1'); recorded in the run's logs/audit.jsonl; at most 1000 characters."`
	// SourceTitles are section titles read like "Sources" (see
	// parse.SourcesOptions); nil takes run-config.json's
	// effective.citations.source_section_titles. Not in the reference's
	// tool spec.
	SourceTitles []string `json:"source_section_titles,omitempty" jsonschema:"Further section titles whose lists are read like a 'Sources' section, e.g. ['References', 'Bibliography']. Default: run-config.json's effective.citations.source_section_titles (set by init), else only the built-in titles."`
}

// ExtractResult is the tool's success envelope.
type ExtractResult struct {
	OK                bool   `json:"ok"`
	RunID             string `json:"run_id"`
	ExtractedURLsPath string `json:"extracted_urls_path"`
	FoundByPath       string `json:"found_by_path"`
	TotalFound        int    `json:"total_found"`
	UniqueFound       int    `json:"unique_found"`
	InputsDigest      string `json:"inputs_digest"`
	// Warnings name the entries of the wave directories that were not
	// read (symlinks, FIFOs and other irregular files; see walkMarkdown),
	// then, file by file, a wave file that gave no URL and each list of
	// sources the Sources rule skipped (fileWarnings), so that a Gate C
	// computed without them does not pass silently.
	Warnings []string `json:"warnings,omitempty"`
}

type extractDigest struct {
	Schema       string   `json:"schema"`
	RunID        string   `json:"run_id"`
	IncludeWave2 bool     `json:"include_wave2"`
	RunRoot      string   `json:"run_root"`
	Wave1Dir     string   `json:"wave1_dir"`
	Wave2Dir     string   `json:"wave2_dir"`
	ScannedFiles []string `json:"scanned_files"`
	// SourceTitles is left out when empty, so that a run without extra
	// titles keeps the digest it always had.
	SourceTitles []string `json:"source_section_titles,omitempty"`
}

// extraction is the in-memory result of the extract stage.
type extraction struct {
	totalFound int
	unique     []string // distinct url_original, ICU-sorted
	// raw maps each url_original to the URL as first written, when that
	// differs (a secret was redacted); in memory only.
	raw     map[string]string
	foundBy FoundByDoc
	digest  string
	// warnings name the wave directory entries that were skipped, then
	// each file's fileWarnings.
	warnings []string
	// unchecked tallies what the warnings name (Gate C's line says it).
	unchecked Unchecked
	// texts are the provenance items' link texts, indexed only when the
	// live ladder will need them (extract's withTexts).
	texts linkTexts
}

// scannedFile is one wave file's provenance items and, for a live run,
// beside each the markdown text of its link (parse.Link.Text), which the
// classifier compares with the page (found-by.json keeps the reference's
// fields, so the texts stay in memory).
//
// The items are held without pointers until the merge: their strings as
// spans of one buffer per file (each source line once, a URL inside its
// line where it is written as it is), so the collector, which runs a dozen
// times while the waves are parsed, marks one buffer per file instead of
// tracing every item's strings each time; item makes them strings.
type scannedFile struct {
	wave, pid, rel string
	// blob is a strings.Builder so that its string is the bytes written,
	// not a copy of them; a pointer, because a Builder must not be copied.
	blob  *strings.Builder
	links []scannedLink
	texts []string
	// warnings say that the file gave no URL, and name the lists of
	// sources the Sources rule skipped (fileWarnings); unchecked counts
	// them.
	warnings  []string
	unchecked Unchecked
}

// scannedLink is one provenance item: spans of its file's blob.
type scannedLink struct {
	url, line, raw span
}

type span struct{ start, end int32 }

// item is the file's i-th provenance item, its strings slices of blob (the
// blob's string).
func (f *scannedFile) item(blob string, i int) FoundByItem {
	l := f.links[i]
	return FoundByItem{
		URLOriginal: blob[l.url.start:l.url.end], Wave: f.wave, PerspectiveID: f.pid,
		SourceLine: blob[l.line.start:l.line.end], Ordinal: i + 1, ArtifactPath: f.rel,
		raw: blob[l.raw.start:l.raw.end],
	}
}

// add appends str to the blob and returns its span.
func (f *scannedFile) add(str string) span {
	start := int32(f.blob.Len())
	f.blob.WriteString(str)
	return span{start, int32(f.blob.Len())}
}

// within returns the span of str inside line (the text of the span at,
// already in the blob) when str is there, else adds it.
func (f *scannedFile) within(str, line string, at span) span {
	if i := strings.Index(line, str); i >= 0 {
		start := at.start + int32(i)
		return span{start, start + int32(len(str))}
	}
	return f.add(str)
}

// linkTexts maps a provenance item, as found-by.json identifies it, to the
// markdown text of its link.
type linkTexts map[linkTextKey]string

type linkTextKey struct{ artifactPath, urlOriginal, sourceLine string }

// add records the first text seen for an item.
func (t linkTexts) add(it FoundByItem, text string) {
	k := linkTextKey{it.ArtifactPath, it.URLOriginal, it.SourceLine}
	if _, ok := t[k]; !ok {
		t[k] = text
	}
}

// lookup returns the text of the link an entry points at: the one recorded
// at extraction, or, when the wave file has changed since, the text of the
// link to url on the stored source line.
func (t linkTexts) lookup(e FoundByEntry, url string) string {
	if text, ok := t[linkTextKey{e.ArtifactPath, url, e.SourceLine}]; ok {
		return text
	}
	return linkTextOnLine(e.SourceLine, url)
}

// linkTextOnLine parses a stored source line on its own and returns the
// text of its link to url (compared redacted, as url is). A line cut at
// maxSourceLine or a reference link defined elsewhere yields "".
func linkTextOnLine(line, url string) string {
	links, err := parse.Sources(context.Background(), []byte("## Sources\n\n"+line+"\n"))
	if err != nil {
		return ""
	}
	for _, l := range links {
		if u, _ := netguard.RedactURL(l.URL); u == url {
			return l.Text
		}
	}
	return ""
}

type waveFile struct {
	wave string // "wave-1" or "wave-2", whatever the directory is called
	abs  string
}

// extract scans the wave directories and collects Sources URLs (seed 003),
// and those of the sections titled as titles says (see sourceTitles).
//
// withTexts indexes the links' texts (extraction.texts), which only the live
// ladder needs. The per-file results are merged and dropped: a large run
// must not hold its provenance twice.
func (e *Engine) extract(ctx context.Context, run *RunDir, includeWave2 bool, titles []string, withTexts bool) (*extraction, error) {
	paths := run.Manifest.Artifacts.Paths
	w1, werr := run.waveDir("wave1_dir", paths.Wave1Dir, "wave-1")
	if werr != nil {
		return nil, werr
	}
	w2, werr := run.waveDir("wave2_dir", paths.Wave2Dir, "wave-2")
	if werr != nil {
		return nil, werr
	}
	var w walk
	st, err := os.Stat(w1)
	if err != nil || !st.IsDir() {
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, readError("wave dir", w1, "wave dir missing", err)
		}
		return nil, newError(CodeNotFound, "wave dir missing", map[string]any{"wave_dir": cmp.Or(paths.Wave1Dir, "wave-1"), "path": w1})
	}
	if err = w.markdown(run.Root, w1, "wave-1"); err != nil {
		return nil, readError("wave dir", w1, "wave dir missing", err)
	}
	if includeWave2 {
		if st, err := os.Stat(w2); err == nil && st.IsDir() {
			if err = w.markdown(run.Root, w2, "wave-2"); err != nil {
				return nil, readError("wave dir", w2, "wave dir missing", err)
			}
		}
	}
	files := w.files
	icu.SortBy(files, func(f waveFile) string { return f.abs })

	perFile, err := e.scanFiles(ctx, run.Root, files, parse.SourcesOptions{Titles: titles}, withTexts)
	if err != nil {
		return nil, err
	}

	x := &extraction{raw: map[string]string{}, warnings: w.warnings, unchecked: Unchecked{Entries: len(w.warnings)}}
	if withTexts {
		x.texts = linkTexts{}
	}
	total := 0
	for i := range perFile {
		total += len(perFile[i].links)
	}
	// Sized once: grown by appends, the provenance of a large run was
	// copied over and over.
	items := make([]FoundByItem, 0, total)
	x.unique = make([]string, 0, total)
	// url → its index in x.unique and the provenance items kept for it
	type seenURL struct{ unique, kept int32 }
	seen := make(map[string]seenURL, total)
	group := make([]int32, 0, total) // per kept item, its URL's index in x.unique
	for fi := range perFile {
		if err := ctx.Err(); err != nil {
			return nil, cancelled()
		}
		found := &perFile[fi]
		blob := ""
		if found.blob != nil {
			blob = found.blob.String()
		}
		for i := range found.links {
			it := found.item(blob, i)
			x.totalFound++
			if withTexts {
				x.texts.add(it, found.texts[i])
			}
			s, ok := seen[it.URLOriginal]
			if !ok {
				s.unique = int32(len(x.unique))
				x.unique = append(x.unique, it.URLOriginal)
				if it.raw != it.URLOriginal {
					x.raw[it.URLOriginal] = it.raw
				}
			}
			if s.kept < maxProvenance {
				items = append(items, it)
				group = append(group, s.unique)
			}
			s.kept++
			seen[it.URLOriginal] = s
		}
		x.warnings = append(x.warnings, found.warnings...)
		x.unchecked.URLs += found.unchecked.URLs
		x.unchecked.Lists += found.unchecked.Lists
		x.unchecked.EmptyFiles += found.unchecked.EmptyFiles
		*found = scannedFile{}
	}
	var rank []int32
	x.unique, rank = icu.Ranks(x.unique)
	sortFoundByRank(items, group, rank)
	if items == nil {
		items = []FoundByItem{}
	}
	x.foundBy = FoundByDoc{SchemaVersion: "found_by.v1", RunID: run.Manifest.RunID, Items: items}

	scanned := make([]string, len(files))
	for i, f := range files {
		scanned[i] = relPOSIX(run.Root, f.abs)
	}
	x.digest, err = jsonx.Digest(extractDigest{
		Schema: "citations_extract_urls.inputs.v1", RunID: run.Manifest.RunID, IncludeWave2: includeWave2,
		RunRoot: run.Root, Wave1Dir: cmp.Or(paths.Wave1Dir, "wave-1"), Wave2Dir: cmp.Or(paths.Wave2Dir, "wave-2"),
		ScannedFiles: scanned, SourceTitles: titles,
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

// recoverOriginals re-reads the wave files named by provenance to get back
// the URLs as they were written, and each link's text: every artifact holds
// the URLs redacted, but the direct rung must request the real URL, and
// found-by.json has no link text. Unreadable files are skipped; their URLs
// are then fetched in redacted form, and their texts read from the stored
// source lines. titles are the further Sources titles of run-config.json
// (source_section_titles): a section extract read only because of a title
// given on its command line is not found again, and its URLs are fetched in
// redacted form.
func recoverOriginals(ctx context.Context, run *RunDir, items []FoundByItem, titles []string) (map[string]string, linkTexts) {
	out, texts := map[string]string{}, linkTexts{}
	done := map[string]bool{}
	for _, it := range items {
		if it.ArtifactPath == "" || done[it.ArtifactPath] {
			continue
		}
		done[it.ArtifactPath] = true
		p := filepath.Join(run.Root, filepath.FromSlash(it.ArtifactPath))
		if rel, err := filepath.Rel(run.Root, p); err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		data, err := fsx.ReadLimited(p, maxWaveFileBytes)
		if err != nil {
			continue
		}
		links, err := parse.SourcesWith(ctx, data, parse.SourcesOptions{Titles: titles})
		if err != nil {
			continue
		}
		redactLine := newLineRedactor(netguard.RedactTextKnown)
		for _, l := range links {
			u, _ := netguard.RedactURL(l.URL)
			if _, ok := out[u]; !ok {
				out[u] = l.URL
			}
			texts.add(FoundByItem{ArtifactPath: it.ArtifactPath, URLOriginal: u, SourceLine: redactLine(l.Line, l.SourceLine, l.URL, u)}, l.Text)
		}
	}
	return out, texts
}

// sortFoundByRank is sortFoundBy for items whose url_original's collation
// rank is known (rank[group[j]] for items[j]): a stable counting sort by rank
// — one pass, no string compared — and then sortFoundBy within each URL's
// items, which are few and usually in order already.
func sortFoundByRank(items []FoundByItem, group, rank []int32) {
	if len(items) == 0 {
		return
	}
	start := make([]int32, slices.Max(rank)+2)
	for _, g := range group {
		start[rank[g]+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	dest := make([]int32, len(items)) // where items[j] goes
	for j, g := range group {
		dest[j] = start[rank[g]]
		start[rank[g]]++
	}
	for j := range items {
		for int(dest[j]) != j {
			d := dest[j]
			items[j], items[d] = items[d], items[j]
			dest[j], dest[d] = dest[d], dest[j]
		}
	}
	// start[k] is now where rank k+1 begins.
	from := 0
	for _, end := range start[:len(start)-1] {
		if int(end)-from > 1 {
			sortFoundBy(items[from:end])
		}
		from = int(end)
	}
}

// sortFoundBy orders provenance by (url_original, wave, perspective_id) in
// collation order, then ordinal numerically (zero-padded digits collate
// numerically).
func sortFoundBy(items []FoundByItem) {
	icu.SortBy(items,
		func(i FoundByItem) string { return i.URLOriginal },
		func(i FoundByItem) string { return i.Wave },
		func(i FoundByItem) string { return i.PerspectiveID },
		func(i FoundByItem) string { return padInt(i.Ordinal) },
	)
}

// smallPadded are padInt's results for the numbers sorts ask for most (wave
// numbers, ordinals within a file): a sort asks per comparison.
var smallPadded = func() (t [64]string) {
	for n := range t {
		t[n] = padDigits(n)
	}
	return t
}()

func padInt(n int) string {
	if n >= 0 && n < len(smallPadded) {
		return smallPadded[n]
	}
	return padDigits(n)
}

func padDigits(n int) string {
	const width = 12
	var b [width]byte
	for i := width - 1; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[:])
}

// walk collects the wave files of the wave directories, and a warning for
// every entry it will not read.
type walk struct {
	files    []waveFile
	warnings []string
	// label names a skipped entry in its warning; nil names it relative to
	// the root, as run does. init names the paths its user gave.
	label func(path string) string
}

// markdown appends the regular *.md files under dir (recursively, directory
// entries in collation order). Symlinks are neither followed nor included: a
// link may point outside the run root, and a symlink loop cannot trap the
// walk. Named pipes, sockets and devices are not read either: opening a FIFO
// blocks. Each such entry that would otherwise have been read (a *.md name,
// or a link to a directory) gets a warning, so that Gate C on the rest does
// not pass silently on a subset.
func (w *walk) markdown(root, dir, wave string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	icu.SortBy(entries, func(d os.DirEntry) string { return d.Name() })
	for _, d := range entries {
		p := filepath.Join(dir, d.Name())
		md := strings.HasSuffix(strings.ToLower(d.Name()), ".md")
		switch {
		case d.IsDir():
			if err = w.markdown(root, p, wave); err != nil {
				return err
			}
		case d.Type().IsRegular():
			if md {
				w.files = append(w.files, waveFile{wave: wave, abs: p})
			}
		default:
			if why := skippedEntry(p, d, md); why != "" {
				w.warnings = append(w.warnings, w.name(root, p)+": "+why+"; not read, its URLs are not extracted")
			}
		}
	}
	return nil
}

func (w *walk) name(root, path string) string {
	if w.label != nil {
		return w.label(path)
	}
	return relPOSIX(root, path)
}

// skippedEntry says what an irregular entry is, or "" when it is nothing a
// wave file could be (a link to a file not named *.md, say).
func skippedEntry(path string, d os.DirEntry, md bool) string {
	if d.Type()&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, syscall.ELOOP):
			if md {
				return "symlink loop"
			}
		case err != nil:
			if md {
				return "dangling symlink"
			}
		case st.IsDir():
			return "symlink to a directory"
		case md:
			return "symlink"
		}
		return ""
	}
	if !md {
		return ""
	}
	switch t := d.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device file"
	default:
		return "not a regular file"
	}
}

// scanFiles reads and parses the files in parallel, keeping file order. A
// worker per core takes the next file until none is left: a goroutine per
// file grew a fresh stack for each parse (goldmark recurses), and copying
// stacks cost 2% of a run's CPU.
func (e *Engine) scanFiles(ctx context.Context, root string, files []waveFile, opt parse.SourcesOptions, texts bool) ([]scannedFile, error) {
	out := make([]scannedFile, len(files))
	g, gctx := errgroup.WithContext(ctx)
	redact := lineRedact(netguard.RedactTextKnown)
	if r := e.redactText; r != nil {
		redact = func(text, _, _ string) string { return r(text) }
	}
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				found, err := scanFile(gctx, root, files[i], opt, redact, texts)
				if err != nil {
					return err
				}
				out[i] = found
			}
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, cancelled()
		}
		return nil, err
	}
	return out, nil
}

// lineRedact redacts a source line given the URL of the link read from it
// and that URL already redacted (netguard.RedactTextKnown).
type lineRedact func(text, rawURL, redactedURL string) string

// newLineRedactor returns a function that redacts and truncates a source
// line once per line: the links of one line come together, and redacting a
// long line once per link was quadratic (8,000 URLs on one 220 KB line took
// 43 s).
func newLineRedactor(redact lineRedact) func(line int, text, rawURL, redactedURL string) string {
	last, lastText := 0, ""
	return func(line int, text, rawURL, redactedURL string) string {
		if line != last {
			last, lastText = line, truncate(redact(text, rawURL, redactedURL), maxSourceLine)
		}
		return lastText
	}
}

// scanFile reads one wave file's provenance items, and with texts each
// link's text (only a live run needs them).
func scanFile(ctx context.Context, root string, f waveFile, opt parse.SourcesOptions, redact lineRedact, texts bool) (scannedFile, error) {
	var out scannedFile
	data, err := fsx.ReadLimited(f.abs, maxWaveFileBytes)
	if err != nil {
		return out, readError("wave file", f.abs, "wave file missing", err)
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return out, newError(CodeInvalidInput, "wave file is not UTF-8 text", map[string]any{"path": f.abs})
	}
	links, err := parse.SourcesWith(ctx, data, opt)
	if err != nil {
		return out, parseError(f.abs, err)
	}
	near, err := parse.NearMisses(ctx, data, opt, links)
	if err != nil {
		return out, parseError(f.abs, err)
	}
	base := filepath.Base(f.abs)
	out.wave, out.pid, out.rel = f.wave, strings.TrimSuffix(base, filepath.Ext(base)), relPOSIX(root, f.abs)
	var seen lineSeen
	out.links = make([]scannedLink, 0, len(links))
	out.blob = &strings.Builder{}
	if len(links) > 0 {
		out.blob.Grow(len(data) / 2) // lines and URLs are part of the file
	}
	if texts {
		out.texts = make([]string, 0, len(links))
	}
	sourceLine := newLineRedactor(redact)
	lastLine, line, lineText := 0, span{}, ""
	for i, l := range links {
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return scannedFile{}, err
			}
		}
		u, _ := netguard.RedactURL(l.URL)
		// Redaction can make two URLs on one line identical; keep the
		// reference's per-line dedupe on what is actually written.
		if !seen.add(l.Line, u) {
			continue
		}
		if l.Line != lastLine || len(out.links) == 0 {
			lastLine, lineText = l.Line, sourceLine(l.Line, l.SourceLine, l.URL, u)
			line = out.add(lineText)
		}
		url := out.within(u, lineText, line)
		raw := url
		if l.URL != u {
			raw = out.within(l.URL, lineText, line)
		}
		out.links = append(out.links, scannedLink{url: url, line: line, raw: raw})
		if texts {
			out.texts = append(out.texts, l.Text)
		}
	}
	out.warnings = fileWarnings(out.rel, len(out.links), near)
	out.unchecked.add(len(out.links), near)
	return out, nil
}

// parseError maps a wave file's parse failure to the envelope.
func parseError(path string, err error) error {
	var limit *parse.LimitError
	if errors.As(err, &limit) {
		return newError(CodeInvalidInput, "wave file too complex to parse",
			map[string]any{"path": path, "line": limit.Line, "reason": limit.Reason})
	}
	return err
}

// lineSeen is the set of URLs already kept from the current line. Links come
// in line order and a line has one link or a few, so a short list does what
// a map per file did at a map's cost; a line with many links (hostile
// input) gets a map, so that it stays linear.
type lineSeen struct {
	line int
	list []string
	set  map[string]bool
}

// add records url on line, reporting false if it was already there.
func (s *lineSeen) add(line int, url string) bool {
	if line != s.line {
		s.line, s.list, s.set = line, s.list[:0], nil
	}
	if s.set != nil {
		if s.set[url] {
			return false
		}
		s.set[url] = true
		return true
	}
	if slices.Contains(s.list, url) {
		return false
	}
	if s.list = append(s.list, url); len(s.list) > 16 {
		s.set = make(map[string]bool, 64)
		for _, u := range s.list {
			s.set[u] = true
		}
	}
	return true
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Extract runs the extract tool: computes and writes extracted-urls.txt and
// found-by.json.
func (e *Engine) Extract(ctx context.Context, a ExtractArgs) (*ExtractResult, error) {
	run, paths, release, err := e.openTool(a.Reason, a.ManifestPath,
		pathArg{"extracted_urls_path", a.ExtractedURLsPath, "extracted-urls.txt"},
		pathArg{"found_by_path", a.FoundByPath, "found-by.json"})
	if err != nil {
		return nil, err
	}
	defer release()
	extractedPath, foundByPath := paths[0], paths[1]
	if err := checkOutputs(run, extractedPath, foundByPath); err != nil {
		return nil, err
	}
	includeWave2 := a.IncludeWave2 == nil || *a.IncludeWave2
	cfg, err := resolveConfig(run, nil)
	if err != nil {
		return nil, err
	}
	titles, err := sourceTitles(a.SourceTitles, cfg)
	if err != nil {
		return nil, err
	}

	x, err := e.extract(ctx, run, includeWave2, titles, false)
	if err != nil {
		return nil, err
	}
	files, err := x.files(extractedPath, foundByPath)
	if err != nil {
		return nil, err
	}
	if err := e.commit(ctx, run, files, nil); err != nil {
		return nil, err
	}
	res := &ExtractResult{OK: true, RunID: run.Manifest.RunID, ExtractedURLsPath: extractedPath, FoundByPath: foundByPath,
		TotalFound: x.totalFound, UniqueFound: len(x.unique), InputsDigest: x.digest, Warnings: x.warnings}
	e.auditExtract(run, a.Reason, res)
	return res, nil
}

// files renders and schema-checks the extract artifacts.
func (x *extraction) files(extractedPath, foundByPath string) ([]pendingWrite, error) {
	return listAndDoc(extractedPath, x.unique, foundByPath, schema.FoundBy, &x.foundBy)
}

// redactReason keeps secrets an operator pasted into --reason out of the audit log.
func redactReason(s string) string { return netguard.RedactText(s) }
