package parser

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/ebnf"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gpplang/gpp/lang/ast"
)

// Syntax errors are reported as "expected X after Y, found Z": participle
// says which part of a production it was matching when the input went wrong
// (in EBNF), and the first element of that part, described in words, is what
// was expected.

// words describes productions by what they mean to a model author. A
// production not listed here is described by the tokens that can start it.
var words = map[string]string{
	"Stmt":      "a statement",
	"Expr":      "an expression",
	"AndExpr":   "an expression",
	"CmpExpr":   "an expression",
	"Arith":     "an expression",
	"Product":   "an expression",
	"Unary":     "an expression",
	"Power":     "an expression",
	"Postfix":   "an expression",
	"Operand":   "an expression",
	"Negation":  "an expression",
	"Paren":     "an expression",
	"VectorLit": "an expression",
	"Ident":     "a name",
	"Name":      "a name",
	"Number":    "a number",
	"TypeExpr":  "a type",
	"Dist":      "a distribution",
}

// tokenWords describes the lexer's token classes (<ident> and so on in the
// EBNF).
var tokenWords = map[string]string{
	"ident":      "a name",
	"number":     "a number",
	"terminator": `newline or ";"`,
}

var (
	productionsOnce sync.Once
	productions     map[string]*ebnf.Expression
)

// grammarProductions parses the grammar's own EBNF, for describing
// productions by their first tokens.
func grammarProductions() map[string]*ebnf.Expression {
	productionsOnce.Do(func() {
		productions = map[string]*ebnf.Expression{}
		for _, p := range []interface{ String() string }{fileParser, exprParser} {
			g, err := ebnf.ParseString(p.String())
			if err != nil {
				panic("parser: cannot read own grammar: " + err.Error())
			}
			for _, prod := range g.Productions {
				productions[prod.Production] = prod.Expression
			}
		}
	})
	return productions
}

// describeExpected turns the EBNF of what participle was matching into words:
// the alternatives that can start it, e.g. `"," or ")"` or "an expression".
func describeExpected(expected string) string {
	g, err := ebnf.ParseString("Expected = " + expected + " .")
	if err != nil || len(g.Productions) != 1 {
		return ""
	}
	var d describer
	d.expression(g.Productions[0].Expression, map[string]bool{})
	return joinOr(d.items)
}

type describer struct {
	items []string
}

func (d *describer) add(s string) {
	for _, it := range d.items {
		if it == s {
			return
		}
	}
	d.items = append(d.items, s)
}

func (d *describer) expression(e *ebnf.Expression, seen map[string]bool) {
	for _, seq := range e.Alternatives {
		d.sequence(seq, seen)
	}
}

// sequence adds what can start seq: its first term and, while the terms
// so far may be empty, the next.
func (d *describer) sequence(seq *ebnf.Sequence, seen map[string]bool) {
	for _, t := range seq.Terms {
		d.term(t, seen)
		if t.Repetition != "?" && t.Repetition != "*" {
			return
		}
	}
}

func (d *describer) term(t *ebnf.Term, seen map[string]bool) {
	switch {
	case t.Literal != "":
		d.add(t.Literal)
	case t.Token != "":
		if w, ok := tokenWords[t.Token]; ok {
			d.add(w)
		} else {
			d.add("<" + t.Token + ">")
		}
	case t.Group != nil:
		d.expression(t.Group.Expr, seen)
	case t.Name != "":
		if w, ok := words[t.Name]; ok {
			d.add(w)
			return
		}
		if seen[t.Name] {
			return
		}
		seen[t.Name] = true
		if e, ok := grammarProductions()[t.Name]; ok {
			d.expression(e, seen)
		} else {
			d.add(t.Name)
		}
	}
}

