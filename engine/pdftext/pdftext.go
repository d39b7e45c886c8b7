package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"strings"
	"sync"
	"time"

	"github.com/ledongthuc/pdf"
)

// Why a PDF could not be read. Text wraps them with details.
var (
	ErrEncrypted = errors.New("the PDF is encrypted with a password")
	ErrNoText    = errors.New("the PDF has no text layer (a scanned or image-only document)")
	ErrMalformed = errors.New("the PDF is damaged or not a PDF")
	ErrTimeout   = errors.New("reading the PDF took too long")
)

// Limits of one extraction.
const (
	// DefaultMaxRunes is the text kept when the caller passes 0.
	DefaultMaxRunes = 1 << 20
	// MaxDuration bounds one extraction whatever the caller's context.
	MaxDuration    = 10 * time.Second
	maxPages       = 2000
	maxFonts       = 4096
	maxStreamBytes = 32 << 20  // one decoded stream
	maxDecoded     = 256 << 20 // all decoded streams of one document
)

// Is reports whether a response is a PDF: served as application/pdf, or a
// body that starts with the %PDF- signature under a generic or text type
// (the classifier's rule, engine/classify sniff).
func Is(contentType string, body []byte) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	}
	if mt == "application/pdf" || mt == "application/x-pdf" {
		return true
	}
	generic := mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" || strings.HasPrefix(mt, "text/")
	head := body[:min(len(body), 1024)]
	head = bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("\xef\xbb\xbf")), " \t\r\n")
	return generic && bytes.HasPrefix(head, []byte("%PDF-"))
}

// Text returns the text of a PDF: its pages' text in reading order, words
// separated by single spaces, the lines of a page joined (a word
// hyphenated across lines is rejoined), pages separated by a newline. It
// reads at most maxRunes runes (DefaultMaxRunes when 0), 2,000 pages and
// for at most MaxDuration or until ctx is done; what it read by then is
// returned without an error. A PDF cut short (verify's body cap) gives the
// text of the pages it still holds.
//
// The error wraps ErrEncrypted, ErrNoText, ErrMalformed or ErrTimeout (with
// nothing read). Text never panics, whatever body holds.
func Text(ctx context.Context, body []byte, maxRunes int) (string, error) {
	if maxRunes <= 0 {
		maxRunes = DefaultMaxRunes
	}
	ctx, cancel := context.WithTimeout(ctx, MaxDuration)
	defer cancel()
	x := &extractor{ctx: ctx, maxRunes: maxRunes, fonts: map[string]*font{}, decodeLeft: maxDecoded}
	done := make(chan error, 1)
	go func() {
		err := x.run(body)
		select {
		case done <- err:
		case <-ctx.Done():
		}
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// The extraction goroutine stops at its next read of the file or
		// token of a stream (errAbort); its text so far is returned.
		err = ErrTimeout
	}
	text := x.text()
	switch {
	case text != "":
		return text, nil
	case err != nil:
		return "", err
	case x.pagesSeen == 0 && x.repaired:
		return "", fmt.Errorf("%w: the file is cut short or damaged before its page descriptions", ErrMalformed)
	case x.pagesSeen == 0:
		return "", fmt.Errorf("%w: no pages found", ErrMalformed)
	case x.streamsRead == 0 && x.streamErrors > 0:
		return "", fmt.Errorf("%w: no page content could be decoded", ErrMalformed)
	}
	return "", ErrNoText
}

// extractor is one extraction's state, owned by its goroutine except for
// the page texts, which Text may read when the deadline passes.
type extractor struct {
	ctx      context.Context
	maxRunes int
	fonts    map[string]*font

	decodeLeft                int64
	streamsRead, streamErrors int
	pagesSeen, pageErrors     int
	runes                     int
	full, repaired            bool

	mu    sync.Mutex
	pages []string
}

func (x *extractor) check() {
	if x.ctx.Err() != nil {
		panic(errAbort)
	}
}

func (x *extractor) text() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return strings.Join(x.pages, "\n")
}

func (x *extractor) addPage(b []byte) {
	t := strings.TrimSpace(string(b))
	if t == "" {
		return
	}
	x.mu.Lock()
	x.pages = append(x.pages, t)
	x.mu.Unlock()
}

// run extracts the text of body; a panic the library raised is an error.
func (x *extractor) run(body []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if isAbort(r) {
				err = ErrTimeout
				return
			}
			err = fmt.Errorf("%w: %v", ErrMalformed, clip(fmt.Sprint(r)))
		}
	}()
	data, err := prepare(body)
	if err != nil {
		return err
	}
	if err := precheck(data); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	r, err := x.open(data)
	var pages []page
	if err == nil {
		pages = x.walkPages(r.Trailer().Key("Root").Key("Pages"))
	} else if errors.Is(err, ErrEncrypted) || errors.Is(err, ErrTimeout) {
		return err
	}
	if len(pages) > 0 {
		x.readPages(pages)
		if x.runes > 0 || x.streamsRead > 0 || x.full {
			return nil
		}
	}
	// The cross-reference data is missing or wrong: a file cut short, or
	// one whose offsets do not match. A file cut short may still hold a
	// complete earlier revision (one before an incremental update); the
	// repair may find more pages. Keep whichever reads more text.
	var earlier []string
	var earlierRunes int
	if cut := earlierRevision(data); cut > 0 {
		if r, oerr := x.open(data[:cut]); oerr == nil {
			x.readPages(x.walkPages(r.Trailer().Key("Root").Key("Pages")))
			earlier, earlierRunes = x.reset()
		}
	}
	_, pages, rerr := x.repair(data)
	if rerr == nil {
		x.readPages(pages)
	}
	if earlierRunes > x.runes {
		x.restore(earlier, earlierRunes)
		return nil
	}
	switch {
	case rerr == nil:
		return nil
	case err != nil && !errors.Is(rerr, ErrEncrypted):
		return err
	}
	return rerr
}

