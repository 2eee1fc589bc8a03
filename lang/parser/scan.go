package parser

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gpplang/gpp/stdlib"
)

// Token types of the gpp lexer. lexer.EOF (-1) ends every stream.
const (
	tokIdent      lexer.TokenType = iota + 1 // a name that is not a keyword
	tokKeyword                               // a reserved word
	tokNumber                                // an int or real literal
	tokPunct                                 // an operator or bracket
	tokTerminator                            // end of statement: newline, ";" or implicit
	tokBad                                   // a lexical error; never matched by the grammar
	tokNewline                               // internal to the scanner; never reaches the parser
)

// keywords are the reserved words of language.md §1. lower and upper are
// not reserved: they are ordinary names that the type grammar matches by
// spelling inside <...>.
var keywords = map[string]bool{
	"data": true, "const": true, "param": true, "let": true, "output": true,
	"target": true, "for": true, "in": true, "if": true, "else": true,
	"int": true, "real": true, "positive": true, "unit": true, "simplex": true,
	"ordered": true, "cholesky_factor_corr": true, "positive_ordered": true, "corr_matrix": true,
	"cholesky_factor_cov": true, "cov_matrix": true, "sum_to_zero_vector": true, "sum_to_zero_matrix": true, "fn": true, "return": true,
}

// Keywords returns the reserved words, sorted (for the REPL's completion).
func Keywords() []string {
	out := make([]string, 0, len(keywords))
	for k := range keywords {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// stmtKeywords start a statement and can never occur inside one, so a line
// that starts with one ends the statement before it, even one left open by
// a trailing operator or an unclosed "(" or "[" (which is then reported at
// the end of its line rather than somewhere in the next statement).
var stmtKeywords = map[string]bool{
	"data": true, "const": true, "param": true, "let": true, "output": true,
	"target": true, "for": true, "if": true, "fn": true, "return": true,
}

// definition is the participle lexer.Definition of gpp. Lexing never fails:
// malformed input becomes tokBad tokens, which no grammar rule accepts.
type definition struct{}

// Symbols names the token types for the grammar (Ident, Number and
// Terminator are referred to by name in the struct tags).
func (definition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF":        lexer.EOF,
		"Ident":      tokIdent,
		"Keyword":    tokKeyword,
		"Number":     tokNumber,
		"Punct":      tokPunct,
		"Terminator": tokTerminator,
		"Bad":        tokBad,
	}
}

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	toks, _ := scan(filename, src)
	return &sliceLexer{toks: toks}, nil
}

// sliceLexer replays a token slice that ends with an EOF token.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	t := l.toks[l.i]
	if l.i < len(l.toks)-1 {
		l.i++
	}
	return t, nil
}

// scan splits src into tokens with terminators inserted, ending with an EOF
// token. bad maps the byte offset of each tokBad token to its message.
//
// Positions count lines and columns from 1, columns in bytes.
func scan(filename string, src []byte) (toks []lexer.Token, bad map[int]string) {
	s := &scanner{file: filename, src: src, line: 1, bad: map[int]string{}}
	s.scanRaw()
	return terminate(s.toks), s.bad
}

type scanner struct {
	file      string
	src       []byte
	off       int // read offset
	line      int // line of off
	lineStart int // offset of the first byte of line
	toks      []lexer.Token
	bad       map[int]string
}

func (s *scanner) pos(off int) lexer.Position {
	return lexer.Position{Filename: s.file, Offset: off, Line: s.line, Column: off - s.lineStart + 1}
}

func (s *scanner) emit(typ lexer.TokenType, start int) {
	s.toks = append(s.toks, lexer.Token{Type: typ, Value: string(s.src[start:s.off]), Pos: s.pos(start)})
}

func (s *scanner) emitBad(start int, format string, args ...any) {
	s.emit(tokBad, start)
	s.bad[start] = fmt.Sprintf(format, args...)
}

