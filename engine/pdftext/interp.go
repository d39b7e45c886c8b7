package pdftext

import (
	"io"
	"math"
	"unicode"

	"github.com/ledongthuc/pdf"
)

// The content-stream interpreter follows the text and graphics state far
// enough to place each shown string: a string that starts on another
// baseline begins a new line, one that starts clearly right of where the
// previous one ended begins a new word. Producers rarely write the space
// character between words (TeX, browsers and many typesetters move the
// pen instead), so reading the strings in order, as the library's
// GetPlainText does, runs the words together.

type matrix [6]float64 // a b c d e f

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n (apply m, then n).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(tx, ty float64) matrix { return matrix{1, 0, 0, 1, tx, ty} }

// gstate is the part of the graphics state text placement depends on.
type gstate struct {
	ctm                       matrix
	tc, tw, th, tl, tfs, rise float64
	font                      *font
}

const (
	maxFormDepth  = 8
	maxStateDepth = 64
	maxFormCalls  = 512 // per page
	// Word gap: a pen move right of more than this share of the font
	// size. TeX's interword space shrinks to about 0.22 em; kerns inside
	// words stay under 0.1 em.
	wordGap = 0.15
	// Line break: a baseline move of more than this share of the font
	// size; superscripts and subscripts stay on their line.
	lineGap = 0.5
)

// page interprets one page's content streams.
type pageRun struct {
	x         *extractor
	w         *writer
	gs        gstate
	stack     []gstate
	tm, tlm   matrix
	fonts     map[string]*font
	formCalls int
	glyphs    []glyph
}

func (x *extractor) runPage(p page, w *writer) {
	r := &pageRun{x: x, w: w, gs: gstate{ctm: identity, th: 1}, tm: identity, tlm: identity}
	r.content(p.v.Key("Contents"), p.res, 0)
}

// content interprets a page's or form's content (a stream or an array of
// streams) with the given resources.
func (r *pageRun) content(c pdf.Value, res pdf.Value, depth int) {
	var readers []io.Reader
	add := func(s pdf.Value) {
		if rd := r.x.streamReader(s, maxStreamBytes); rd != nil {
			readers = append(readers, rd, newlineReader())
			r.x.streamsRead++
		}
	}
	switch c.Kind() {
	case pdf.Stream:
		add(c)
	case pdf.Array:
		for i := 0; i < c.Len() && i < 4096; i++ {
			add(c.Index(i))
		}
	}
	if len(readers) == 0 {
		return
	}
	fonts := r.fonts
	r.fonts = map[string]*font{}
	defer func() { r.fonts = fonts }()
	lx := newLexer(io.MultiReader(readers...), r.x.check)
	lx.interpret(func(op string, args []operand) { r.op(op, args, res, depth) })
}

func newlineReader() io.Reader { return &oneByte{c: '\n'} }

type oneByte struct {
	c    byte
	done bool
}

func (o *oneByte) Read(p []byte) (int, error) {
	if o.done || len(p) == 0 {
		return 0, io.EOF
	}
	o.done = true
	p[0] = o.c
	return 1, nil
}

func num(args []operand, i int) float64 {
	if i < len(args) && args[i].kind == tkNum && !math.IsNaN(args[i].num) && !math.IsInf(args[i].num, 0) {
		return args[i].num
	}
	return 0
}

func nums6(args []operand) (matrix, bool) {
	if len(args) < 6 {
		return matrix{}, false
	}
	a := args[len(args)-6:]
	var m matrix
	for i := range m {
		m[i] = num(a, i)
	}
	return m, true
}

// last returns the operator's last n operands: stray operands before them
// (a producer's slip) are ignored, as viewers do.
func last(args []operand, n int) []operand {
	if len(args) > n {
		return args[len(args)-n:]
	}
	return args
}