// joinOr joins items as "a", "a or b", "a, b or c".
func joinOr(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// describeToken names a token for "found ..." in messages. eof is the end
// of the input, which tells the two kinds of implicit terminator apart.
func describeToken(t, eof lexer.Token) string {
	switch t.Type {
	case lexer.EOF:
		return "end of file"
	case tokTerminator:
		switch t.Value {
		case "\n":
			return "newline"
		case ";":
			return `";"`
		}
		// An implicit terminator stands before "}" or at the end of input.
		if t.Pos.Offset == eof.Pos.Offset {
			return "end of file"
		}
		return `"}"`
	case tokKeyword:
		return fmt.Sprintf("keyword %q", t.Value)
	}
	return fmt.Sprintf("%q", t.Value)
}

// syntaxError maps a participle error from parsing toks, which end with the
// EOF token of the input, into a positioned error in plain words. root says
// what the input should start with ("" for "unexpected X" instead); prev
// is the token before toks in the file (zero at its start).
func syntaxError(err error, toks []lexer.Token, root string, prev lexer.Token) *ast.Error {
	var unexpected *participle.UnexpectedTokenError
	if errors.As(err, &unexpected) {
		tok := unexpected.Unexpected
		found := describeToken(tok, toks[len(toks)-1])
		want := describeExpected(expectedEBNF(unexpected))
		i := findToken(toks, tok)
		if want == "" && i == 0 {
			want = root
		}
		if want == "" {
			msg := "unexpected " + found
			if h := stanSyntaxHint(toks, i); h != "" {
				msg += "; " + h
			} else if h := continuationHint(toks, i, prev); h != "" {
				msg += "; " + h
			}
			return ast.Errorf(astPos(tok.Pos), "%s", msg)
		}
		msg := "expected " + want
		if i > 0 && toks[i-1].Type != tokTerminator {
			msg += fmt.Sprintf(" after %q", toks[i-1].Value)
		}
		msg += ", found " + found
		if j := unclosed(toks, i); j >= 0 && j < i-1 && strings.Contains(want, `"`+closer[toks[j].Value]+`"`) {
			// The statement ended inside brackets: say which were left
			// open, as the mend may belong far before the end.
			at := astPos(toks[j].Pos)
			msg += fmt.Sprintf("; the %q at %d:%d is not closed", toks[j].Value, at.Line, at.Col)
		} else if h := stanSyntaxHint(toks, i); h != "" {
			msg += "; " + h
		} else if h := keywordNameHint(toks, i, want); h != "" {
			msg += "; " + h
		}
		return ast.Errorf(endPos(toks, tok, i, found), "%s", msg)
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		return ast.Errorf(astPos(perr.Position()), "%s", perr.Message())
	}
	var pos lexer.Position
	if len(toks) > 0 {
		pos = toks[0].Pos
	}
	return ast.Errorf(astPos(pos), "%s", err.Error())
}

// continuationHint says, where a line starts with a binary operator after a
// complete statement (a + b * x continued as Stan and Python allow), that the
// statement ended with the line before; "" elsewhere. prev is the token
// before toks.
func continuationHint(toks []lexer.Token, i int, prev lexer.Token) string {
	if i < 0 {
		return ""
	}
	if i > 0 {
		prev = toks[i-1]
	}
	if prev.Type != tokTerminator || prev.Value != "\n" || toks[i].Type != tokPunct {
		return ""
	}
	if _, ok := binaryOps[toks[i].Value]; !ok && toks[i].Value != "~" {
		return ""
	}
	return fmt.Sprintf("a statement ends at the end of its line, so this %q starts a new one: end the line before with the operator to continue the expression (a + b * on one line, x on the next), or wrap the expression in parentheses, as a line break inside brackets continues it", toks[i].Value)
}

// keywordNameHint says, where a declaration's name is a keyword (data
// unit: ..., a usual name of a panel's column), that it cannot be a name,
// and for data how a CSV column of that name binds to another one; ""
// elsewhere.
func keywordNameHint(toks []lexer.Token, i int, want string) string {
	if i < 1 || toks[i].Type != tokKeyword || !strings.HasPrefix(want, "a name") {
		return ""
	}
	kw := toks[i].Value
	switch toks[i-1].Value {
	case "data":
		return fmt.Sprintf("`%s` is a keyword of the language, so it cannot name data: give the data another name and bind the column to it on the command line (%s2=FILE.csv:%s)", kw, kw, kw)
	case "param", "let", "const", "output", "fn":
		return fmt.Sprintf("`%s` is a keyword of the language, so it cannot be a name: choose another", kw)
	}
	return ""
}

// endPos is where the error at tok, toks[i] (i −1 where not found), is
// shown: tok's position, or at the end of input (often a line of its own
// after the last newline) just after the token before it, where the
// missing text belongs.
func endPos(toks []lexer.Token, tok lexer.Token, i int, found string) ast.Pos {
	pos := astPos(tok.Pos)
	if found != "end of file" || i < 1 || toks[i-1].Type == tokTerminator || strings.Contains(toks[i-1].Value, "\n") {
		return pos
	}
	prev := astPos(toks[i-1].Pos)
	return prev.Add(utf8.RuneCountInString(toks[i-1].Value))
}

// closer is the bracket that closes each opening one.
var closer = map[string]string{"(": ")", "[": "]"}

// unclosed returns the index of the innermost "(" or "[" left open before
// token i when i ends the statement (a terminator or the end of input),
// and -1 otherwise.
func unclosed(toks []lexer.Token, i int) int {
	if i < 0 || toks[i].Type != tokTerminator && toks[i].Type != lexer.EOF {
		return -1
	}
	var open []int
	for j, t := range toks[:i] {
		switch {
		case t.Type != tokPunct:
		case t.Value == "(" || t.Value == "[":
			open = append(open, j)
		case (t.Value == ")" || t.Value == "]") && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	if len(open) == 0 {
		return -1
	}
	return open[len(open)-1]
}

// expectedEBNF recovers the EBNF of what participle expected, which it only
// exposes through the message "unexpected token %q (expected %s)".
func expectedEBNF(u *participle.UnexpectedTokenError) string {
	if u.Expect != "" {
		return u.Expect
	}
	msg := u.Message()
	prefix := fmt.Sprintf("unexpected token %q (expected ", u.Unexpected)
	if !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, ")") {
		return ""
	}
	return msg[len(prefix) : len(msg)-1]
}

// findToken returns the index of t in toks, or -1.
func findToken(toks []lexer.Token, t lexer.Token) int {
	for i := range toks {
		if toks[i].Pos.Offset == t.Pos.Offset && toks[i].Type == t.Type && toks[i].Value == t.Value {
			return i
		}
	}
	return -1
}

// stanTypes are Stan's type names that gpp writes otherwise, with what to
// write, for the error at a declaration ported from Stan.
var stanTypes = map[string]string{
	"vector":      "a vector is real[N] (or positive[N], unit[N], ...)",
	"row_vector":  "a vector is real[N] (or positive[N], unit[N], ...)",
	"array":       "an array is real[N] or real[N, M] (or int, positive, unit)",
	"matrix":      "a matrix is real[N, M] (or positive[N, M], ...)",
	"unit_vector": "gpp has no unit_vector type",
	// other languages' words for a type
	"probability": "a probability is unit (or real<lower=0, upper=1>)",
	"prob":        "a probability is unit (or real<lower=0, upper=1>)",
	"float":       "a floating-point value is real",
	"double":      "a floating-point value is real",
	"integer":     "an integer is int",
	"bool":        "a 0/1 value is int<lower=0, upper=1>",
	"logical":     "a 0/1 value is int<lower=0, upper=1>",
	"count":       "a count is int<lower=0>",
	"nonnegative": "a value ≥ 0 is real<lower=0> (positive is > 0)",
}

// stanSyntaxHint returns what to write instead when the token at i, which
// did not parse, starts a Stan construct gpp writes otherwise (a model
// ported from Stan), or "".
func stanSyntaxHint(toks []lexer.Token, i int) string {
	if i < 0 {
		return ""
	}
	tok := toks[i]
	var prev string
	if i > 0 {
		prev = toks[i-1].Value
	}
	if h := declHint(toks, i); h != "" {
		return h
	}
	switch {
	case prev == "for" && tok.Value == "(":
		return "gpp writes Stan's for (i in 1:N) as for i in 0:N { ... }, without parentheses: a range counts from 0 and stops before its end"
	case prev == ":" && stanTypes[tok.Value] != "":
		return stanTypes[tok.Value]
	case prev == ":" && tok.Type == tokIdent && i >= 3 && (toks[i-3].Value == "param" || toks[i-3].Value == "data"):
		return "a type is one of int, real, positive, unit, simplex, ordered, positive_ordered, sum_to_zero_vector, sum_to_zero_matrix, cov_matrix, corr_matrix, cholesky_factor_cov or cholesky_factor_corr, with bounds <lower=L, upper=U> and a shape [N, ...] after it"
	case tok.Value == "=" && keywordArg(toks, i) != "":
		f, kw := keywordArg(toks, i), toks[i-1].Value
		if h := precisionHint(f, kw); h != "" {
			return h
		}
		return fmt.Sprintf("gpp has no keyword arguments: %s takes its arguments by position, in the order gpp help %s lists, as Stan's calls do (PyMC's %s=... is not written)", f, f, toks[i-1].Value)
	case tok.Type == tokPunct && (tok.Value == "=" || len(tok.Value) == 2 && tok.Value[1] == '=' && strings.Contains("+-*/", tok.Value[:1])) && assigns(toks, i):
		return "gpp has no assignment: a name is defined once, by let NAME = ..., and target += adds to the log density"
	case prev == "let" && stanDeclTypes[tok.Value]:
		// let real m = ...
		return typedLet
	case tok.Value == "[" && i >= 2 && toks[i-2].Value == "let" && toks[i-1].Type == tokIdent:
		if j := closeBracket(toks, i) + 1; j < len(toks) && (toks[j].Type == tokIdent || toks[j].Type == tokKeyword) {
			return typedLet // let vector[N] m = ..., let array[N] real x = ...
		}
		return "gpp has no element assignment: a let defines its whole value at once, so build it vectorised (let m = a + b * x), with append_row, cumsum, ar_filter, tv_filter or renewal for a recursion, or write the recursion's density (docs/language.md, section 3, Time series); Stan's forward algorithm is hmm_marginal"
	case tok.Value == "[" && i >= 2 && toks[i-2].Value == "output" && toks[i-1].Type == tokIdent:
		return outputWhole(toks[i-1].Value)
	case tok.Value == ":" && i >= 2 && (toks[i-2].Value == "output" || toks[i-2].Value == "let") && toks[i-1].Type == tokIdent:
		// output theta: real[S] = ..., a declaration's type on a definition
		kw, name := toks[i-2].Value, toks[i-1].Value
		h := fmt.Sprintf("%s takes no type: write %s %s = EXPR, whose type and shape come from EXPR", kw, kw, name)
		if kw == "output" {
			h += fmt.Sprintf(" (a replicate drawn at each draw is output %s ~ D(args))", name)
		}
		return h
	case tok.Type == tokKeyword && tok.Value == "else":
		return "an else follows the \"}\" of its if: if COND { ... } else { ... }"
	case stanPrint(toks, i):
		return "gpp has no print, reject or fatal_error: output NAME = EXPR reports a value at every draw, and gpp repl evaluates expressions on a fit; a value outside its domain stops the fit with an error that names it"
	case tok.Type == tokKeyword && tok.Value == "target" && i+1 < len(toks) && toks[i+1].Value == "(":
		return "gpp has no target() or get_lp(): the log density is not a value a model reads; gpp fit reports the ELBO, and output log_lik = logpdf(y, ...) gives each observation's term"
	case stanFunc(toks, i):
		return "a Stan function is declared in gpp without types or a functions block: fn f(x, y) = EXPR, or fn f(x) { let u = ...; return EXPR }"
	case stanDecl(toks, i):
		return "a declaration starts with its kind, data or param, and gives the type after the name: Stan's real<lower=0> sigma; is param sigma: real<lower=0>, and vector[N] y; is data y: real[N]"
	case typedParam(toks, i):
		return "a function's parameters have no types in gpp (each call is checked with its arguments' shapes): fn f(x, y) = EXPR"
	case inFnBlock(toks, i) && (tok.Type == tokKeyword || tok.Value == "}" || toks[i-1].Type == tokTerminator):
		return "a function's block holds lets and then one return: fn f(x) { let u = ...; return EXPR }"
	case tok.Type == tokKeyword && tok.Value == "return" && (i == 0 || toks[i-1].Type == tokTerminator):
		return "return ends the block of a function, fn NAME(A, B) { let ...; return EXPR }; a model's statements return nothing"
	case tok.Value == "]" && prev == "[" && !(i >= 2 && endsOperand(toks[i-2])):
		return "a literal has at least one element: `[]` is no vector, nor an empty row of a matrix literal"
	case tok.Value == "]" && prev == ",":
		return "a literal takes no trailing comma"
	case tok.Value == "T" && i+1 < len(toks) && toks[i+1].Value == "[" && prev == ")":
		return "T[L, U] truncates the distribution of a ~ statement on data (y ~ Normal(mu, s) T[0, ]); elsewhere subtract the log mass by hand with logcdf or logccdf"
	}
	return ""
}

// endsOperand reports whether a "[" after t indexes (x[, f(x)[, [a][) or
// gives a type's shape (int[), instead of starting a literal.
func endsOperand(t lexer.Token) bool {
	return t.Type == tokIdent || t.Type == tokNumber || t.Type == tokKeyword || t.Value == ")" || t.Value == "]" || t.Value == "'"
}

// typedLet is the hint at a let written with Stan's type before the name.
const typedLet = "gpp's let takes no type: Stan's vector[N] m = ...; is let m = ..., whose type and shape come from its expression"

// outputWhole is the hint at an output of one element, or in a loop: an
// output is a whole value.
func outputWhole(name string) string {
	return fmt.Sprintf("an output is a whole value, defined once at the top level: write output %s = EXPR there for all its elements at once (Stan's %s[n] = normal_lpdf(y[n] | ...) in a loop is output %s = logpdf(y, Normal(...)), elementwise over y)", name, name, name)
}

// precisionHint is the hint at PyMC's precision keyword tau= (or lam=)
// in a call of f, whose gpp form takes the sd, and "" for other keywords.
func precisionHint(f, kw string) string {
	if kw != "tau" && !(kw == "lam" && f == "StudentT") {
		return ""
	}
	switch f {
	case "Normal", "LogNormal":
		return fmt.Sprintf("gpp has no keyword arguments, and gpp's %s takes the sd: PyMC's %s(mu, %s=%s) is %s(mu, 1 / sqrt(%s))", f, f, kw, kw, f, kw)
	case "StudentT":
		return fmt.Sprintf("gpp has no keyword arguments, and gpp's StudentT takes the scale: PyMC's StudentT(nu, mu, %s=%s) is StudentT(nu, mu, 1 / sqrt(%s))", kw, kw, kw)
	}
	return ""
}

// closeBracket returns the index of the "]" that closes the "[" at i, or
// len(toks).
func closeBracket(toks []lexer.Token, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].Value {
		case "[":
			depth++
		case "]":
			depth--
			if depth == 0 {
				return j
			}
		}
		if toks[j].Type == tokTerminator {
			break
		}
	}
	return len(toks)
}