func (s *scanner) peek(k int) byte {
	if s.off+k < len(s.src) {
		return s.src[s.off+k]
	}
	return 0
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// scanRaw produces the raw token stream: comments and blanks dropped,
// newlines kept as tokNewline for terminate to decide on.
func (s *scanner) scanRaw() {
	for s.off < len(s.src) {
		c := s.src[s.off]
		start := s.off
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			s.off++
		case c == '\n':
			// A newline that ends a statement is positioned just after the
			// line's last token, not after blanks or a comment, so that
			// "found newline" points where something was missing.
			nl := lexer.Token{Type: tokNewline, Value: "\n", Pos: s.pos(start)}
			if n := len(s.toks); n > 0 && s.toks[n-1].Pos.Line == s.line {
				nl.Pos = s.pos(s.toks[n-1].Pos.Offset + len(s.toks[n-1].Value))
			}
			s.toks = append(s.toks, nl)
			s.off++
			s.line++
			s.lineStart = s.off
		case c == '#':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.off++
			}
		case isLetter(c):
			for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
				s.off++
			}
			if keywords[string(s.src[start:s.off])] {
				s.emit(tokKeyword, start)
			} else {
				s.emit(tokIdent, start)
			}
		case isDigit(c) || c == '.' && isDigit(s.peek(1)):
			s.number()
		default:
			s.punct()
		}
	}
	s.toks = append(s.toks, lexer.EOFToken(s.pos(s.off)))
}

// number scans a literal: digits with an optional fraction, or a fraction
// alone (.5), then an optional exponent. "3." is malformed (it would make
// "3.*x" ambiguous); "3.*x" is 3 .* x. Letters, digits or dots glued to a
// literal make the whole run one malformed number ("1e", "2x", "1.5.3").
func (s *scanner) number() {
	start := s.off
	digits := func() int {
		n := 0
		for isDigit(s.peek(0)) {
			s.off++
			n++
		}
		return n
	}
	ok := true
	digits()
	if s.peek(0) == '.' && s.peek(1) != '*' {
		s.off++
		if digits() == 0 {
			ok = false // "3."; ".5" always has digits after the dot
		}
	}
	if c := s.peek(0); c == 'e' || c == 'E' {
		s.off++
		if c := s.peek(0); c == '+' || c == '-' {
			s.off++
		}
		if digits() == 0 {
			ok = false
		}
	}
	for {
		c := s.peek(0)
		if isLetter(c) || isDigit(c) || c == '.' && s.peek(1) != '*' {
			s.off++
			ok = false
			continue
		}
		break
	}
	if !ok {
		s.emitBad(start, "malformed number %q", s.src[start:s.off])
		return
	}
	s.emit(tokNumber, start)
}

// oneCharOps are the operators and brackets of one character.
const oneCharOps = "+-*/%^'()[]{},:~=<>;!"

// twoCharOps are the operators spelled with two characters.
var twoCharOps = map[string]bool{
	".*": true, "+=": true, "-=": true,
	"<=": true, ">=": true, "==": true, "!=": true, "&&": true, "||": true,
}

