package data

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// ReadRDump reads an R dump file (data.R), as R's dump(), rstan's
// stan_rdump and Stan's example-models write them and CmdStan reads them:
// statements NAME <- VALUE (or NAME = VALUE, the name bare or quoted),
// where VALUE is a number, NA, NaN, TRUE/FALSE, a sequence a:b, c(...) of
// those, integer(n)/double(n)/numeric(n), or structure(VALUE, .Dim =
// c(n, m)) for a matrix, whose values R lists column by column. The
// result is the form ReadJSON returns: an array per name, with a bare
// number a scalar and c(...) a vector; R has no scalars, so Bind lets an
// R value of length one serve a scalar and a vector of one element alike
// (Array.rLength1). NA and NaN are missing values, as JSON's null and NaN;
// an infinity, a value that is not numbers, or an array of three or more
// dimensions is kept as the array's error (Array.Err), an error only if
// the model reads the name, as for JSON; invalid syntax ends the read at
// its position.
func ReadRDump(file string, r io.Reader) (map[string]*Array, error) {
	src, err := readText(file, r, "an R dump file is text (R's dump() or rstan's stan_rdump writes one)")
	if err != nil {
		return nil, err
	}
	p := &rReader{file: file, src: src}
	p.advance()
	return p.statements()
}

// rKind is the kind of an R dump token.
type rKind int

const (
	rEOF    rKind = iota
	rName         // an identifier: y, .Dim, TRUE, c
	rString       // a quoted name: "y", `y`
	rNumber       // 1, 2.5e-3, 3L
	rAssign       // <- or =
	rPunct        // ( ) , : ; - +
)

type rToken struct {
	kind rKind
	text string // the token's text; a string's without its quotes
	off  int
}

// rReader parses an R dump file: a token of lookahead over src.
type rReader struct {
	file string
	src  []byte
	off  int    // the scanner's offset
	tok  rToken // the current token
	err  *ast.Error
	// expanded counts the numbers that sequences a:b and integer(n)
	// have made, against rExpandMax.
	expanded int
	lines    lineIndex // built at the first position asked for
}

// rExpandMax bounds the numbers that the sequences and integer(n) of one
// file expand to (512 MiB of float64), so that a short file cannot ask for
// more memory than the machine has: data that large come as files of
// their own size.
var rExpandMax = 1 << 26 // a var: FuzzReadRDump lowers it

// expand reserves n numbers of a sequence or integer(n) at off, or
// records a syntax error that says why not.
func (p *rReader) expand(n float64, off int) bool {
	if n > float64(rExpandMax-p.expanded) {
		p.fail(off, "this file's sequences and integer(n) would make more than %d numbers", rExpandMax)
		return false
	}
	p.expanded += int(n)
	return true
}

// pos converts a byte offset into a position.
func (p *rReader) pos(off int) ast.Pos {
	return p.lines.posIn(p.file, p.src, off)
}