// keywordArg returns the name of the call when token i, an "=" that did
// not parse, follows a name that is an argument of a call, NAME(..., x =
// (PyMC's keyword arguments, Normal(mu=0, sigma=1)), and "" otherwise.
func keywordArg(toks []lexer.Token, i int) string {
	if i < 3 || toks[i-1].Type != tokIdent || (toks[i-2].Value != "(" && toks[i-2].Value != ",") {
		return ""
	}
	depth := 0
	for j := i - 2; j > 0; j-- {
		switch toks[j].Value {
		case ")", "]":
			depth++
		case "[":
			depth--
		case "(":
			if depth == 0 {
				if toks[j-1].Type == tokIdent {
					return toks[j-1].Value
				}
				return ""
			}
			depth--
		}
		if depth < 0 || toks[j].Type == tokTerminator {
			return ""
		}
	}
	return ""
}

// typedParam reports whether token i, which did not parse, is in the
// parameter list of a fn declaration written with Stan's types: a keyword
// in a parameter's place (real x), or a name after a name (vector x).
func typedParam(toks []lexer.Token, i int) bool {
	j := stmtStart(toks, i)
	if toks[j].Type != tokKeyword || toks[j].Value != "fn" || i < j+3 {
		return false
	}
	after := func(k int) bool { return toks[k].Value == "(" || toks[k].Value == "," }
	t := toks[i]
	return t.Type == tokKeyword && after(i-1) ||
		(t.Type == tokIdent || t.Type == tokKeyword) && toks[i-1].Type == tokIdent && after(i-2)
}

