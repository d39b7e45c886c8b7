package pdftext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// A PDF cut at verify's body cap has lost its end: the cross-reference
// table, the trailer and often the page tree, which writers put last. The
// library reads only through the cross-reference data named at the end of
// the file, so we rebuild it, as PDF viewers do: find every "N G obj" left
// in the file, read the object streams among them for the objects they
// hold, and append a cross-reference stream listing them all. The pages
// are then the page tree's if it survived, else every /Type /Page object in
// object-number order (the order writers number pages in). The same repair
// reads a file whose offsets are wrong.

type objLoc struct{ num, gen, off int }

// scanObjects finds the "num gen obj" headers of b; a later definition of
// an object replaces an earlier one, as an incremental update does.
func scanObjects(b []byte) map[int]objLoc {
	objs := map[int]objLoc{}
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte("obj"))
		if i < 0 {
			return objs
		}
		at := off + i
		off = at + 3
		if off < len(b) && isRegular(b[off]) {
			continue
		}
		j := at
		skip := func() int { // spaces before j
			k := j
			for k > 0 && isSpace(b[k-1]) {
				k--
			}
			return k
		}
		digits := func() (int, bool) {
			k := j
			for k > 0 && b[k-1] >= '0' && b[k-1] <= '9' && j-k < 10 {
				k--
			}
			if k == j {
				return 0, false
			}
			v, err := strconv.Atoi(string(b[k:j]))
			j = k
			return v, err == nil
		}
		if j = skip(); j == at {
			continue
		}
		gen, ok := digits()
		if !ok {
			continue
		}
		k := skip()
		if k == j {
			continue
		}
		j = k
		num, ok := digits()
		if !ok || num <= 0 || num >= maxObjectNum || gen > 65535 || (j > 0 && isRegular(b[j-1])) {
			continue
		}
		objs[num] = objLoc{num, gen, j}
	}
}

// hasType reports whether the dictionary at the start of obj has /Type /want.
func hasType(obj []byte, want string) bool {
	if i := bytes.Index(obj, []byte("stream")); i >= 0 {
		obj = obj[:i]
	}
	for off := 0; ; {
		i := bytes.Index(obj[off:], []byte("/Type"))
		if i < 0 {
			return false
		}
		off += i + 5
		rest := bytes.TrimLeft(obj[off:], " \t\r\n\f\x00")
		if bytes.HasPrefix(rest, []byte("/"+want)) && (len(rest) == len(want)+1 || !isRegular(rest[len(want)+1])) {
			return true
		}
	}
}

func isEncryptDict(obj []byte) bool {
	if i := bytes.Index(obj, []byte("stream")); i >= 0 {
		obj = obj[:i]
	}
	f := bytes.Index(obj, []byte("/Filter"))
	return f >= 0 && bytes.HasPrefix(bytes.TrimLeft(obj[f+7:], " \t\r\n"), []byte("/Standard")) && bytes.Contains(obj, []byte("/O"))
}

// xent is a cross-reference entry: type 1 (offset, generation) or type 2
// (object stream number, index).
type xent struct {
	typ    byte
	f2, f3 int
}

// withXRef returns data with a cross-reference stream appended that lists
// entries; extra goes into its dictionary (the trailer).
func withXRef(data []byte, entries map[int]xent, extra string) []byte {
	self := 1
	for n := range entries {
		self = max(self, n+1)
	}
	size := self + 1
	out := make([]byte, 0, len(data)+size*7+len(extra)+256)
	out = append(out, data...)
	out = append(out, '\n')
	start := len(out)
	table := make([]byte, size*7)
	put := func(n int, e xent) {
		row := table[n*7:]
		row[0] = e.typ
		binary.BigEndian.PutUint32(row[1:5], uint32(e.f2))
		binary.BigEndian.PutUint16(row[5:7], uint16(e.f3))
	}
	for n, e := range entries {
		put(n, e)
	}
	put(self, xent{1, start, 0})
	out = fmt.Appendf(out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Length %d %s >>\nstream\n", self, size, len(table), extra)
	out = append(out, table...)
	out = fmt.Appendf(out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)
	return out
}

func refs(nums []int) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for _, n := range nums {
		fmt.Fprintf(&b, "%d 0 R ", n)
	}
	b.WriteByte(']')
	return b.String()
}

