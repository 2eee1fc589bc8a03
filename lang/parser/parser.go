package parser

import (
	"bytes"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
)

// Limits that keep the recursive descent within a sane stack depth on
// hostile input; no model comes near them.
const (
	maxNesting = 500  // open brackets and braces at once
	maxChain   = 2000 // operators and indexes in a chain of one statement
)

// ParseFile parses the model in src. filename is recorded in every position.
//
// The error, if any, is an ast.ErrorList of every syntax error found, sorted
// by position: after an error the parser skips to the end of the statement
// (and into the statements of a for body) and goes on, up to ast.MaxErrors
// errors and then one more saying where it stopped. The returned file is
// never nil; on error it holds the statements that parsed.
func ParseFile(filename string, src []byte) (*ast.File, error) {
	stmts, err := ParseStmts(filename, src)
	return &ast.File{Name: filename, Stmts: stmts}, err
}

// ParseStmts parses src as a sequence of statements, as ParseFile does; the
// REPL uses it for each input.
func ParseStmts(filename string, src []byte) ([]ast.Stmt, error) {
	if enc := textenc.Wide(src[:min(len(src), textenc.Sample)]); enc != "" {
		// One error, not one per NUL byte.
		return nil, ast.ErrorList{ast.Errorf(ast.Pos{File: filename, Line: 1, Col: 1}, "the file is %s encoded; save it as UTF-8", enc)}
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		// A binary (or a file given by mistake): one error, not thousands.
		line := 1 + bytes.Count(src[:i], []byte("\n"))
		col := i - bytes.LastIndexByte(src[:i], '\n')
		return nil, ast.ErrorList{ast.Errorf(ast.Pos{File: filename, Line: line, Col: col}, "the file is not text (a NUL byte here); a model is a UTF-8 text file")}
	}
	src = bytes.TrimPrefix(src, []byte("\ufeff")) // a UTF-8 byte-order mark, as some editors write
	toks, bad := scan(filename, src)
	p := &state{bad: bad, eof: toks[len(toks)-1]}
	var stmts []ast.Stmt
	for _, chunk := range splitStmts(toks[:len(toks)-1]) {
		if p.full() {
			p.stop(chunk[0])
			break
		}
		stmts = append(stmts, p.chunk(chunk, "")...)
		p.prev = chunk[len(chunk)-1]
	}
	p.errs.Sort()
	if p.stopped != nil {
		p.errs = append(p.errs, p.stopped)
	}
	return stmts, p.errs.Err()
}

// ParseExpr parses a single expression, such as a REPL query or a test
// input. Positions have no file name.
func ParseExpr(src string) (ast.Expr, error) {
	toks, bad := scan("", []byte(src))
	p := &state{bad: bad, eof: toks[len(toks)-1]}
	firstBad := p.lexErrors(toks)
	if e := tooDeep(toks); e != nil {
		return nil, ast.ErrorList{e}
	}
	in, err := exprParser.ParseFromLexer(upgrade(toks))
	if err != nil {
		p.syntaxError(err, toks, "an expression", firstBad)
		p.errs.Sort()
		return nil, p.errs
	}
	l := lowerer{errs: &p.errs}
	x := l.expr(in.X)
	p.errs.Sort()
	return x, p.errs.Err()
}

// state is one parse: the lexical errors by offset and the errors so far.
type state struct {
	bad     map[int]string
	eof     lexer.Token
	errs    ast.ErrorList
	stopped *ast.Error  // where the parse gave up after ast.MaxErrors, or nil
	prev    lexer.Token // the token before the statement being parsed (zero at the start)
}

// full reports whether the parse has found as many errors as it reports.
func (p *state) full() bool { return len(p.errs) >= ast.MaxErrors }

// stop gives up at t, once.
func (p *state) stop(t lexer.Token) {
	if p.stopped == nil {
		p.stopped = ast.Errorf(astPos(t.Pos), "too many errors; the file was not read beyond here")
	}
}

// splitStmts cuts a token stream into statements: each ends with a
// terminator outside braces (the last may be unterminated).
func splitStmts(toks []lexer.Token) [][]lexer.Token {
	var chunks [][]lexer.Token
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case t.Type == tokPunct && t.Value == "{":
			depth++
		case t.Type == tokPunct && t.Value == "}":
			if depth > 0 {
				depth--
			}
		case t.Type == tokTerminator && depth == 0:
			chunks = append(chunks, toks[start:i+1])
			start = i + 1
		}
	}
	if start < len(toks) {
		chunks = append(chunks, toks[start:])
	}
	return chunks
}