// inFnBlock reports whether token i is inside the block of a fn
// declaration: the "{" that opens it comes before i. The items of the
// block each end in a terminator, so the search goes back past them to
// the "fn".
func inFnBlock(toks []lexer.Token, i int) bool {
	for k := i - 1; k >= 0; k-- {
		switch {
		case toks[k].Value == "{":
			return k >= 4 && toks[k-1].Value == ")" && fnStarts(toks, k)
		case toks[k].Value == "}":
			return false
		}
	}
	return false
}

// fnStarts reports whether the statement holding token k starts with fn.
func fnStarts(toks []lexer.Token, k int) bool {
	k = stmtStart(toks, k)
	return toks[k].Type == tokKeyword && toks[k].Value == "fn"
}

// stanPrint reports whether token i, which did not parse, is in a
// statement that calls Stan's print, reject or fatal_error.
func stanPrint(toks []lexer.Token, i int) bool {
	j := stmtStart(toks, i)
	return j+1 < len(toks) && toks[j].Type == tokIdent && (toks[j].Value == "print" || toks[j].Value == "reject" || toks[j].Value == "fatal_error") && toks[j+1].Value == "("
}

// stanDeclTypes are the type names that start a Stan declaration.
var stanDeclTypes = map[string]bool{
	"real": true, "int": true, "vector": true, "row_vector": true, "matrix": true, "array": true,
	"simplex": true, "ordered": true, "positive_ordered": true, "unit_vector": true,
	"sum_to_zero_vector": true, "sum_to_zero_matrix": true, "corr_matrix": true, "cov_matrix": true,
	"cholesky_factor_corr": true, "cholesky_factor_cov": true,
}