// advance scans the next token into p.tok; a character R dump files do not
// hold is p.err (the first only).
func (p *rReader) advance() {
	s := p.src
	for p.off < len(s) {
		c := s[p.off]
		if c == '#' {
			for p.off < len(s) && s[p.off] != '\n' {
				p.off++
			}
			continue
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		p.off++
	}
	start := p.off
	if start >= len(s) {
		p.tok = rToken{kind: rEOF, off: start}
		return
	}
	c := s[start]
	isDigit := func(b byte) bool { return b >= '0' && b <= '9' }
	isNameByte := func(b byte) bool {
		return b == '.' || b == '_' || isDigit(b) || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	switch {
	case isDigit(c) || c == '.' && start+1 < len(s) && isDigit(s[start+1]):
		end := start
		for end < len(s) && (isDigit(s[end]) || s[end] == '.') {
			end++
		}
		if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
			end++
			if end < len(s) && (s[end] == '+' || s[end] == '-') {
				end++
			}
			for end < len(s) && isDigit(s[end]) {
				end++
			}
		}
		if end < len(s) && s[end] == 'L' {
			end++
		}
		// R's hexadecimal 0x10 and the like: kept as one token, refused
		// as a number by the parser
		for end < len(s) && isNameByte(s[end]) {
			end++
		}
		p.tok = rToken{kind: rNumber, text: string(s[start:end]), off: start}
		p.off = end
	case isNameByte(c):
		end := start
		for end < len(s) && isNameByte(s[end]) {
			end++
		}
		p.tok = rToken{kind: rName, text: string(s[start:end]), off: start}
		p.off = end
	case c == '"' || c == '\'' || c == '`':
		end := start + 1
		for end < len(s) && s[end] != c && s[end] != '\n' {
			if s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(s) || s[end] != c {
			p.fail(start, "the name opened here has no closing %c", c)
			p.tok = rToken{kind: rEOF, off: len(s)}
			p.off = len(s)
			return
		}
		p.tok = rToken{kind: rString, text: string(s[start+1 : end]), off: start}
		p.off = end + 1
	case c == '<' && start+1 < len(s) && s[start+1] == '-':
		p.tok = rToken{kind: rAssign, text: "<-", off: start}
		p.off = start + 2
	case c == '=':
		p.tok = rToken{kind: rAssign, text: "=", off: start}
		p.off = start + 1
	case strings.IndexByte("(),:;-+", c) >= 0:
		p.tok = rToken{kind: rPunct, text: string(c), off: start}
		p.off = start + 1
	default:
		p.fail(start, "unexpected %q in an R dump file: expected NAME <- VALUE statements", rune(c))
		p.tok = rToken{kind: rEOF, off: len(s)}
		p.off = len(s)
	}
}

// fail records the first syntax error.
func (p *rReader) fail(off int, format string, args ...any) {
	if p.err == nil {
		p.err = ast.Errorf(p.pos(off), format, args...)
	}
}

// describe names the current token for messages.
func (p *rReader) describe() string {
	switch p.tok.kind {
	case rEOF:
		return "the end of the file"
	case rString:
		return strconv.Quote(p.tok.text)
	}
	return "`" + p.tok.text + "`"
}

// expect consumes the punctuation text or records a syntax error.
func (p *rReader) expect(text string, what string) bool {
	if p.tok.kind == rPunct && p.tok.text == text {
		p.advance()
		return true
	}
	p.fail(p.tok.off, "expected %s, found %s", what, p.describe())
	return false
}

func (p *rReader) isPunct(text string) bool { return p.tok.kind == rPunct && p.tok.text == text }

// statements reads NAME <- VALUE statements to the end of the file.
func (p *rReader) statements() (map[string]*Array, error) {
	out := map[string]*Array{}
	for p.err == nil && p.tok.kind != rEOF {
		if p.isPunct(";") {
			p.advance()
			continue
		}
		if p.tok.kind != rName && p.tok.kind != rString {
			p.fail(p.tok.off, "expected a name to assign (NAME <- VALUE), found %s", p.describe())
			break
		}
		name, at := p.tok.text, p.tok.off
		p.advance()
		if p.tok.kind != rAssign {
			p.fail(p.tok.off, "expected <- after %s, found %s", name, p.describe())
			break
		}
		p.advance()
		if _, dup := out[name]; dup {
			p.fail(at, "%s is assigned twice", name)
			break
		}
		v := &rValue{name: name}
		p.value(v, true)
		if p.err != nil {
			break
		}
		out[name] = v.array(p)
	}
	if p.err != nil {
		return nil, p.err
	}
	if len(out) == 0 {
		return nil, ast.Errorf(ast.Pos{File: p.file, Line: 1, Col: 1}, "empty R dump file: expected NAME <- VALUE statements")
	}
	return out, nil
}

// rValue collects one assigned value's elements as it is parsed.
type rValue struct {
	name     string
	vals     []float64
	offs     []int
	isInt    bool // every element so far is an integer (set by the first)
	started  bool
	missing  []int          // elements that are NA or NaN
	missText map[int]string // their text, for messages
	inexact  map[int]string
	bad      *ast.Error
	start    int   // the value's offset
	vector   bool  // c(...), a:b, integer(n), ...: not a bare scalar
	dims     []int // structure's .Dim, or nil
	dimsAt   int   // .Dim's offset
	dimsText string
}

// setBad records the value's first problem.
func (v *rValue) setBad(p *rReader, off int, format string, args ...any) {
	if v.bad == nil {
		v.bad = ast.Errorf(p.pos(off), "%q: "+format, append([]any{v.name}, args...)...)
	}
}

func (v *rValue) add(x float64, isInt bool, off int) {
	if !v.started {
		v.isInt, v.started = true, true
	}
	v.isInt = v.isInt && isInt
	v.vals = append(v.vals, x)
	v.offs = append(v.offs, off)
}

// value parses a value into v; top is false inside c(...) and
// structure(...), where a structure is not taken.
func (p *rReader) value(v *rValue, top bool) {
	v.start = p.tok.off
	switch {
	case p.tok.kind == rName && p.tok.text == "structure" && top:
		p.advance()
		if !p.expect("(", "( after structure") {
			return
		}
		p.value(v, false)
		for p.err == nil && p.isPunct(",") {
			p.advance()
			if p.tok.kind != rName && p.tok.kind != rString {
				p.fail(p.tok.off, "expected an attribute (.Dim = c(n, m)) in structure(...), found %s", p.describe())
				return
			}
			attr, at := p.tok.text, p.tok.off
			p.advance()
			if p.tok.kind != rAssign || p.tok.text != "=" {
				p.fail(p.tok.off, "expected = after %s, found %s", attr, p.describe())
				return
			}
			p.advance()
			if attr != ".Dim" && attr != "dim" {
				p.skipValue() // .Dimnames, names, class: not data
				continue
			}
			d := &rValue{name: v.name}
			from := p.tok.off
			p.elements(d)
			v.dimsAt, v.dimsText = at, strings.Join(strings.Fields(string(p.src[from:p.tok.off])), " ")
			for i, x := range d.vals {
				if !(x >= 0 && x <= 1<<53) || x != math.Trunc(x) || slices.Contains(d.missing, i) {
					v.setBad(p, at, "%s = %s: dimensions are counts", attr, v.dimsText)
					break
				}
				v.dims = append(v.dims, int(x))
			}
			if d.bad != nil {
				v.setBad(p, at, "%s = %s: dimensions are counts", attr, v.dimsText)
			}
		}
		p.expect(")", "`)` closing structure(")
	default:
		p.elements(v)
	}
}

// skipValue skips an attribute's value up to the ',' or ')' that ends it.
func (p *rReader) skipValue() {
	depth := 0
	for p.err == nil && p.tok.kind != rEOF {
		if depth == 0 && (p.isPunct(",") || p.isPunct(")")) {
			return
		}
		if p.isPunct("(") {
			depth++
		} else if p.isPunct(")") {
			depth--
		}
		p.advance()
	}
	p.fail(p.tok.off, "the file ends inside structure(...)")
}

// elements parses c(...), integer(n), a:b or a scalar into v.
func (p *rReader) elements(v *rValue) {
	if p.tok.kind == rName && p.peekParen() {
		fn, at := p.tok.text, p.tok.off
		p.advance()
		p.advance() // (
		v.vector = true
		switch fn {
		case "c":
			for p.err == nil && !p.isPunct(")") {
				// c(a = 1, b = 2): a named element's name is not data
				if (p.tok.kind == rName || p.tok.kind == rString) && p.peekAssign() {
					p.advance()
					p.advance()
				}
				p.elements(v)
				if !p.isPunct(",") {
					break
				}
				p.advance()
			}
			p.expect(")", "`,` or `)` in c(...)")
		case "integer", "double", "numeric":
			n := &rValue{name: v.name}
			p.scalar(n)
			if !p.expect(")", "`)` closing "+fn+"(") {
				return
			}
			if len(n.vals) != 1 || !n.isInt || n.vals[0] < 0 || len(n.missing) > 0 {
				v.setBad(p, at, "%s(n) takes a count n", fn)
				return
			}
			if !p.expand(n.vals[0], at) {
				return
			}
			for range int(n.vals[0]) {
				v.add(0, fn == "integer", at)
			}
		case "as.integer", "as.numeric", "as.double":
			p.elements(v)
			p.expect(")", "`)` closing "+fn+"(")
		case "list", "data.frame":
			// dump() of a data frame or list writes it whole, as
			// structure(list(x = ..., y = ...), .Names = ..., class =
			// "data.frame"): its columns are the data
			p.fail(at, "%s(...): a list or data frame is not one value; dump its columns under names of their own (in R, dump(names(d), \"data.R\", envir = list2env(d)))", fn)
		default:
			p.fail(at, "%s(...): an R dump file's values are numbers, c(...), a:b and structure(c(...), .Dim = c(n, m))", fn)
		}
		return
	}
	first := len(v.vals)
	at := p.tok.off
	p.scalar(v)
	if p.err != nil || !p.isPunct(":") {
		return
	}
	// a:b, R's integer sequence (either direction)
	p.advance()
	to := &rValue{name: v.name}
	p.scalar(to)
	v.vector = true
	if len(v.vals) != first+1 || len(to.vals) != 1 || len(to.missing) > 0 || slices.Contains(v.missing, first) ||
		v.vals[first] != math.Trunc(v.vals[first]) || to.vals[0] != math.Trunc(to.vals[0]) ||
		math.Abs(v.vals[first]) > 1<<53 || math.Abs(to.vals[0]) > 1<<53 {
		v.setBad(p, at, "a sequence a:b takes two integers (of at most 2^53 in magnitude)")
		return
	}
	a, b := v.vals[first], to.vals[0]
	if !p.expand(math.Abs(b-a)+1, at) {
		return
	}
	v.vals, v.offs = v.vals[:first], v.offs[:first]
	step := 1.0
	if b < a {
		step = -1
	}
	for i := range int(math.Abs(b-a)) + 1 {
		v.add(a+step*float64(i), true, at)
	}
}

// peek returns the offset of the first byte after the current token that
// is not white space (len(src) at the end).
func (p *rReader) peek() int {
	i := p.off
	for i < len(p.src) && strings.IndexByte(" \t\r\n", p.src[i]) >= 0 {
		i++
	}
	return i
}

// peekParen reports whether a '(' follows the current token.
func (p *rReader) peekParen() bool {
	i := p.peek()
	return i < len(p.src) && p.src[i] == '('
}

// peekAssign reports whether a single '=' (not '==') follows the current
// token.
func (p *rReader) peekAssign() bool {
	i := p.peek()
	return i < len(p.src) && p.src[i] == '=' && (i+1 >= len(p.src) || p.src[i+1] != '=')
}

// scalar parses a signed number, NA, NaN, Inf, TRUE or FALSE into v.
func (p *rReader) scalar(v *rValue) {
	at := p.tok.off
	neg := false
	for p.isPunct("-") || p.isPunct("+") {
		neg = neg != (p.tok.text == "-")
		p.advance()
	}
	t := p.tok
	switch t.kind {
	case rNumber:
		p.advance()
		text := strings.TrimSuffix(t.text, "L")
		x, isInt, exact, err := parseNumber(text)
		if err != nil {
			v.setBad(p, at, "%v", err)
			v.add(math.NaN(), false, at)
			return
		}
		isInt = isInt || strings.HasSuffix(t.text, "L") && x == math.Trunc(x)
		if neg {
			x = -x
		}
		if !exact {
			if v.inexact == nil {
				v.inexact = map[int]string{}
			}
			if neg {
				text = "-" + text
			}
			v.inexact[len(v.vals)] = text
		}
		v.add(x, isInt, at)
	case rName:
		p.advance()
		switch t.text {
		case "NA", "NaN", "NA_integer_", "NA_real_":
			if v.missText == nil {
				v.missText = map[int]string{}
			}
			v.missText[len(v.vals)] = t.text
			v.missing = append(v.missing, len(v.vals))
			v.vals = append(v.vals, math.NaN())
			v.offs = append(v.offs, at)
		case "TRUE", "T":
			one := 1.0
			if neg { // R's -TRUE is -1L
				one = -1
			}
			v.add(one, true, at)
		case "FALSE", "F":
			v.add(0, true, at)
		case "Inf":
			sign := ""
			if neg {
				sign = "-"
			}
			v.setBad(p, at, "%s", infError(sign+t.text))
			v.add(math.NaN(), false, at)
		default:
			p.fail(t.off, "expected a number, found %s (an R dump file's values are numbers, NA, TRUE/FALSE, c(...), a:b and structure(...))", "`"+t.text+"`")
		}
	case rString:
		p.advance()
		v.setBad(p, at, "expected a number, found the string %q", t.text)
		v.add(math.NaN(), false, at)
	default:
		p.fail(t.off, "expected a value, found %s", p.describe())
	}
}

// array converts the parsed value into an Array: a bare scalar, a vector,
// or (with .Dim of two) a matrix in row-major order.
func (v *rValue) array(p *rReader) *Array {
	a := &Array{Name: v.name, Int: v.isInt || !v.started, Pos: p.pos(v.start), rLength1: len(v.vals) == 1 && v.dims == nil}
	n := len(v.vals)
	order := make([]int, n) // order[i]: the file's element at row-major i
	for i := range order {
		order[i] = i
	}
	switch {
	case v.dims == nil && !v.vector:
		a.Shape = nil
	case v.dims == nil || len(v.dims) == 1:
		a.Shape = []int{n}
	case len(v.dims) > 2:
		v.setBad(p, v.dimsAt, ".Dim = %s: an array of three or more dimensions (data are scalars, vectors and matrices)", v.dimsText)
	default:
		r, c := v.dims[0], v.dims[1]
		if float64(r)*float64(c) != float64(n) || n == 0 {
			a.Shape = []int{r, c} // checked below; no values to order
			break
		}
		a.Shape = []int{r, c}
		for i := range r {
			for j := range c {
				order[i*c+j] = j*r + i // R lists a matrix column by column
			}
		}
	}
	if v.dims != nil && v.bad == nil {
		prod := 1.0 // exact, or far from any count of values
		for _, d := range v.dims {
			prod *= float64(d)
		}
		if prod != float64(n) {
			v.setBad(p, v.dimsAt, ".Dim = %s holds %s elements, but the values are %d", v.dimsText, strconv.FormatFloat(prod, 'f', -1, 64), n)
		}
	}
	a.bad = v.bad
	a.Values = make([]float64, n)
	offs := make([]int, n)
	back := make([]int, n) // back[file index] = row-major index
	for i, k := range order {
		a.Values[i], offs[i] = v.vals[k], v.offs[k]
		back[k] = i
	}
	for _, k := range v.missing {
		// the first error is the first missing element in the file
		a.miss(back[k], ast.Errorf(p.pos(v.offs[k]), "%q: %s, a missing value", v.name, v.missText[k]))
	}
	slices.Sort(a.Missing)
	for k, t := range v.inexact {
		a.noteInexact(back[k], t)
	}
	a.loc = func(i int) ast.Pos { return p.pos(offs[i]) }
	return a
}
