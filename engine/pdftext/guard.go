package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// The library parses with panics and, on hostile input, can loop or
// allocate from numbers it reads in the file. Three guards keep that from
// reaching the process: every library call runs under recover (extract.go);
// every byte it reads goes through abortingReaderAt, which stops a loop that
// keeps reading once the deadline has passed; and precheck refuses, before
// the library sees the file, the few numbers that size its allocations
// (a /Size of ten billion would be a 400 GB table and a fatal out-of-memory,
// which no recover catches).

// errAbort unwinds the library's stack when the context is done.
var errAbort = errors.New("pdftext: aborted")

// isAbort reports whether a recovered panic value is errAbort, which must
// keep unwinding to run's recover rather than count as a library failure.
func isAbort(r any) bool {
	err, ok := r.(error)
	return ok && errors.Is(err, errAbort)
}

// abortingReaderAt is a bytes.Reader whose ReadAt panics with errAbort
// once ctx is done.
type abortingReaderAt struct {
	ctx context.Context
	b   []byte
}

func (r *abortingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if r.ctx.Err() != nil {
		panic(errAbort)
	}
	if off < 0 {
		return 0, errors.New("pdftext: negative offset")
	}
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Bounds on the numbers precheck lets through; far above any real file of
// the sizes verify fetches.
const (
	maxObjectNum = 1 << 21 // xref entries (40 bytes each in the library)
	maxColumns   = 1 << 20 // predictor row width
	maxFieldW    = 8       // bytes of one xref stream field
)

// precheck refuses a file whose cross-reference data would make the
// library allocate without bound. The names it looks for are never inside
// compressed streams where they matter: cross-reference streams, object
// streams and their parameters are always top-level objects.
func precheck(b []byte) error {
	// near, when set, must occur within 512 bytes of the key: /W is also a
	// CIDFont's widths array, whose numbers are large; only a
	// cross-reference stream's /W sizes a buffer.
	check := func(key string, limit int64, array bool, near string) error {
		for off := 0; ; {
			i := bytes.Index(b[off:], []byte(key))
			if i < 0 {
				return nil
			}
			at := off + i
			off = at + len(key)
			if off < len(b) && isRegular(b[off]) {
				continue // "/Sizes", "/Nums"
			}
			if near != "" && !bytes.Contains(b[max(0, at-512):min(len(b), at+512)], []byte(near)) {
				continue
			}
			if !array && near != "" && indirect(b[off:]) {
				return fmt.Errorf("%s is an indirect reference", key)
			}
			for _, v := range numbersAfter(b[off:], array) {
				if v > limit {
					return fmt.Errorf("%s %d is out of range", key, v)
				}
			}
		}
	}
	for _, c := range []struct {
		key   string
		limit int64
		array bool
		near  string
	}{
		{"/Size", maxObjectNum, false, ""},
		{"/N", maxObjectNum, false, ""},
		{"/N", maxObjectNum, false, "/ObjStm"}, // the library loops /N times
		{"/Columns", maxColumns, false, "/ObjStm"},
		{"/Columns", maxColumns, false, ""},
		{"/W", maxFieldW, true, "/XRef"},
		{"/Index", maxObjectNum, true, ""},
	} {
		if err := check(c.key, c.limit, c.array, c.near); err != nil {
			return err
		}
	}
	return xrefTableCheck(b)
}

// indirect reports whether b starts with "num gen R".
func indirect(b []byte) bool {
	f := bytes.Fields(b[:min(len(b), 40)])
	return len(f) >= 3 && digitsOnly(f[0]) && digitsOnly(f[1]) && len(f[2]) > 0 && f[2][0] == 'R'
}

func digitsOnly(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func isRegular(c byte) bool { return !isSpace(c) && !isDelim(c) }

// numbersAfter reads the integer after a key, or every integer of the
// array after it when array is set.
func numbersAfter(b []byte, array bool) []int64 {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if array {
		if i >= len(b) || b[i] != '[' {
			return nil
		}
		i++
	}
	var out []int64
	for i < len(b) && len(out) < 4096 {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		j := i
		if j < len(b) && (b[j] == '-' || b[j] == '+') {
			j++
		}
		d := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == d || j < len(b) && b[j] == '.' {
			break
		}
		v, err := strconv.ParseInt(string(b[i:j]), 10, 64)
		if err != nil {
			v = math.MaxInt64 // overflow: out of range
		}
		out = append(out, v)
		i = j
		if !array {
			break
		}
	}
	return out
}

// xrefTableCheck reads the subsection headers ("first count") of every
// classic cross-reference table.
func xrefTableCheck(b []byte) error {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte("xref"))
		if i < 0 {
			return nil
		}
		at := off + i
		off = at + 4
		if at > 0 && isRegular(b[at-1]) || off < len(b) && isRegular(b[off]) {
			continue // "startxref"
		}
		lx := newLexer(bytes.NewReader(b[off:min(len(b), off+1<<16)]), nil)
		for {
			k1, first := lx.next()
			if k1 != tkNum {
				break
			}
			k2, count := lx.next()
			if k2 != tkNum || first < 0 || count < 0 || first+count > maxObjectNum {
				return fmt.Errorf("cross-reference subsection %v %v is out of range", first, count)
			}
			// Skip the subsection's entries: three tokens each.
			for e := 0; e < int(count)*3; e++ {
				if k, _ := lx.next(); k == tkEOF {
					break
				}
			}
		}
	}
}

// streamReader decodes a stream through the library, at most limit bytes
// of it and within the document's budget. nil when the stream cannot be
// decoded (an unsupported filter, a predictor row the library would
// allocate without bound).
func (x *extractor) streamReader(v pdf.Value, limit int64) (rd io.Reader) {
	if v.Kind() != pdf.Stream {
		return nil
	}
	params := v.Key("DecodeParms")
	for i := -1; i < params.Len(); i++ {
		p := params
		if i >= 0 {
			p = params.Index(i)
		}
		if c := p.Key("Columns").Int64(); c < 0 || c > maxColumns {
			return nil
		}
	}
	defer func() {
		if r := recover(); r != nil {
			if isAbort(r) {
				panic(r)
			}
			x.streamErrors++
			rd = nil
		}
	}()
	raw := v.Reader()
	return &budgetReader{x: x, r: raw, left: limit}
}

// budgetReader counts decoded bytes against one stream's limit and the
// document's total, and recovers the library's panics while decoding.
type budgetReader struct {
	x    *extractor
	r    io.Reader
	left int64
}

func (b *budgetReader) Read(p []byte) (n int, err error) {
	if b.left <= 0 || b.x.decodeLeft <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	defer func() {
		if r := recover(); r != nil {
			if isAbort(r) {
				panic(r)
			}
			n, err = 0, io.ErrUnexpectedEOF
		}
	}()
	n, err = b.r.Read(p)
	b.left -= int64(n)
	b.x.decodeLeft -= int64(n)
	return n, err
}