// stanDecl reports whether token i, which did not parse, is in a Stan
// declaration (real<lower=0> sigma;, vector[N] y;): the statement starts
// with a type name and token i is that name or the declared name after
// its type, which follows a "]" or a ">".
func stanDecl(toks []lexer.Token, i int) bool {
	j := stmtStart(toks, i)
	if !stanDeclTypes[toks[j].Value] || toks[j].Type != tokIdent && toks[j].Type != tokKeyword {
		return false
	}
	return i == j || (toks[i].Type == tokIdent || toks[i].Type == tokKeyword) && (toks[i-1].Value == "]" || toks[i-1].Value == ">")
}

// stanFunc reports whether token i, which did not parse, starts a Stan
// function definition: a Stan type, an optional [...] or <...>, a name and
// "(" (real f(real x) { ... }, vector g(...)).
func stanFunc(toks []lexer.Token, i int) bool {
	j := stmtStart(toks, i)
	if !stanDeclTypes[toks[j].Value] && toks[j].Value != "void" {
		return false
	}
	k := j + 1
	if k < len(toks) && (toks[k].Value == "[" || toks[k].Value == "<") {
		closer := map[string]string{"[": "]", "<": ">"}[toks[k].Value]
		for k < len(toks) && toks[k].Value != closer {
			k++
		}
		k++
	}
	return k+1 < len(toks) && toks[k].Type == tokIdent && toks[k+1].Value == "("
}