func (s *scanner) punct() {
	start := s.off
	if s.off+2 <= len(s.src) && string(s.src[s.off:s.off+2]) == "**" {
		// Python's power, one error per occurrence.
		s.off += 2
		s.emitBad(start, "invalid operator '**' (gpp's power is ^: Python's eta**2 is eta^2, or square(eta))")
		return
	}
	if c := s.src[s.off]; c == '.' && isLetter(s.peek(1)) {
		if mod := s.modulePrefix(); mod != "" {
			// pm.math.exp(x): one error for the whole dotted name.
			for s.off < len(s.src) && s.src[s.off] == '.' && isLetter(s.peek(1)) {
				s.off++
				for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
					s.off++
				}
			}
			name := mod + string(s.src[start:s.off])
			s.emitBad(start, "%s", moduleHint(name, name[strings.LastIndexByte(name, '.')+1:]))
			return
		}
	}
	if s.off+2 <= len(s.src) && string(s.src[s.off:s.off+2]) == "%%" {
		s.off += 2
		s.emitBad(start, "invalid operator '%%%%' (the modulus of ints is %%, Stan's, with the sign of a: R's a %%%% b, with the sign of b, is a %% b for a >= 0 and b > 0; fmod(a, b) of reals)")
		return
	}
	if s.off+2 <= len(s.src) && string(s.src[s.off:s.off+2]) == "//" {
		s.off += 2
		s.emitBad(start, "invalid operator '//' (the division of ints is %%/%%, Stan's, truncated toward 0: Python's a // b, which floors, is a %%/%% b for a, b >= 0; comments start with #)")
		return
	}
	if s.off+3 <= len(s.src) && string(s.src[s.off:s.off+3]) == "%/%" { // Stan's int division
		s.off += 3
		s.emit(tokPunct, start)
		return
	}
	if s.off+2 <= len(s.src) && twoCharOps[string(s.src[s.off:s.off+2])] {
		s.off += 2
		s.emit(tokPunct, start)
		return
	}
	c := s.src[s.off]
	if strings.IndexByte(oneCharOps, c) >= 0 {
		s.off++
		s.emit(tokPunct, start)
		return
	}
	var what string
	r, size := utf8.DecodeRune(s.src[s.off:])
	switch {
	case r == utf8.RuneError && size <= 1:
		what = fmt.Sprintf("invalid UTF-8 byte 0x%02x", c)
	case r < ' ' || r == 0x7f:
		what = fmt.Sprintf("invalid character %U", r)
	case r == '|' && userDensityCall(s.src, s.off) != "":
		name := userDensityCall(s.src, s.off)
		what = fmt.Sprintf("invalid character '|' (the user function %s is called with commas, as %s(y, mu); logical or is ||)", name, name)
	case r == '|' && formulaBar(s.src, s.off):
		what = "invalid character '|' (gpp has no model formulas: lme4's (1 | g) is a varying intercept, param u: real[J] ~ Normal(0, tau), added to the mean of the distribution as u[g]; logical or is ||)"
	case r == '|':
		what = "invalid character '|' (gpp writes Stan's normal_lpdf(y | mu, s) as logpdf(y, Normal(mu, s)), and normal_lccdf(y | mu, s) as logccdf(y, Normal(mu, s)); logical or is ||)"
	case r == '&':
		what = "invalid character '&' (logical and is &&)"
	case r == '.' && s.off+1 < len(s.src) && s.src[s.off+1] == '/':
		what = "invalid character '.' (gpp's / is elementwise already: Stan's a ./ b is a / b)"
	case r == '.' && s.off+1 < len(s.src) && s.src[s.off+1] == '^':
		what = "invalid character '.' (gpp's ^ is elementwise already: Stan's x .^ 2 is x ^ 2)"
	case r == '.' && methodCall(s.src, s.off) != "":
		what = "invalid character '.' (gpp has no methods: " + methodCall(s.src, s.off) + ")"
	case r == '"':
		// A string is one error, up to its closing quote on the line.
		what = "invalid character '\"' (gpp has no strings: Stan's print, reject and fatal_error have no counterpart; output NAME = EXPR reports a value at every draw)"
		rest := s.src[s.off+1:]
		if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		if q := bytes.IndexByte(rest, '"'); q >= 0 {
			size = q + 2
			what = "a string" + what[len("invalid character '\"'"):]
		}
	case r == '@':
		what = "invalid character '@' (gpp's matrix product is *: Python's x @ b is x * b, and .* multiplies elementwise)"
	case r == '?':
		what = "invalid character '?' (gpp has no conditional expressions: write an if statement on the data, if COND { ... } else { ... })"
	case unicode.IsLetter(r):
		// größe, θ: a name from a data file's header or a paper
		what = fmt.Sprintf("invalid character %q (names are ASCII letters, digits and _, as Stan's: write it as one, and bind a data column of the other name as NAME=FILE.csv:COLUMN)", r)
	default:
		what = fmt.Sprintf("invalid character %q", r)
	}
	s.off += size
	// A run of invalid characters is one error, not one per character: a
	// line of 16 000 "@" gave 16 000 errors, each quoting the line.
	more := 0
	for s.off < len(s.src) && !startsToken(s.src[s.off:]) {
		_, size := utf8.DecodeRune(s.src[s.off:])
		s.off += size
		more++
	}
	if more > 0 {
		what += fmt.Sprintf(" (and %d more after it)", more)
	}
	s.emitBad(start, "%s", what)
}