// earlierRevision is the end of the last complete revision of a file
// that does not end with one: just past its last %%EOF.
func earlierRevision(data []byte) int {
	i := bytes.LastIndex(data, []byte("%%EOF"))
	if i < 0 || i+5 >= len(data)-8 {
		return 0
	}
	return i + 5
}

// reset takes the pages read so far away, for a second attempt.
func (x *extractor) reset() ([]string, int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	pages, runes := x.pages, x.runes
	x.pages, x.runes, x.full = nil, 0, false
	return pages, runes
}

func (x *extractor) restore(pages []string, runes int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pages, x.runes = pages, runes
}

// open reads the cross-reference data of data.
func (x *extractor) open(data []byte) (r *pdf.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			if isAbort(p) {
				panic(p)
			}
			r, err = nil, fmt.Errorf("%w: %v", ErrMalformed, clip(fmt.Sprint(p)))
		}
	}()
	r, err = pdf.NewReader(&abortingReaderAt{ctx: x.ctx, b: data}, int64(len(data)))
	switch {
	case x.ctx.Err() != nil:
		// NewReader recovers every panic, errAbort too.
		return nil, ErrTimeout
	case err == nil:
		return r, nil
	case errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(err.Error(), "encrypt"):
		return nil, fmt.Errorf("%w: %v", ErrEncrypted, clip(err.Error()))
	}
	return nil, fmt.Errorf("%w: %v", ErrMalformed, clip(err.Error()))
}

// prepare finds the PDF in body and returns a copy the library accepts:
// its header rewritten to "%PDF-1.7" (the library refuses PDF 2.0 and odd
// header lines, which read the same) and anything after the last %%EOF
// near the end dropped (servers append junk; the library wants %%EOF in
// the last 100 bytes).
func prepare(body []byte) ([]byte, error) {
	i := bytes.Index(body[:min(len(body), 1024)], []byte("%PDF-"))
	if i < 0 {
		return nil, fmt.Errorf("%w: no %%PDF- header", ErrMalformed)
	}
	data := bytes.Clone(body[i:])
	if len(data) < 16 {
		return nil, fmt.Errorf("%w: %d bytes", ErrMalformed, len(data))
	}
	if !(data[5] == '1' && data[6] == '.' && data[7] >= '0' && data[7] <= '7' && (data[8] == '\r' || data[8] == '\n')) {
		copy(data, "%PDF-1.7\n")
	}
	tail := data[max(0, len(data)-4096):]
	if e := bytes.LastIndex(tail, []byte("%%EOF")); e >= 0 {
		cut := len(data) - len(tail) + e + 5
		if len(bytes.TrimRight(data[cut:], " \t\r\n\x00")) > 0 {
			data = append(data[:cut], '\n')
		}
	}
	return data, nil
}

// page is a page dictionary with the resources it inherits from the page
// tree (nil Kind when it was not reached through the tree).
type page struct {
	v, res pdf.Value
}

// walkPages lists the page tree's pages in order, at most maxPages,
// visiting a bounded number of nodes (a tree whose Kids loop back is
// cut off, not followed for ever). Inherited resources are carried down
// the walk: asking each page's parent again would parse a flat tree's
// Kids array once per page.
func (x *extractor) walkPages(root pdf.Value) []page {
	var pages []page
	type item struct {
		v, res pdf.Value
		depth  int
	}
	stack := []item{{root, pdf.Value{}, 0}}
	for budget := 4*maxPages + 256; len(stack) > 0 && budget > 0 && len(pages) < maxPages; budget-- {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := it.v
		if v.Kind() != pdf.Dict {
			continue
		}
		res := it.res
		if r := v.Key("Resources"); r.Kind() == pdf.Dict {
			res = r
		}
		kids := v.Key("Kids")
		typ := v.Key("Type").Name()
		if typ == "Pages" || typ == "" && kids.Kind() == pdf.Array {
			if it.depth >= 64 {
				continue
			}
			for i := min(kids.Len(), 4*maxPages) - 1; i >= 0; i-- {
				stack = append(stack, item{kids.Index(i), res, it.depth + 1})
			}
			continue
		}
		pages = append(pages, page{v, res})
	}
	return pages
}

// readPages extracts the text of each page into x.pages.
func (x *extractor) readPages(pages []page) {
	for _, p := range pages {
		if x.full {
			return
		}
		x.pagesSeen++
		w := &writer{max: x.maxRunes - x.runes}
		func() {
			defer func() {
				if r := recover(); r != nil {
					switch r {
					case errAbort:
						x.addPage(w.buf)
						panic(r)
					case fullError{}:
						x.full = true
					default:
						x.pageErrors++
					}
				}
			}()
			x.runPage(p, w)
		}()
		x.runes += w.runes
		x.addPage(w.buf)
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