// assigns reports whether the statement holding token i starts with a name
// (not a keyword, as target or let do): x = ..., x[i] += ....
func assigns(toks []lexer.Token, i int) bool {
	j := i - 1
	for j > 0 && toks[j-1].Type != tokTerminator && !(toks[j-1].Type == tokPunct && (toks[j-1].Value == "{" || toks[j-1].Value == "}")) {
		j--
	}
	return j >= 0 && toks[j].Type == tokIdent
}

// stmtStart returns the index of the first token of the statement holding
// token i.
func stmtStart(toks []lexer.Token, i int) int {
	j := i
	for j > 0 && toks[j-1].Type != tokTerminator {
		j--
	}
	return j
}

// stmtEnd returns the index of the terminator (or EOF) that ends the
// statement holding token i.
func stmtEnd(toks []lexer.Token, i int) int {
	for i < len(toks) && toks[i].Type != tokTerminator && toks[i].Type != lexer.EOF {
		i++
	}
	return i
}

// render writes tokens back as source, spaced as the docs write it:
// binary operators and ~ spaced, a space after each comma.
func render(toks []lexer.Token) string {
	var b strings.Builder
	for k, t := range toks {
		binary := k > 0 && strings.Contains(" + - * / .* ^ ~ = == != < <= > >= && || ", " "+t.Value+" ") &&
			(toks[k-1].Type == tokIdent || toks[k-1].Type == tokNumber || toks[k-1].Value == ")" || toks[k-1].Value == "]")
		switch {
		case binary:
			b.WriteString(" " + t.Value + " ")
		case t.Value == "~":
			b.WriteString(" ~ ")
		case t.Value == "," || t.Value == ":" && k == 2 && toks[0].Type == tokKeyword:
			b.WriteString(t.Value + " ")
		case k > 0 && (t.Type == tokIdent || t.Type == tokKeyword || t.Type == tokNumber) &&
			(toks[k-1].Type == tokIdent || toks[k-1].Type == tokKeyword || toks[k-1].Type == tokNumber):
			b.WriteString(" " + t.Value)
		default:
			b.WriteString(t.Value)
		}
	}
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "  ", " "))
}