// pyModules are the module names of Python's numerical libraries, whose
// functions a model ported from PyMC calls with a prefix (pm.math.exp,
// np.log, pt.sum).
var pyModules = map[string]bool{
	"pm": true, "pymc": true, "pymc3": true, "np": true, "numpy": true, "math": true,
	"at": true, "pt": true, "tt": true, "aesara": true, "pytensor": true, "theano": true,
	"jnp": true, "jax": true, "scipy": true, "sp": true, "special": true, "torch": true, "tf": true,
}

// modulePrefix returns the name just before the "." at s.off, glued to it,
// when it is one of pyModules, and "" otherwise.
func (s *scanner) modulePrefix() string {
	n := len(s.toks)
	if n == 0 {
		return ""
	}
	t := s.toks[n-1]
	if t.Type != tokIdent || t.Pos.Offset+len(t.Value) != s.off || !pyModules[t.Value] {
		return ""
	}
	return t.Value
}

// pyRenames are the Python functions gpp spells otherwise, with what to
// write.
var pyRenames = map[string]string{
	"switch":   "gpp has no conditional expression: a choice on data is an if statement, if COND { ... } else { ... }, or c .* a + (1 - c) .* b with c a comparison of data (0 or 1); on a param a switch has no gradient at the jump, and fmax(mu, 0) is switch(mu > 0, mu, 0)",
	"where":    "gpp has no conditional expression: a choice on data is an if statement, if COND { ... } else { ... }, or c .* a + (1 - c) .* b with c a comparison of data (0 or 1); on a param a where has no gradient at the jump, and fmax(mu, 0) is where(mu > 0, mu, 0)",
	"dot":      "gpp's matrix product is *: dot(X, b) is X * b (dot_product(x, y) of two vectors)",
	"matmul":   "gpp's matrix product is *: matmul(X, b) is X * b",
	"sqr":      "write square(x)",
	"power":    "gpp's power is ^: power(x, 2) is x^2 (or pow(x, 2))",
	"pow":      "write pow(x, 2) or x^2",
	"sigmoid":  "write inv_logit(x)",
	"invlogit": "write inv_logit(x)",
	"expit":    "write inv_logit(x)",
	"maximum":  "the elementwise larger of two values is fmax(a, b) (max(x) is the largest element of one argument)",
	"minimum":  "the elementwise smaller of two values is fmin(a, b) (min(x) is the smallest element of one argument)",
	"max":      "max(x) is the largest element of one argument, and the elementwise larger of two values is fmax(a, b)",
	"min":      "min(x) is the smallest element of one argument, and the elementwise smaller of two values is fmin(a, b)",
	"relu":     "relu(x) is fmax(x, 0)",
	"clip":     "clip(x, lo, hi) is fmin(fmax(x, lo), hi)",
}

// moduleHint is the error at a function called with a module prefix (name,
// as pm.math.exp), whose last part is fn.
func moduleHint(name, fn string) string {
	if r, ok := pyRenames[fn]; ok {
		return fmt.Sprintf("%s: gpp's functions have no module prefix; %s", name, r)
	}
	if stdlib.LookupFunc(fn) == nil && stdlib.LookupDist(fn) == nil {
		// never name a function gpp lacks (np.maximum was "maximum in gpp")
		return fmt.Sprintf("%s: gpp's functions have no module prefix, and gpp has no function %s (gpp help lists them)", name, fn)
	}
	return fmt.Sprintf("%s is %s in gpp: its functions have no module prefix (gpp help lists them)", name, fn)
}

// startsToken reports whether b begins something other than an invalid
// character: a blank, a newline, a comment, a name, a number or an operator.
func startsToken(b []byte) bool {
	c := b[0]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#', isLetter(c), isDigit(c):
		return true
	case c == '.':
		return len(b) > 1 && (isDigit(b[1]) || b[1] == '*')
	case c == '&' || c == '|':
		return len(b) > 1 && b[1] == c
	}
	return strings.IndexByte(oneCharOps, c) >= 0
}

// canEnd reports whether a statement may end after t (language.md §1): a
// name, a number, ")", "]", "'" or "}". Keywords count as names (a
// declaration may end with its type, as in "data N: int", and a line ending
// in another keyword is reported there rather than joined with the next
// line), and so does a ">" that closes a type's bounds ("int<lower=0>"),
// which closes says; a ">" that compares continues onto the next line.
// Malformed tokens end a statement too, which keeps errors on their line.
func canEnd(t lexer.Token, closes bool) bool {
	switch t.Type {
	case tokIdent, tokKeyword, tokNumber, tokBad:
		return true
	case tokPunct:
		switch t.Value {
		case ")", "]", "'", "}":
			return true
		case ">":
			return closes
		}
	}
	return false
}

