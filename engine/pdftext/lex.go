package pdftext

import (
	"bufio"
	"io"
	"strconv"
)

// Our own tokenizer reads content streams and ToUnicode CMaps instead of
// the library's Interpret: Interpret pushes every operand on an unbounded
// stack and reads the decoded stream to its end, so one FlateDecode stream
// that inflates to gigabytes of numbers would exhaust memory. Here every
// stream is read through a byte budget, operands are capped, and the
// caller's context is checked as tokens go by.

// Limits of one token, operand list and array nesting.
const (
	maxOperands   = 1 << 15 // an operator takes a few; a CMap block should hold at most 100 entries, some hold thousands
	maxArrayItems = 1 << 14
	maxArrayDepth = 16
	maxStringLen  = 1 << 16
	maxNameLen    = 127
)

type tokKind uint8

const (
	tkEOF tokKind = iota
	tkNum
	tkString // literal or hex string
	tkName
	tkOp // operator or keyword (true, false, null, BI, ID, …)
	tkArrayOpen
	tkArrayClose
	tkDictOpen
	tkDictClose
)

// operand is one value on the operand stack.
type operand struct {
	kind tokKind // tkNum, tkString, tkName, tkOp (keyword), tkArrayOpen (an array)
	num  float64
	str  string // string bytes, name or keyword
	arr  []operand
}

// lexer tokenizes a PDF content stream or CMap from r.
type lexer struct {
	r      *bufio.Reader
	buf    []byte
	tokens int
	// check is called every few thousand tokens; it aborts the extraction
	// (by panicking with errAbort) once the context is done.
	check func()
}

func newLexer(r io.Reader, check func()) *lexer {
	return &lexer{r: bufio.NewReaderSize(r, 32<<10), check: check}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// next returns the next token: its kind and, for numbers, strings, names
// and operators, its value in num / l.buf.
func (l *lexer) next() (tokKind, float64) {
	l.tokens++
	if l.tokens&0xfff == 0 && l.check != nil {
		l.check()
	}
	c, err := l.skipSpace()
	if err != nil {
		return tkEOF, 0
	}
	l.buf = l.buf[:0]
	switch c {
	case '[':
		return tkArrayOpen, 0
	case ']':
		return tkArrayClose, 0
	case '{', '}':
		return tkOp, 0 // PostScript procedure braces: ignored by callers
	case '(':
		l.literal()
		return tkString, 0
	case '<':
		if d, err := l.r.ReadByte(); err == nil {
			if d == '<' {
				return tkDictOpen, 0
			}
			_ = l.r.UnreadByte()
		}
		l.hex()
		return tkString, 0
	case '>':
		if d, err := l.r.ReadByte(); err == nil && d != '>' {
			_ = l.r.UnreadByte()
		}
		return tkDictClose, 0
	case ')':
		return tkOp, 0 // stray: ignored
	case '/':
		l.name()
		return tkName, 0
	}
	l.buf = append(l.buf, c)
	for {
		d, err := l.r.ReadByte()
		if err != nil {
			break
		}
		if isSpace(d) || isDelim(d) {
			_ = l.r.UnreadByte()
			break
		}
		if len(l.buf) < maxNameLen {
			l.buf = append(l.buf, d)
		}
	}
	if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' {
		if f, err := strconv.ParseFloat(string(l.buf), 64); err == nil {
			return tkNum, f
		}
		if len(l.buf) > 1 && (c == '-' || c == '+') {
			// "--5" and similar producer slips read as a number.
			if f, err := strconv.ParseFloat(string(l.buf[1:]), 64); err == nil {
				return tkNum, f
			}
		}
		return tkNum, 0
	}
	return tkOp, 0
}

func (l *lexer) skipSpace() (byte, error) {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if isSpace(c) {
			continue
		}
		if c == '%' {
			for {
				c, err = l.r.ReadByte()
				if err != nil {
					return 0, err
				}
				if c == '\n' || c == '\r' {
					break
				}
			}
			continue
		}
		return c, nil
	}
}