// declHint returns what to write instead when token i, which did not
// parse, is in a declaration or ~ statement written as a newcomer from R,
// BUGS or lme4 might: a prior given with = (param mu: real = Normal(0,
// 1)), an output computed with ~, a prior on data in its declaration, a
// param without a type, or a model formula (rt ~ cond + (1|subj)); ""
// otherwise.
func declHint(toks []lexer.Token, i int) string {
	j := stmtStart(toks, i)
	tok, end := toks[i], stmtEnd(toks, i)
	if tok.Type == tokTerminator || tok.Type == lexer.EOF {
		end = i
	}
	first := toks[j]
	kw := first.Type == tokKeyword
	switch {
	case kw && first.Value == "param" && i == j+2 && toks[j+1].Type == tokIdent && tok.Value == "~":
		// param a ~ Normal(0, 1): no type
		return fmt.Sprintf("a param needs a type after its name and a colon: param %s: real %s (or positive, real[J], ...)", toks[j+1].Value, render(toks[i:end]))
	case kw && first.Value == "param" && tok.Value == "=" && i > j+3 && toks[j+2].Value == ":" && topLevel(toks, j, i):
		// param mu: real[2] = Normal(100, 50)
		return fmt.Sprintf("a param's prior is written with ~, not =: %s ~ %s (a fixed value is a const: const NAME = VALUE)", render(toks[j:i]), render(toks[i+1:end]))
	case kw && first.Value == "data" && tok.Value == "~" && i > j+3 && i+1 < end && toks[j+2].Value == ":":
		// data x: real[N] ~ Normal(0, 1)
		return fmt.Sprintf("data take no prior in their declaration: a model of the data is a statement of its own, %s ~ %s, after %s", toks[j+1].Value, render(toks[i+1:end]), render(toks[j:i]))
	case kw && first.Value == "output" && (i == j+3 && tok.Type != tokIdent && i < end || i == j+4 && toks[j+3].Type == tokIdent && tok.Value != "(") &&
		toks[j+1].Type == tokIdent && toks[j+2].Value == "~":
		// output diff ~ mu[1] - mu[0], failing at the right side's first
		// token or at the one after a name that is not called; an error
		// inside output y_rep ~ Normal(mu, ...) is no such habit
		return fmt.Sprintf("~ draws from a distribution (output y_rep ~ Normal(mu, sigma)) and = computes a value: output %s = %s", toks[j+1].Value, render(toks[j+3:end]))
	case !kw || first.Value == "output":
		return formulaHint(toks, j, i, end)
	}
	return ""
}