// chunk parses one statement (a for loop or an if with its bodies) and
// returns it lowered, or records its errors and returns nothing. body is
// the kind of the body it is in ("for" or "if"), "" at the top level.
func (p *state) chunk(toks []lexer.Token, body string) []ast.Stmt {
	firstBad := p.lexErrors(toks)
	if p.stopped != nil {
		return nil
	}
	if e := tooDeep(toks); e != nil {
		p.errs = append(p.errs, e)
		return nil
	}
	if e := stanBlock(toks); e != nil {
		p.errs = append(p.errs, e)
		return nil
	}
	in := append(toks[:len(toks):len(toks)], p.eof)
	f, err := fileParser.ParseFromLexer(upgrade(in))
	if err != nil {
		if firstBad < 0 && startsBlock(toks) && p.recoverBlock(toks) {
			return nil
		}
		p.syntaxError(err, in, "", firstBad)
		return nil
	}
	l := lowerer{errs: &p.errs}
	var stmts []ast.Stmt
	for _, s := range f.Stmts {
		stmts = append(stmts, l.stmt(s, body))
	}
	return stmts
}

// lexErrors records the lexical errors in toks and returns the index of the
// first tokBad token, or -1.
func (p *state) lexErrors(toks []lexer.Token) int {
	first := -1
	for i, t := range toks {
		if t.Type == tokBad {
			if first < 0 {
				first = i
			}
			if p.full() {
				p.stop(t)
				break
			}
			p.errs.Add(astPos(t.Pos), "%s", p.bad[t.Pos.Offset])
		}
	}
	return first
}

// syntaxError records the parse error err, unless a lexical error at or
// before it (toks[firstBad]) already explains it.
func (p *state) syntaxError(err error, toks []lexer.Token, root string, firstBad int) {
	e := syntaxError(err, toks, root, p.prev)
	if firstBad >= 0 && !e.Pos.Before(astPos(toks[firstBad].Pos)) {
		return
	}
	p.errs = append(p.errs, e)
}

// startsBlock reports whether toks start a statement with braced bodies:
// a for loop or an if.
func startsBlock(toks []lexer.Token) bool {
	return len(toks) > 0 && toks[0].Type == tokKeyword && (toks[0].Value == "for" || toks[0].Value == "if")
}

// recoverBlock reports the errors of a for loop or an if that failed to
// parse piece by piece: its header (parsed with empty bodies: the for's
// range, the if's conditions and elses) and each statement of each body.
// It returns false, having reported nothing, when the braces do not
// delimit the bodies cleanly or no piece fails on its own.
func (p *state) recoverBlock(toks []lexer.Token) bool {
	kind := toks[0].Value
	type span struct{ lb, rb int }
	var bodies []span
	depth, lb := 0, -1
	for i, t := range toks {
		if t.Type != tokPunct {
			continue
		}
		if t.Value == "{" {
			if depth == 0 {
				lb = i
			}
			depth++
		} else if t.Value == "}" && depth > 0 {
			depth--
			if depth == 0 {
				bodies = append(bodies, span{lb, i})
			}
		}
	}
	if len(bodies) == 0 || depth != 0 {
		return false
	}
	rb := bodies[len(bodies)-1].rb
	if !(rb == len(toks)-1 || rb == len(toks)-2 && toks[rb+1].Type == tokTerminator) {
		return false
	}
	saved := p.errs
	p.errs = nil

	header := make([]lexer.Token, 0, len(toks))
	last := 0
	for _, b := range bodies {
		header = append(header, toks[last:b.lb+1]...)
		last = b.rb
	}
	header = append(header, toks[last:]...)
	header = append(header, p.eof)
	if _, err := fileParser.ParseFromLexer(upgrade(header)); err != nil {
		p.syntaxError(err, header, "", -1)
	}
	for _, b := range bodies {
		p.prev = lexer.Token{}
		for _, c := range splitStmts(toks[b.lb+1 : b.rb]) {
			if len(saved)+len(p.errs) >= ast.MaxErrors {
				p.stop(c[0])
				break
			}
			p.chunk(c, kind)
			p.prev = c[len(c)-1]
		}
	}
	found := p.errs
	p.errs = append(saved, found...)
	return len(found) > 0
}

// stanBlocks are the block names of a Stan program.
var stanBlocks = map[string]bool{"functions": true, "data": true, "transformed": true, "parameters": true, "model": true, "generated": true}