// typeKinds are the keywords a type starts with; a "<" right after one
// opens the type's bounds.
var typeKinds = map[string]bool{"int": true, "real": true, "positive": true, "unit": true, "simplex": true, "ordered": true, "cholesky_factor_corr": true, "positive_ordered": true, "corr_matrix": true, "cholesky_factor_cov": true, "cov_matrix": true, "sum_to_zero_vector": true, "sum_to_zero_matrix": true}

// boundsTracker tells a ">" that closes a type's bounds from a comparison:
// the first ">" after the "<" that follows a type keyword closes them
// (bounds hold no comparisons).
type boundsTracker struct {
	prev lexer.Token
	open bool
}

// next feeds t and reports whether it closes bounds.
func (b *boundsTracker) next(t lexer.Token) bool {
	closes := false
	if t.Type == tokPunct {
		switch {
		case t.Value == "<" && b.prev.Type == tokKeyword && typeKinds[b.prev.Value]:
			b.open = true
		case t.Value == ">" && b.open:
			b.open, closes = false, true
		case t.Value == ";" || t.Value == "{" || t.Value == "}":
			b.open = false
		}
	}
	if t.Type != tokNewline {
		b.prev = t
	}
	return closes
}

// terminate turns the raw stream into the parser's: a newline becomes a
// terminator when the previous token can end a statement and no "(" or "["
// is open; ";" is a terminator. The stream is normalised so that the grammar
// can require exactly one terminator after each statement:
//
//   - no terminator at the start, after "{" or after another terminator;
//   - an implicit terminator (empty Value) before "}" and before EOF when the
//     last statement is not yet terminated.
//
// For error recovery, "{", "}", ";" and a newline followed by a statement
// keyword close any brackets left open, and the latter always ends a
// statement: a statement keyword cannot continue an expression.
func terminate(raw []lexer.Token) []lexer.Token {
	out := make([]lexer.Token, 0, len(raw)+len(raw)/4)
	depth := 0
	var bounds boundsTracker
	closes := false       // whether the last emitted token closes a type's bounds
	open := func() bool { // whether the last emitted token leaves a statement open
		if len(out) == 0 {
			return false
		}
		last := out[len(out)-1]
		return last.Type != tokTerminator && !(last.Type == tokPunct && last.Value == "{")
	}
	term := func(pos lexer.Position, value string) {
		out = append(out, lexer.Token{Type: tokTerminator, Value: value, Pos: pos})
	}
	for i, t := range raw {
		if c := bounds.next(t); t.Type != tokNewline && t.Type != lexer.EOF {
			closes = c
		}
		switch {
		case t.Type == tokNewline:
			if i > 0 && raw[i-1].Type == tokNewline {
				// The run's first newline decided; looking ahead again
				// from each would be quadratic in the run (blank lines).
				continue
			}
			j := i + 1
			for raw[j].Type == tokNewline {
				j++
			}
			switch {
			case raw[j].Type == tokKeyword && raw[j].Value == "else" && len(out) > 0 && out[len(out)-1].Value == "}":
				// "}" newline "else": the if goes on.
			case raw[j].Type == tokKeyword && stmtKeywords[raw[j].Value]:
				// The next line starts a statement: whatever is open ends here.
				depth = 0
				if open() {
					term(t.Pos, "\n")
				}
			case depth == 0 && len(out) > 0 && canEnd(out[len(out)-1], closes):
				term(t.Pos, "\n")
			}
		case t.Type == lexer.EOF:
			if open() {
				term(t.Pos, "")
			}
			out = append(out, t)
		case t.Type == tokPunct:
			switch t.Value {
			case ";":
				depth = 0
				if open() {
					term(t.Pos, ";")
				}
				continue
			case "(", "[":
				depth++
			case ")", "]":
				if depth > 0 {
					depth--
				}
			case "{":
				depth = 0
			case "}":
				depth = 0
				if open() {
					term(t.Pos, "")
				}
			}
			out = append(out, t)
		default:
			out = append(out, t)
		}
	}
	return out
}