// formulaHint returns the hint at an R model formula on the right of ~
// (rt ~ cond + (1|subj)), whose error comes at its second token (a name
// not called) or its first (a number or a parenthesis), or "".
func formulaHint(toks []lexer.Token, j, i, end int) string {
	k := -1
	depth := 0
	for m := j; m < i; m++ {
		switch toks[m].Value {
		case "(", "[":
			depth++
		case ")", "]":
			depth--
		case "~":
			if depth == 0 {
				k = m
			}
		}
	}
	op := strings.Contains(" + - * / : ^ ", " "+toks[i].Value+" ")
	if k < 0 || !(i == k+2 && toks[k+1].Type == tokIdent && op || i == k+1 && (toks[i].Type == tokNumber && i+1 < end && strings.Contains(" + - * ", " "+toks[i+1].Value+" ") || toks[i].Value == "(")) {
		return ""
	}
	y := render(toks[j:k])
	x := "x"
	for m := k + 1; m < end; m++ {
		if toks[m].Type == tokIdent && toks[m+1].Value != "(" && toks[m-1].Value != "|" {
			x = toks[m].Value
			break
		}
	}
	mean := "b0 + b1 * " + x
	group := ""
	for m := k; m+1 < end; m++ {
		if toks[m].Value == "|" && toks[m+1].Type == tokIdent {
			group = toks[m+1].Value
		}
	}
	if group != "" {
		mean += " + u[" + group + "]"
	}
	h := fmt.Sprintf("gpp has no model formulas: the right side of ~ is a distribution, e.g. %s ~ Normal(%s, sigma), with b0, b1 and sigma declared as params with their priors", y, mean)
	if group != "" {
		h += fmt.Sprintf(", and lme4's (1 | %s) a varying intercept, param u: real[J] ~ Normal(0, tau)", group)
	}
	return h + " (examples/varying.gpp; docs/pymc.md, section 4)"
}

// topLevel reports whether token i is outside every bracket opened since
// token j.
func topLevel(toks []lexer.Token, j, i int) bool {
	depth := 0
	for m := j; m < i; m++ {
		switch toks[m].Value {
		case "(", "[", "<":
			depth++
		case ")", "]", ">":
			depth--
		}
	}
	return depth == 0
}