func (l *lexer) literal() {
	depth := 1
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return
		}
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return
			}
		case '\\':
			e, err := l.r.ReadByte()
			if err != nil {
				return
			}
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if d, err := l.r.ReadByte(); err == nil && d != '\n' {
					_ = l.r.UnreadByte()
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2; k++ {
						d, err := l.r.ReadByte()
						if err != nil {
							break
						}
						if d < '0' || d > '7' {
							_ = l.r.UnreadByte()
							break
						}
						v = v*8 + int(d-'0')
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		if len(l.buf) < maxStringLen {
			l.buf = append(l.buf, c)
		}
	}
}

func (l *lexer) hex() {
	var hi byte
	half := false
	for {
		c, err := l.r.ReadByte()
		if err != nil || c == '>' {
			break
		}
		v, ok := HexValue(c)
		if !ok {
			continue
		}
		if half {
			if len(l.buf) < maxStringLen {
				l.buf = append(l.buf, hi<<4|v)
			}
		} else {
			hi = v
		}
		half = !half
	}
	if half && len(l.buf) < maxStringLen {
		l.buf = append(l.buf, hi<<4)
	}
}

func (l *lexer) name() {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return
		}
		if isSpace(c) || isDelim(c) {
			_ = l.r.UnreadByte()
			return
		}
		if c == '#' {
			a, err1 := l.r.ReadByte()
			b, err2 := l.r.ReadByte()
			x, ok1 := HexValue(a)
			y, ok2 := HexValue(b)
			if err1 == nil && err2 == nil && ok1 && ok2 {
				c = x<<4 | y
			}
		}
		if len(l.buf) < maxNameLen {
			l.buf = append(l.buf, c)
		}
	}
}

// HexValue is the value of the hexadecimal digit c. PDF hex strings skip
// what is not a digit, so the classifier's title sniffer uses it too.
func HexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// skipInlineImage skips an inline image's data after its ID operator, up
// to and including the EI that ends it: the data is binary and would
// otherwise be read as tokens (an unbalanced "(" in it would swallow the
// rest of the page).
func (l *lexer) skipInlineImage() {
	// One white-space byte follows ID.
	if _, err := l.r.ReadByte(); err != nil {
		return
	}
	var p1, p2, p3 byte = 'x', 'x', 'x'
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return
		}
		if isSpace(p3) && p2 == 'E' && p1 == 'I' && (isSpace(c) || isDelim(c)) {
			_ = l.r.UnreadByte()
			return
		}
		p3, p2, p1 = p2, p1, c
	}
}

// interpret reads tokens, collects operands and calls do for each
// operator with its operands (bottom of the stack first). The operand
// slice is reused after do returns.
func (l *lexer) interpret(do func(op string, args []operand)) {
	var stack []operand
	type frame struct{ items []operand }
	var arrays []frame
	push := func(v operand) {
		if n := len(arrays); n > 0 {
			if len(arrays[n-1].items) < maxArrayItems {
				arrays[n-1].items = append(arrays[n-1].items, v)
			}
			return
		}
		if len(stack) >= maxOperands {
			// A runaway list of operands (garbage or a hostile stream):
			// keep the newest.
			copy(stack, stack[len(stack)/2:])
			stack = stack[:len(stack)-len(stack)/2]
		}
		stack = append(stack, v)
	}
	for {
		kind, num := l.next()
		switch kind {
		case tkEOF:
			return
		case tkNum:
			push(operand{kind: tkNum, num: num})
		case tkString, tkName:
			push(operand{kind: kind, str: string(l.buf)})
		case tkArrayOpen:
			if len(arrays) >= maxArrayDepth {
				continue
			}
			arrays = append(arrays, frame{})
		case tkArrayClose:
			if n := len(arrays); n > 0 {
				items := arrays[n-1].items
				arrays = arrays[:n-1]
				push(operand{kind: tkArrayOpen, arr: items})
			}
		case tkDictOpen, tkDictClose:
			// Dictionaries only hold marked-content properties and inline
			// image parameters here; their contents stay on the stack as
			// plain operands, which the next operator discards.
		case tkOp:
			if len(l.buf) == 0 {
				continue
			}
			op := string(l.buf)
			switch op {
			case "true", "false", "null":
				push(operand{kind: tkOp, str: op})
				continue
			}
			if len(arrays) > 0 {
				// An operator inside an array: the array is malformed;
				// drop it.
				arrays = arrays[:0]
			}
			if op == "ID" {
				l.skipInlineImage()
				stack = stack[:0]
				continue
			}
			do(op, stack)
			stack = stack[:0]
		}
	}
}