// NeedsMore reports whether src is an unfinished input that the next line
// continues, by the newline rule that terminate applies (language.md §1): a
// "(", "[" or "{" is open, or the last token cannot end a statement (an
// operator, a comma, "~", "=", ":" or the "<" of bounds). An input with a
// lexical error, such as '"' (the language has no strings), never needs
// more, since no next line can mend it; nor does an empty one or one ending
// in ";". The REPL asks it to choose between running an input and its
// "..." prompt.
func NeedsMore(src string) bool {
	toks := rawTokens(src)
	depth := 0
	var last *lexer.Token
	var bounds boundsTracker
	closes := false
	for i := range toks {
		t := &toks[i]
		closes = bounds.next(*t)
		switch t.Type {
		case tokBad:
			return false
		case tokPunct:
			depth += nesting(*t)
		}
		last = t
	}
	if last == nil {
		return false
	}
	return depth > 0 || !canEnd(*last, closes) && last.Value != ";"
}

// rawTokens returns src's tokens without newlines and the end of input.
func rawTokens(src string) []lexer.Token {
	s := &scanner{src: []byte(src), line: 1, bad: map[int]string{}}
	s.scanRaw()
	out := s.toks[:0]
	for _, t := range s.toks {
		if t.Type != tokNewline && t.Type != lexer.EOF {
			out = append(out, t)
		}
	}
	return out
}

// StartsStatement reports whether line starts with a statement keyword,
// which always starts a new statement (language.md §1). The REPL asks it
// whether a line ends the input before it.
func StartsStatement(line string) bool {
	toks := rawTokens(line)
	return len(toks) > 0 && toks[0].Type == tokKeyword && stmtKeywords[toks[0].Value]
}

// LeadingKeyword returns the keyword that src starts with ("if", "else",
// "for", ...), or "" when its first token is not one: the REPL asks whether
// a line goes on with an if (else) before it submits the if.
func LeadingKeyword(src string) string {
	toks := rawTokens(src)
	if len(toks) > 0 && toks[0].Type == tokKeyword {
		return toks[0].Value
	}
	return ""
}

// OpenBraces returns how many "{" src leaves open (negative if more are
// closed than opened).
func OpenBraces(src string) int {
	n := 0
	for _, t := range rawTokens(src) {
		if t.Type == tokPunct && t.Value == "{" {
			n++
		} else if t.Type == tokPunct && t.Value == "}" {
			n--
		}
	}
	return n
}

// LooksLikeStatements reports whether src, neither a valid expression nor
// valid statements, was meant as statements: it starts with a statement
// keyword or has a top-level "~", "=", "+=", "-=" or ";". The REPL asks it
// which of the two parse errors to report.
func LooksLikeStatements(src string) bool {
	toks := rawTokens(src)
	if len(toks) == 0 {
		return false
	}
	if toks[0].Type == tokKeyword && stmtKeywords[toks[0].Value] {
		return true
	}
	depth := 0
	for _, t := range toks {
		if t.Type != tokPunct {
			continue
		}
		depth += nesting(t)
		switch t.Value {
		case "~", "=", "+=", "-=", ";":
			if depth <= 0 {
				return true
			}
		}
	}
	return false
}

// nesting is +1 for an opening bracket or brace token, −1 for a closing
// one and 0 for any other: the change in depth that NeedsMore,
// LooksLikeStatements and tooDeep track.
func nesting(t lexer.Token) int {
	if t.Type == tokPunct {
		switch t.Value {
		case "(", "[", "{":
			return 1
		case ")", "]", "}":
			return -1
		}
	}
	return 0
}