// stanBlock reports a statement that opens a Stan block ("model {",
// "generated quantities {"): one error that says how gpp writes it,
// instead of a syntax error at the brace.
func stanBlock(toks []lexer.Token) *ast.Error {
	i := 0
	for i < len(toks) && i < 3 && (toks[i].Type == tokIdent || toks[i].Type == tokKeyword) && stanBlocks[toks[0].Value] {
		i++
	}
	if i == 0 || i >= len(toks) || toks[i].Type != tokPunct || toks[i].Value != "{" {
		return nil
	}
	var name []string
	for _, t := range toks[:i] {
		name = append(name, t.Value)
	}
	if toks[0].Value == "functions" {
		return ast.Errorf(astPos(toks[0].Pos), "`functions { ... }` is a Stan block; gpp has none: declare each function at the top level, fn NAME(A, B) = EXPR or fn NAME(A, B) { let ...; return EXPR }, without types (docs/language.md)")
	}
	return ast.Errorf(astPos(toks[0].Pos), "`%s { ... }` is a Stan block; gpp has none: declare data, param, let and output statements, and write the model's statements at the top level (docs/language.md)", strings.Join(name, " "))
}

// tooDeep reports a statement that would recurse too deeply. Every later
// phase (lowering, the checker, the compiler, the printer) walks an operand
// chain such as 1 + 1 + ... or x[1][1]... one call per operator, so maxChain
// bounds the operators of each statement (counted afresh after a
// terminator or a brace, as each statement of a body is separate). The
// elements of a list (a vector literal's, a call's arguments) are
// siblings, not one chain: after a comma the count goes back to where it
// was at the list's bracket, and at its close it is the largest of its
// elements', so [-1, -2, ...] of any length counts one. An else-if nests
// the rest of its if one level deeper, so maxChain bounds those too.
func tooDeep(toks []lexer.Token) *ast.Error {
	depth, chain := 0, 0
	type list struct{ open, widest int } // the count at "(" or "[", the largest element's
	var lists []list
	elifs := []int{0} // the else-ifs of the if at each brace depth
	for i, t := range toks {
		if t.Type == tokTerminator {
			chain, lists = 0, lists[:0]
			elifs[len(elifs)-1] = 0
		}
		if t.Type == tokKeyword && t.Value == "if" && i > 0 && toks[i-1].Value == "else" && toks[i-1].Type == tokKeyword {
			// Each else-if nests the rest of the chain one level deeper.
			if elifs[len(elifs)-1]++; elifs[len(elifs)-1] > maxChain {
				return ast.Errorf(astPos(toks[i-1].Pos), "if statement too long (more than %d else-ifs); look the value up by index in a data vector, or split the cases over several if statements", maxChain)
			}
		}
		if t.Type != tokPunct {
			continue
		}
		switch {
		case t.Value == "{":
			elifs = append(elifs, 0)
		case t.Value == "}" && len(elifs) > 1:
			elifs = elifs[:len(elifs)-1]
		}
		depth = max(depth+nesting(t), 0)
		if depth > maxNesting {
			return ast.Errorf(astPos(t.Pos), "brackets nested too deeply (more than %d)", maxNesting)
		}
		if t.Value == "{" || t.Value == "}" {
			chain, lists = 0, lists[:0]
		}
		if isChainOp(t, toks[:i]) {
			chain++
			if chain > maxChain {
				return ast.Errorf(astPos(t.Pos), "statement too long (more than %d operators); split it with let", maxChain)
			}
		}
		n := len(lists)
		switch {
		case t.Value == "(" || t.Value == "[":
			lists = append(lists, list{chain, chain})
		case t.Value == "," && n > 0:
			lists[n-1].widest = max(lists[n-1].widest, chain)
			chain = lists[n-1].open
		case (t.Value == ")" || t.Value == "]") && n > 0:
			chain = max(chain, lists[n-1].widest)
			lists = lists[:n-1]
		}
	}
	return nil
}

// isChainOp reports whether t, a punctuation token after those in before,
// is an operator (unary, binary or the transpose ') or the "[" of an index:
// each adds a level to the expression tree.
func isChainOp(t lexer.Token, before []lexer.Token) bool {
	switch t.Value {
	case "+", "-", "*", ".*", "/", "^", "!", "||", "&&", "<", "<=", ">", ">=", "==", "!=", "'":
		return true
	case "[":
		if len(before) == 0 {
			return false
		}
		p := before[len(before)-1]
		return p.Type == tokIdent || p.Type == tokPunct && (p.Value == ")" || p.Value == "]" || p.Value == "'")
	}
	return false
}

func upgrade(toks []lexer.Token) *lexer.PeekingLexer {
	p, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		panic("parser: " + err.Error()) // sliceLexer never fails
	}
	return p
}