// repair rebuilds the cross-reference data of data and returns a reader
// over the repaired file and its pages.
func (x *extractor) repair(data []byte) (*pdf.Reader, []page, error) {
	x.repaired = true
	objs := scanObjects(data)
	if len(objs) == 0 {
		return nil, nil, fmt.Errorf("%w: no objects found", ErrMalformed)
	}
	locs := make([]objLoc, 0, len(objs))
	for _, o := range objs {
		locs = append(locs, o)
	}
	slices.SortFunc(locs, func(a, b objLoc) int { return a.off - b.off })
	entries := map[int]xent{}
	var pages, streams []int
	root := 0
	for i, o := range locs {
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1].off
		}
		body := data[o.off:min(end, o.off+8192)]
		entries[o.num] = xent{1, o.off, o.gen}
		switch {
		case isEncryptDict(body):
			return nil, nil, ErrEncrypted
		case hasType(body, "Page"):
			pages = append(pages, o.num)
		case hasType(body, "Catalog"):
			root = o.num
		case hasType(body, "ObjStm"):
			streams = append(streams, o.num)
		}
	}
	// Open what we have so far to read the object streams.
	if len(streams) > 0 {
		r, err := x.open(withXRef(data, entries, "/CGObjStms "+refs(streams)))
		if err != nil {
			return nil, nil, err
		}
		list := r.Trailer().Key("CGObjStms")
		for i, n := range streams {
			for _, in := range x.objectStream(list.Index(i)) {
				if _, top := entries[in.num]; top || in.num <= 0 || in.num >= maxObjectNum {
					continue
				}
				entries[in.num] = xent{2, n, in.index}
				switch {
				case hasType(in.body, "Page"):
					pages = append(pages, in.num)
				case hasType(in.body, "Catalog"):
					root = in.num
				}
			}
		}
	}
	slices.Sort(pages)
	extra := "/CGPages " + refs(pages)
	if root > 0 {
		extra += fmt.Sprintf(" /Root %d 0 R", root)
	}
	r, err := x.open(withXRef(data, entries, extra))
	if err != nil {
		return nil, nil, err
	}
	tree := x.walkPages(r.Trailer().Key("Root").Key("Pages"))
	if len(tree) >= len(pages) && len(tree) > 0 {
		return r, tree, nil
	}
	list := r.Trailer().Key("CGPages")
	out := make([]page, 0, len(pages))
	for i := 0; i < list.Len() && i < maxPages; i++ {
		if p := list.Index(i); p.Kind() == pdf.Dict {
			out = append(out, page{v: p, res: inherited(p, "Resources")})
		}
	}
	return r, out, nil
}

type packed struct {
	num, index int
	body       []byte
}

// objectStream lists the objects an object stream holds, each with the
// start of its text.
func (x *extractor) objectStream(v pdf.Value) []packed {
	rd := x.streamReader(v, maxStreamBytes)
	if rd == nil {
		return nil
	}
	data, err := io.ReadAll(rd)
	if err != nil && len(data) == 0 {
		return nil
	}
	n := int(v.Key("N").Int64())
	first := int(v.Key("First").Int64())
	if n <= 0 || first <= 0 || first > len(data) {
		return nil
	}
	lx := newLexer(bytes.NewReader(data[:first]), x.check)
	var out []packed
	var offs []int
	for i := 0; i < n && i < maxObjectNum; i++ {
		k1, num := lx.next()
		k2, off := lx.next()
		if k1 != tkNum || k2 != tkNum || off < 0 || first+int(off) > len(data) {
			break
		}
		out = append(out, packed{num: int(num), index: i})
		offs = append(offs, first+int(off))
	}
	for i := range out {
		end := len(data)
		if i+1 < len(offs) && offs[i+1] > offs[i] {
			end = offs[i+1]
		}
		out[i].body = data[offs[i]:min(end, offs[i]+8192)]
	}
	return out
}