// userDensityCall returns the name of the call whose parentheses hold
// offset off of src when it ends in _lpdf or _lpmf and src declares it
// (fn foo_lpdf), as a user density called with Stan's bar does
// (foo_lpdf(y | mu)), or "".
func userDensityCall(src []byte, off int) string {
	depth := 0
	i := off - 1
	for ; i >= 0; i-- {
		switch src[i] {
		case ')', ']':
			depth++
		case '(', '[':
			depth--
		case '\n':
			return ""
		}
		if depth < 0 {
			break
		}
	}
	if i < 0 || src[i] != '(' {
		return ""
	}
	end := i
	for end > 0 && src[end-1] == ' ' {
		end--
	}
	start := end
	for start > 0 && (src[start-1] == '_' || src[start-1] >= 'a' && src[start-1] <= 'z' || src[start-1] >= 'A' && src[start-1] <= 'Z' || src[start-1] >= '0' && src[start-1] <= '9') {
		start--
	}
	name := string(src[start:end])
	if !strings.HasSuffix(name, "_lpdf") && !strings.HasSuffix(name, "_lpmf") {
		return ""
	}
	// the user's own only if the source declares it (Stan's built-in
	// normal_lpdf is logpdf(y, Normal(mu, s)) instead)
	if !regexp.MustCompile(`(^|[^A-Za-z0-9_])fn\s+` + name + `\s*\(`).Match(src) {
		return ""
	}
	return name
}

// formulaBar reports whether the '|' at off is in an lme4 model formula,
// rt ~ cond + (1 | subj): its line has a ~ before it and no Stan density
// call (normal_lpdf(y | ...)) holds it.
func formulaBar(src []byte, off int) bool {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	line := src[start:off]
	t := bytes.IndexByte(line, '~')
	if t < 0 {
		return false
	}
	return !stanDensityCall.Match(line[t:])
}

// stanDensityCall matches the call of a Stan density or CDF by its
// suffix, normal_lpdf(.
var stanDensityCall = regexp.MustCompile(`_(lpdf|lpmf|lcdf|lccdf|lupdf|lupmf)\s*\(`)

// methodForms maps the density methods of scipy, PyTorch and PyMC-like
// code (D(...).logpdf(y)) to gpp's call, with %[1]s the value and %[2]s
// the distribution.
var methodForms = map[string]string{
	"logpdf": "logpdf(%[1]s, %[2]s)", "logpmf": "logpdf(%[1]s, %[2]s)", "logp": "logpdf(%[1]s, %[2]s)",
	"log_prob": "logpdf(%[1]s, %[2]s)", "lpdf": "logpdf(%[1]s, %[2]s)", "lpmf": "logpdf(%[1]s, %[2]s)",
	"pdf": "exp(logpdf(%[1]s, %[2]s))", "pmf": "exp(logpdf(%[1]s, %[2]s))",
	"logcdf": "logcdf(%[1]s, %[2]s)", "cdf": "exp(logcdf(%[1]s, %[2]s))",
	"logccdf": "logccdf(%[1]s, %[2]s)", "logsf": "logccdf(%[1]s, %[2]s)", "sf": "exp(logccdf(%[1]s, %[2]s))",
}

// methodCall returns how gpp writes the density method called at the
// '.' at off, NegBinomialLog(mu, phi).logpdf(y) as logpdf(y,
// NegBinomialLog(mu, phi)), or "" if it is not one on one line.
func methodCall(src []byte, off int) string {
	isName := func(b byte) bool {
		return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	}
	// the method's name and its parenthesised argument
	end := off + 1
	for end < len(src) && isName(src[end]) {
		end++
	}
	form, ok := methodForms[string(src[off+1:end])]
	if !ok || end >= len(src) || src[end] != '(' {
		return ""
	}
	close := matching(src, end, 1)
	if close < 0 {
		return ""
	}
	// the receiver: a call D(...) or a name
	start := off
	if off > 0 && src[off-1] == ')' {
		if start = matching(src, off-1, -1); start < 0 {
			return ""
		}
	}
	for start > 0 && isName(src[start-1]) {
		start--
	}
	if start == off {
		return ""
	}
	recv, val := string(src[start:off]), string(src[end+1:close])
	return "it writes " + string(src[start:close+1]) + " as " + fmt.Sprintf(form, val, recv)
}

// matching returns the index of the parenthesis that matches the one at
// i, searching forward (dir 1) or back (-1) on its line, or -1.
func matching(src []byte, i, dir int) int {
	depth := 0
	for ; i >= 0 && i < len(src) && src[i] != '\n'; i += dir {
		switch src[i] {
		case '(':
			depth += dir
		case ')':
			depth -= dir
		}
		if depth == 0 {
			return i
		}
	}
	return -1
}