func (r *pageRun) op(op string, args []operand, res pdf.Value, depth int) {
	g := &r.gs
	switch op {
	case "q":
		if len(r.stack) < maxStateDepth {
			r.stack = append(r.stack, *g)
		}
	case "Q":
		if n := len(r.stack); n > 0 {
			*g = r.stack[n-1]
			r.stack = r.stack[:n-1]
		}
	case "cm":
		if m, ok := nums6(args); ok {
			g.ctm = m.mul(g.ctm)
		}
	case "BT":
		r.tm, r.tlm = identity, identity
	case "Tc":
		g.tc = num(last(args, 1), 0)
	case "Tw":
		g.tw = num(last(args, 1), 0)
	case "Tz":
		g.th = num(last(args, 1), 0) / 100
	case "TL":
		g.tl = num(last(args, 1), 0)
	case "Ts":
		g.rise = num(last(args, 1), 0)
	case "Tf":
		a := last(args, 2)
		if len(a) == 2 && a[0].kind == tkName {
			g.font = r.font(res, a[0].str)
			g.tfs = num(a, 1)
		}
	case "Td", "TD":
		a := last(args, 2)
		tx, ty := num(a, 0), num(a, 1)
		if op == "TD" {
			g.tl = -ty
		}
		r.tlm = translate(tx, ty).mul(r.tlm)
		r.tm = r.tlm
	case "Tm":
		if m, ok := nums6(args); ok {
			r.tm, r.tlm = m, m
		}
	case "T*":
		r.nextLine()
	case "Tj":
		if a := last(args, 1); len(a) == 1 && a[0].kind == tkString {
			r.show(a[0].str)
		}
	case "'":
		r.nextLine()
		if a := last(args, 1); len(a) == 1 && a[0].kind == tkString {
			r.show(a[0].str)
		}
	case "\"":
		a := last(args, 3)
		if len(a) == 3 {
			g.tw, g.tc = num(a, 0), num(a, 1)
			r.nextLine()
			if a[2].kind == tkString {
				r.show(a[2].str)
			}
		}
	case "TJ":
		a := last(args, 1)
		if len(a) != 1 || a[0].kind != tkArrayOpen {
			return
		}
		for _, e := range a[0].arr {
			switch e.kind {
			case tkString:
				r.show(e.str)
			case tkNum:
				tx := -num([]operand{e}, 0) / 1000 * g.tfs * g.th
				r.tm = translate(tx, 0).mul(r.tm)
			default:
				// A TJ array holds strings and adjustments only; a stray
				// element of a malformed stream shows nothing.
			}
		}
	case "Do":
		if a := last(args, 1); len(a) == 1 && a[0].kind == tkName {
			r.form(res, a[0].str, depth)
		}
	}
}

func (r *pageRun) nextLine() {
	r.tlm = translate(0, -r.gs.tl).mul(r.tlm)
	r.tm = r.tlm
}

// font returns the named font of the current resources, loading each font
// dictionary once per document.
func (r *pageRun) font(res pdf.Value, name string) *font {
	if f, ok := r.fonts[name]; ok {
		return f
	}
	v := res.Key("Font").Key(name)
	var f *font
	if v.Kind() == pdf.Dict {
		key := v.String()
		if f = r.x.fonts[key]; f == nil && len(r.x.fonts) < maxFonts {
			f = r.x.loadFont(v)
			r.x.fonts[key] = f
		}
	}
	r.fonts[name] = f
	return f
}

// form runs a form XObject: content drawn once and placed by Do, where
// some producers put a page's whole text.
func (r *pageRun) form(res pdf.Value, name string, depth int) {
	if depth >= maxFormDepth || r.formCalls >= maxFormCalls {
		return
	}
	xo := res.Key("XObject").Key(name)
	if xo.Kind() != pdf.Stream || xo.Key("Subtype").Name() != "Form" {
		return
	}
	r.formCalls++
	saved, tm, tlm := r.gs, r.tm, r.tlm
	if m := xo.Key("Matrix"); m.Len() == 6 {
		var fm matrix
		for i := range fm {
			fm[i] = m.Index(i).Float64()
		}
		r.gs.ctm = fm.mul(r.gs.ctm)
	}
	fres := xo.Key("Resources")
	if fres.Kind() != pdf.Dict {
		fres = res
	}
	r.content(xo, fres, depth+1)
	r.gs, r.tm, r.tlm = saved, tm, tlm
}

// show places and decodes one string. Each glyph is placed on its own:
// the gap before it is the pen's move since the previous glyph's visible
// end, so character spacing (Tc) wide enough to separate words counts as a
// space, and a space glyph squeezed to nothing (negative Tw) does not.
func (r *pageRun) show(s string) {
	g := &r.gs
	f := g.font
	if f == nil {
		f = &font{scale: 0.001, defWidth: 500, simple: latin1Table}
	}
	r.glyphs = f.decode(s, r.glyphs[:0])
	for _, gl := range r.glyphs {
		trm := matrix{g.tfs * g.th, 0, 0, g.tfs, 0, g.rise}.mul(r.tm).mul(g.ctm)
		size := math.Hypot(trm[2], trm[3])
		w := gl.width * f.scale * g.tfs
		if !isBlank(gl.text) {
			r.w.place(trm[4], trm[5], size, trm[0], trm[1])
			r.w.text(gl.text)
			end := translate(w*g.th, 0).mul(r.tm)
			end = matrix{1, 0, 0, 1, 0, g.rise}.mul(end).mul(g.ctm)
			r.w.moved(end[4], end[5])
		} else if gl.width == 0 && gl.text != "" {
			// A zero-width space glyph: only the character says it is one.
			r.w.text(" ")
		}
		tx := w + g.tc
		if gl.space {
			tx += g.tw
		}
		r.tm = translate(tx*g.th, 0).mul(r.tm)
	}
}

func isBlank(s string) bool {
	for _, c := range s {
		if !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}

// latin1Table reads the codes of a string shown before any font was set.
var latin1Table = func() *[256]string {
	var t [256]string
	for c := range t {
		t[c] = string(rune(c))
	}
	return &t
}()

// inherited reads a page attribute that may sit on an ancestor Pages node.
func inherited(p pdf.Value, key string) pdf.Value {
	for i := 0; i < 32 && p.Kind() == pdf.Dict; i++ {
		if v := p.Key(key); !v.IsNull() {
			return v
		}
		p = p.Key("Parent")
	}
	return pdf.Value{}
}
