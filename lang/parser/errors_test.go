package parser

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// errorStrings formats a parse error as "line:col: message" lines.
func errorStrings(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var list ast.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v is a %T, want ast.ErrorList", err, err)
	}
	var out []string
	for _, e := range list {
		out = append(out, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg))
	}
	return out
}

// checkErrorPositions reports an error positioned outside src: every error
// must be on one of its lines, at a column from 1 to just past the line's
// last byte, and carry the file name.
func checkErrorPositions(t *testing.T, filename, src string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var list ast.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v is a %T, want ast.ErrorList", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("empty error list returned as an error")
	}
	lines := strings.Split(src, "\n")
	for _, e := range list {
		p := e.Pos
		if p.File != filename || p.Line < 1 || p.Line > len(lines) || p.Col < 1 || p.Col > len(lines[p.Line-1])+1 {
			t.Errorf("error %q positioned outside the input %q", e, src)
		}
	}
}

// syntaxErrorTests are inputs with the errors ParseFile reports, as
// "line:col: message".
var syntaxErrorTests = []struct {
	src  string
	want []string
}{
	// Unterminated brackets.
	{"y ~ Normal(0, 1", []string{`1:16: expected ")" after "1", found end of file; the "(" at 1:11 is not closed`}},
	{"y ~ Normal(0, 1\n", []string{`1:16: expected ")" after "1", found end of file; the "(" at 1:11 is not closed`}},
	{"y ~ Normal(0, 1\nparam s: real", []string{`1:16: expected ")" after "1", found newline; the "(" at 1:11 is not closed`}},
	{"let a = (1 + 2", []string{`1:15: expected ")" after "2", found end of file; the "(" at 1:9 is not closed`}},
	{"let a = x[0", []string{`1:12: expected "]" after "0", found end of file; the "[" at 1:10 is not closed`}},
	{"for i in 0:N { let a = 1", []string{`1:25: expected "}", found end of file`}},
	{"for i in 0:N {\n", []string{`1:15: expected "}" after "{", found end of file`}},
	// An lme4 formula: the name after ~ is not called, and its | is not gpp's.
	{"rt ~ cond + (1|subj)", []string{
		`1:11: expected "(" after "cond", found "+"; gpp has no model formulas: the right side of ~ is a distribution, e.g. rt ~ Normal(b0 + b1 * cond + u[subj], sigma), with b0, b1 and sigma declared as params with their priors, and lme4's (1 | subj) a varying intercept, param u: real[J] ~ Normal(0, tau) (examples/varying.gpp; docs/pymc.md, section 4)`,
		`1:15: invalid character '|' (gpp has no model formulas: lme4's (1 | g) is a varying intercept, param u: real[J] ~ Normal(0, tau), added to the mean of the distribution as u[g]; logical or is ||)`,
	}},
	// Missing or malformed distributions.
	{"x ~", []string{`1:4: expected a distribution after "~", found end of file`}},
	{"x ~ 3", []string{`1:5: expected a distribution after "~", found "3"`}},
	{"x ~ Normal\n", []string{`1:11: expected "(" after "Normal", found newline`}},
	{"x\n", []string{`1:2: expected "~" after "x", found newline`}},
	{"x + 1", []string{`1:6: expected "~" after "1", found end of file`}},
	// Declarations.
	{"param x\n", []string{`1:8: expected ":" after "x", found newline`}},
	{"param x:\n", []string{`1:9: expected a type after ":", found end of file`}}, // ":" cannot end a line; shown where the type belongs
	{"param x # no type\n", []string{`1:8: expected ":" after "x", found newline`}},
	{"param x: foo", []string{`1:10: expected a type after ":", found "foo"; a type is one of int, real, positive, unit, simplex, ordered, positive_ordered, sum_to_zero_vector, sum_to_zero_matrix, cov_matrix, corr_matrix, cholesky_factor_cov or cholesky_factor_corr, with bounds <lower=L, upper=U> and a shape [N, ...] after it`}},
	{"data x: int<size=3>", []string{`1:13: expected "lower" or "upper" after "<", found "size"`}},
	{"data x: int<lower=0, lower=1>", []string{`1:22: duplicate lower bound`}},
	{"data x: int[]", []string{`1:13: expected an expression after "[", found "]"`}},
	{"const K 3", []string{`1:9: expected "=" after "K", found "3"`}},
	// Keywords are reserved.
	{"param for: real", []string{"1:7: expected a name after \"param\", found keyword \"for\"; `for` is a keyword of the language, so it cannot be a name: choose another"}},
	{"let in = 3", []string{"1:5: expected a name after \"let\", found keyword \"in\"; `in` is a keyword of the language, so it cannot be a name: choose another"}},
	{"data data: int", []string{"1:6: expected a name after \"data\", found keyword \"data\"; `data` is a keyword of the language, so it cannot name data: give the data another name and bind the column to it on the command line (data2=FILE.csv:data)"}},
	{"data unit: int[N]", []string{"1:6: expected a name after \"data\", found keyword \"unit\"; `unit` is a keyword of the language, so it cannot name data: give the data another name and bind the column to it on the command line (unit2=FILE.csv:unit)"}},
	{"let a = real", []string{`1:9: expected an expression after "=", found keyword "real"`}},
	// Bad numbers and characters.
	{"const K = 1e", []string{`1:11: malformed number "1e"`}},
	{"let a = 3.", []string{`1:9: malformed number "3."`}},
	{"let a = 1.5.3", []string{`1:9: malformed number "1.5.3"`}},
	{"let a = 2x", []string{`1:9: malformed number "2x"`}},
	{"let a = 1e999", []string{`1:9: number 1e999 is out of range`}},
	{"let a = x $ y", []string{`1:11: invalid character '$'`}},
	{"let a = x.y", []string{`1:10: invalid character '.'`}},
	{"é = 3", []string{`1:1: invalid character 'é' (names are ASCII letters, digits and _, as Stan's: write it as one, and bind a data column of the other name as NAME=FILE.csv:COLUMN)`}},
	{"data θ: real", []string{`1:6: invalid character 'θ' (names are ASCII letters, digits and _, as Stan's: write it as one, and bind a data column of the other name as NAME=FILE.csv:COLUMN)`}},
	{"let a = \x00", []string{`1:9: the file is not text (a NUL byte here); a model is a UTF-8 text file`}},
	{"let a = 1\n  b\x00c", []string{`2:4: the file is not text (a NUL byte here); a model is a UTF-8 text file`}},
	{"let a = \xff", []string{`1:9: invalid UTF-8 byte 0xff`}},
	// Stan's syntax, pointed to gpp's.
	{"model {\n  y ~ normal(0, 1);\n}\n", []string{"1:1: `model { ... }` is a Stan block; gpp has none: declare data, param, let and output statements, and write the model's statements at the top level (docs/language.md)"}},
	{"functions {\n  real f(real x) { return x; }\n}\n", []string{"1:1: `functions { ... }` is a Stan block; gpp has none: declare each function at the top level, fn NAME(A, B) = EXPR or fn NAME(A, B) { let ...; return EXPR }, without types (docs/language.md)"}},
	{"param m: real\ngenerated quantities {\n}\n", []string{"2:1: `generated quantities { ... }` is a Stan block; gpp has none: declare data, param, let and output statements, and write the model's statements at the top level (docs/language.md)"}},
	{"fn lap_lpdf(y, m, b) = -abs(y - m) / b\ntarget += sum(lap_lpdf(y[0] | m, 1))", []string{"2:29: invalid character '|' (the user function lap_lpdf is called with commas, as lap_lpdf(y, mu); logical or is ||)"}},
	{"target += sum(lap_lpdf(y[0] | m, 1))", []string{"1:29: invalid character '|' (gpp writes Stan's normal_lpdf(y | mu, s) as logpdf(y, Normal(mu, s)), and normal_lccdf(y | mu, s) as logccdf(y, Normal(mu, s)); logical or is ||)"}},
	{"target += normal_lpdf(y | m, 1)", []string{"1:25: invalid character '|' (gpp writes Stan's normal_lpdf(y | mu, s) as logpdf(y, Normal(mu, s)), and normal_lccdf(y | mu, s) as logccdf(y, Normal(mu, s)); logical or is ||)"}},
	{"let r = a ./ b", []string{"1:11: invalid character '.' (gpp's / is elementwise already: Stan's a ./ b is a / b)"}},
	{"let r = a .^ 2", []string{"1:11: invalid character '.' (gpp's ^ is elementwise already: Stan's x .^ 2 is x ^ 2)"}},
	// scipy's and PyTorch's density methods, a criminologist's trial
	{"target += sum(NegBinomialLog(mu, phi).logpdf(y))", []string{"1:38: invalid character '.' (gpp has no methods: it writes NegBinomialLog(mu, phi).logpdf(y) as logpdf(y, NegBinomialLog(mu, phi)))"}},
	{"target += Normal(m, (s + 1)).log_prob(y[0:2])", []string{"1:29: invalid character '.' (gpp has no methods: it writes Normal(m, (s + 1)).log_prob(y[0:2]) as logpdf(y[0:2], Normal(m, (s + 1))))"}},
	{"output p = d.cdf(3)", []string{"1:13: invalid character '.' (gpp has no methods: it writes d.cdf(3) as exp(logcdf(3, d)))"}},
	{"target += a.b(y)", []string{"1:12: invalid character '.'"}},
	{"target += Normal(m, s).logpdf(y", []string{"1:23: invalid character '.'"}},
	{"let r = c ? a : b", []string{"1:11: invalid character '?' (gpp has no conditional expressions: write an if statement on the data, if COND { ... } else { ... })"}},
	{"for (i in 1:N) {\n  m[i] ~ Normal(0, 1)\n}\n", []string{"1:5: expected a name after \"for\", found \"(\"; gpp writes Stan's for (i in 1:N) as for i in 0:N { ... }, without parentheses: a range counts from 0 and stops before its end"}},
	{"param x: vector[N]", []string{"1:10: expected a type after \":\", found \"vector\"; a vector is real[N] (or positive[N], unit[N], ...)"}},
	{"real<lower=0> sigma;", []string{"1:1: unexpected keyword \"real\"; a declaration starts with its kind, data or param, and gives the type after the name: Stan's real<lower=0> sigma; is param sigma: real<lower=0>, and vector[N] y; is data y: real[N]"}},
	{"data y: real[N]\nvector[N] x;", []string{"2:11: expected \"~\" after \"]\", found \"x\"; a declaration starts with its kind, data or param, and gives the type after the name: Stan's real<lower=0> sigma; is param sigma: real<lower=0>, and vector[N] y; is data y: real[N]"}},
	{"array[N] int y;", []string{"1:10: expected \"~\" after \"]\", found keyword \"int\"; a declaration starts with its kind, data or param, and gives the type after the name: Stan's real<lower=0> sigma; is param sigma: real<lower=0>, and vector[N] y; is data y: real[N]"}},
	{"x[3] ~ Normal(0, 1) y", []string{`1:21: expected newline or ";" after ")", found "y"`}},
	{"print(mu);", []string{`1:10: expected "~" after ")", found ";"; gpp has no print, reject or fatal_error: output NAME = EXPR reports a value at every draw, and gpp repl evaluates expressions on a fit; a value outside its domain stops the fit with an error that names it`}},
	{"fatal_error(mu);", []string{`1:16: expected "~" after ")", found ";"; gpp has no print, reject or fatal_error: output NAME = EXPR reports a value at every draw, and gpp repl evaluates expressions on a fit; a value outside its domain stops the fit with an error that names it`}},
	{"output lp = target()", []string{`1:13: expected an expression after "=", found keyword "target"; gpp has no target() or get_lp(): the log density is not a value a model reads; gpp fit reports the ELBO, and output log_lik = logpdf(y, ...) gives each observation's term`}},
	{"reject(\"bad\")", []string{`1:8: a string (gpp has no strings: Stan's print, reject and fatal_error have no counterpart; output NAME = EXPR reports a value at every draw)`}},
	{"print(\"mu = \", mu)\nlet a = \"x", []string{`1:7: a string (gpp has no strings: Stan's print, reject and fatal_error have no counterpart; output NAME = EXPR reports a value at every draw)`,
		`2:9: invalid character '"' (gpp has no strings: Stan's print, reject and fatal_error have no counterpart; output NAME = EXPR reports a value at every draw)`}},
	{"param u: unit_vector[K]", []string{"1:10: expected a type after \":\", found \"unit_vector\"; gpp has no unit_vector type"}},
	{"y ~ StudentT(nu=nu, mu=m, sigma=s)", []string{"1:16: expected \")\" after \"nu\", found \"=\"; gpp has no keyword arguments: StudentT takes its arguments by position, in the order gpp help StudentT lists, as Stan's calls do (PyMC's nu=... is not written)"}},
	{"y ~ Normal(f(a, b[0]), sigma = 1)", []string{"1:30: expected \")\" after \"sigma\", found \"=\"; gpp has no keyword arguments: Normal takes its arguments by position, in the order gpp help Normal lists, as Stan's calls do (PyMC's sigma=... is not written)"}},
	{"let m = (a, b = 1)", []string{"1:11: expected \")\" after \"a\", found \",\""}},
	{"lp += m", []string{"1:4: expected \"~\" after \"lp\", found \"+=\"; gpp has no assignment: a name is defined once, by let NAME = ..., and target += adds to the log density"}},
	// In a loop's body, with a lexical error in the loop (which keeps the
	// loop from being parsed statement by statement), as Stan's change
	// point accumulates its log probabilities.
	{"for s in 0:N {\n  for t in 0:N {\n    lp[s] += c ? e : l\n  }\n}", []string{
		"3:11: expected \"~\" after \"]\", found \"+=\"; gpp has no assignment: a name is defined once, by let NAME = ..., and target += adds to the log density",
		"3:16: invalid character '?' (gpp has no conditional expressions: write an if statement on the data, if COND { ... } else { ... })"}},
	{"let z = a & b", []string{"1:11: invalid character '&' (logical and is &&)"}},
	// R's and Python's int operators: Stan's % and %/% in gpp.
	{"let z = n %% 2", []string{"1:11: invalid operator '%%' (the modulus of ints is %, Stan's, with the sign of a: R's a %% b, with the sign of b, is a % b for a >= 0 and b > 0; fmod(a, b) of reals)"}},
	{"let z = n // 2", []string{"1:11: invalid operator '//' (the division of ints is %/%, Stan's, truncated toward 0: Python's a // b, which floors, is a %/% b for a, b >= 0; comments start with #)"}},
	{"let z = n %/ 2", []string{"1:12: expected an expression after \"%\", found \"/\""}},
	// Python's habits: each ** and each dotted module prefix is one error.
	{"let K = eta**2 + s**2", []string{
		"1:12: invalid operator '**' (gpp's power is ^: Python's eta**2 is eta^2, or square(eta))",
		"1:19: invalid operator '**' (gpp's power is ^: Python's eta**2 is eta^2, or square(eta))"}},
	{"target += np.log(pt.sum(x))", []string{
		"1:13: np.log is log in gpp: its functions have no module prefix (gpp help lists them)",
		"1:20: pt.sum is sum in gpp: its functions have no module prefix (gpp help lists them)"}},
	// Comparisons and if.
	{"let z = a < b < c", []string{`1:15: expected newline or ";" after "b", found "<"`}},
	{"let z = a == b != c", []string{`1:16: expected newline or ";" after "b", found "!="`}},
	{"let z = a <", []string{`1:12: expected an expression after "<", found end of file`}},
	{"let z = !", []string{`1:10: expected an expression after "!", found end of file`}},
	{"if x == 0 { target += 1 }\nelse if { }", []string{`2:9: expected an expression after "if", found "{"`}},
	{"if x == 0 target += 1", []string{`1:11: expected "{" after "0", found keyword "target"`}},
	{"if x == 0 { target += 1 }; else { }", []string{`1:28: unexpected keyword "else"; an else follows the "}" of its if: if COND { ... } else { ... }`}},
	{"if x {\n  data d: int\n} else {\n  param p: real\n}", []string{
		"2:3: a data declaration is only allowed at the top level, not in an if body",
		"4:3: a param declaration is only allowed at the top level, not in an if body"}},
	{"data x: int<lower=0>\nif x {\n  target += 1 +\n}", []string{`4:1: expected an expression after "+", found "}"`}},
	{"target += logpdf(y, Normal(m, 1)) T[0, ]", []string{"1:35: expected newline or \";\" after \")\", found \"T\"; T[L, U] truncates the distribution of a ~ statement on data (y ~ Normal(mu, s) T[0, ]); elsewhere subtract the log mass by hand with logcdf or logccdf"}},
	// Functions.
	{"fn f(x)", []string{`1:8: expected "=" or "{" after ")", found end of file`}},
	{"fn f(x, ) = x", []string{`1:9: expected a name after ",", found ")"`}},
	{"fn f(x) {\n  let u = x\n}", []string{`3:1: expected "return", found "}"; a function's block holds lets and then one return: fn f(x) { let u = ...; return EXPR }`}},
	{"fn f(x) {\n  let u = x\n  u\n}", []string{`3:3: expected "return", found "u"; a function's block holds lets and then one return: fn f(x) { let u = ...; return EXPR }`}},
	{"real f(real x) {\n  return 2 * x;\n}", []string{`1:1: unexpected keyword "real"; a Stan function is declared in gpp without types or a functions block: fn f(x, y) = EXPR, or fn f(x) { let u = ...; return EXPR }`}},
	{"vector g(vector x, real s) { return x / s; }", []string{`1:8: expected "~" after "vector", found "g"; a Stan function is declared in gpp without types or a functions block: fn f(x, y) = EXPR, or fn f(x) { let u = ...; return EXPR }`}},
	{"fn f(x) { target += x }", []string{`1:11: expected "return" after "{", found keyword "target"; a function's block holds lets and then one return: fn f(x) { let u = ...; return EXPR }`}},
	{"fn f(x) { return x; let u = 1 }", []string{`1:21: expected "}", found keyword "let"; a function's block holds lets and then one return: fn f(x) { let u = ...; return EXPR }`}},
	{"fn f(x) {\n  let u = x\n  return u\n  return x\n}", []string{`4:3: expected "}", found keyword "return"; a function's block holds lets and then one return: fn f(x) { let u = ...; return EXPR }`}},
	{"for i in 0:N {\n  fn f(x) = x\n}", []string{"2:3: a function declaration is only allowed at the top level, not in a for body"}},
	{"let fn = 3", []string{"1:5: expected a name after \"let\", found keyword \"fn\"; `fn` is a keyword of the language, so it cannot be a name: choose another"}},
	{"return 3", []string{`1:1: unexpected keyword "return"; return ends the block of a function, fn NAME(A, B) { let ...; return EXPR }; a model's statements return nothing`}},
	{"fn f(real x) = x", []string{`1:6: expected ")" after "(", found keyword "real"; a function's parameters have no types in gpp (each call is checked with its arguments' shapes): fn f(x, y) = EXPR`}},
	{"fn f(a, vector x) = x", []string{`1:16: expected ")" after "vector", found "x"; a function's parameters have no types in gpp (each call is checked with its arguments' shapes): fn f(x, y) = EXPR`}},
	// A run of invalid characters is one error.
	{"let a = x @@@ y", []string{`1:11: invalid character '@' (gpp's matrix product is *: Python's x @ b is x * b, and .* multiplies elementwise) (and 2 more after it)`}},
	{"let a = \u201cm\u201d", []string{`1:9: invalid character '“'`, `1:13: invalid character '”'`}},
	{"let a = x $\xff\u00e9.y", []string{`1:11: invalid character '$' (and 3 more after it)`}},
	{"let a = x $.5", []string{`1:11: invalid character '$'`}},
	{"\xff\xfep\x00a\x00r\x00a\x00m\x00 \x00x\x00", []string{`1:1: the file is UTF-16 encoded; save it as UTF-8`}},
	{"\x00p\x00a\x00r\x00a\x00m\x00 \x00x", []string{`1:1: the file is UTF-16 encoded; save it as UTF-8`}},
	{"\xff\xfe\x00\x00p\x00\x00\x00", []string{`1:1: the file is UTF-32 encoded; save it as UTF-8`}},
	// Stray tokens.
	{"}", []string{`1:1: unexpected "}"`}},
	{")", []string{`1:1: unexpected ")"`}},
	// A line starting with an infix operator (Stan's and Python's habit) is a
	// new statement, at the top level and in a body alike; after ";" it is
	// no continuation.
	{"let a = x\n  + y", []string{`2:3: unexpected "+"; a statement ends at the end of its line, so this "+" starts a new one: end the line before with the operator to continue the expression (a + b * on one line, x on the next), or wrap the expression in parentheses, as a line break inside brackets continues it`}},
	{"for i in 0:N {\n  let a = x\n    * y\n}", []string{`3:5: unexpected "*"; a statement ends at the end of its line, so this "*" starts a new one: end the line before with the operator to continue the expression (a + b * on one line, x on the next), or wrap the expression in parentheses, as a line break inside brackets continues it`}},
	{"y\n  ~ Normal(0, 1)", []string{`1:2: expected "~" after "y", found newline`, `2:3: unexpected "~"; a statement ends at the end of its line, so this "~" starts a new one: end the line before with the operator to continue the expression (a + b * on one line, x on the next), or wrap the expression in parentheses, as a line break inside brackets continues it`}},
	{"let a = x; + y", []string{`1:12: unexpected "+"`}},
	{"let a = x\n  ) + y", []string{`2:3: unexpected ")"`}},
	{"x ~ N(0, 1) y ~ N(0, 1)", []string{`1:13: expected newline or ";" after ")", found "y"`}},
	{"let a = f(x)(y)", []string{`1:13: expected newline or ";" after ")", found "("`}},
	{"let a = x'y", []string{`1:11: expected newline or ";" after "'", found "y"`}},
	{"let a = 'x", []string{`1:9: expected an expression after "=", found "'"`}},
	{"let a = 1 ++ 2", []string{`1:12: expected an expression after "+", found "+"`}},
	// Expressions cut short.
	{"let y = a + )", []string{`1:13: expected an expression after "+", found ")"`}},
	{"let y = a +", []string{`1:12: expected an expression after "+", found end of file`}},
	{"let y = a +\nlet z = 1", []string{`1:12: expected an expression after "+", found newline`}},
	{"let a = x ^", []string{`1:12: expected an expression after "^", found end of file`}},
	{"let a = f(a b)", []string{`1:13: expected ")" after "a", found "b"`}},
	{"let a = f(a,)", []string{`1:13: expected an expression after ",", found ")"`}},
	{"let a = x[]", []string{`1:11: expected an index after "[", found "]"`}},
	// Vector literals: at least one element, no trailing comma (as in calls).
	{"let a = []", []string{"1:10: expected an expression after \"[\", found \"]\"; a literal has at least one element: `[]` is no vector, nor an empty row of a matrix literal"}},
	{"let a = [1, 2,]", []string{`1:15: expected an expression after ",", found "]"; a literal takes no trailing comma`}},
	{"let a = [1 2]", []string{`1:12: expected "]" after "1", found "2"`}},
	{"let a = [1, 2", []string{`1:14: expected "]" after "2", found end of file; the "[" at 1:9 is not closed`}},
	{"let a = [1,\nlet b = 2", []string{`1:12: expected an expression after ",", found newline`}},
	{"let a = [1:2]", []string{`1:11: expected "]" after "1", found ":"`}},
	{"let a = x;; let b = y +; let c = 1", []string{`1:24: expected an expression after "+", found ";"`}},
	// Other statements.
	{"target = x", []string{`1:8: expected "+=" or "-=" after "target", found "="`}},
	{"output\n", []string{`1:7: expected a name after "output", found newline`}},
	{"for i 0:N {}", []string{`1:7: expected "in" after "i", found "0"`}},
	{"for i in 0:N\n{\n}", []string{`1:13: expected "{" after "N", found newline`, `2:1: unexpected "{"`}},
	{"for i in 0:N { x ~ }", []string{`1:20: expected a distribution after "~", found "}"`}},
	{"for i in 0:N {\n  data z: real\n  output q\n}", []string{
		`2:3: a data declaration is only allowed at the top level, not in a for body`,
		`3:3: an output statement is only allowed at the top level, not in a for body; an output is a whole value, defined once at the top level: write output q = EXPR there for all its elements at once (Stan's q[n] = normal_lpdf(y[n] | ...) in a loop is output q = logpdf(y, Normal(...)), elementwise over y)`,
	}},
	// Several independent errors in one file.
	{"param x\nlet y = $ + 3\nlet z = 1e\nlet q = x[]\ny ~ Normal(0, 1)\nparam s: real ~", []string{
		`1:8: expected ":" after "x", found newline`,
		`2:9: invalid character '$'`,
		`3:9: malformed number "1e"`,
		`4:11: expected an index after "[", found "]"`,
		`6:16: expected a distribution after "~", found end of file`,
	}},
	{"for i in 0:N {\n  x ~\n  let = 3\n  y[i] ~ Normal(0, )\n}\nfor j in : {}", []string{
		`2:6: expected a distribution after "~", found newline`,
		`3:7: expected a name after "let", found "="`,
		`4:20: expected an expression after ",", found ")"`,
		`6:10: expected an expression after "in", found ":"`,
	}},
	// Recursion limits.
	{"let a = " + strings.Repeat("(", maxNesting+1) + "x", []string{
		"1:" + strconv.Itoa(9+maxNesting) + ": brackets nested too deeply (more than 500)",
	}},
	// Every operator counts toward maxChain, not only "-" and "^": a long
	// + or * chain overflowed the checker's stack. The error is at the
	// first operator past the limit.
	{"let a = " + strings.Repeat("1+", maxChain+5) + "1", []string{
		"1:" + strconv.Itoa(8+2*maxChain+2) + ": statement too long (more than 2000 operators); split it with let",
	}},
	{"let a = " + strings.Repeat("1*", maxChain) + "1\nlet b = " + strings.Repeat("1/", maxChain) + "1", nil},
	{"let a = 1 || " + strings.Repeat("x && ", maxChain), []string{
		"1:" + strconv.Itoa(14+5*(maxChain-1)+2) + ": statement too long (more than 2000 operators); split it with let",
	}},
	{"let a = x" + strings.Repeat("[1]", maxChain+1), []string{
		"1:" + strconv.Itoa(10+3*maxChain) + ": statement too long (more than 2000 operators); split it with let",
	}},
	{"let a = x" + strings.Repeat("'", maxChain+1), []string{
		"1:" + strconv.Itoa(10+maxChain) + ": statement too long (more than 2000 operators); split it with let",
	}},
	{"let a = " + strings.Repeat("!", maxChain+1) + "x", []string{
		"1:" + strconv.Itoa(9+maxChain) + ": statement too long (more than 2000 operators); split it with let",
	}},
	// A chain split over lines inside brackets is one statement.
	{"let a = (" + strings.Repeat("1 +\n", maxChain+1) + "1)", []string{
		strconv.Itoa(maxChain+1) + ":3: statement too long (more than 2000 operators); split it with let",
	}},
	// The elements of a list are siblings, not one chain: a vector literal
	// of more negative numbers than maxChain is no error, but a chain
	// inside an element adds to the chain around the list.
	{"let a = [" + strings.Repeat("-1, ", maxChain+1) + "-1]", nil},
	{"let a = f(" + strings.Repeat("1+", maxChain-1) + "1, -1) + 1 + 1", []string{
		"1:" + strconv.Itoa(10+2*(maxChain-1)+6+6) + ": statement too long (more than 2000 operators); split it with let",
	}},
	// The count starts afresh in each statement of a body.
	{"for i in 1:3 {\n  let a = " + strings.Repeat("1+", maxChain) + "1\n  let b = " + strings.Repeat("1+", maxChain) + "1\n}", nil},
	{"if N > 1 { let a = " + strings.Repeat("1+", maxChain) + "1 } else { let b = " + strings.Repeat("1+", maxChain) + "1 }", nil},
	// Each else-if nests the rest of the if: a chain of them is bounded
	// too, counted per if, so separate ifs (and those in bodies) each get
	// maxChain. The error is at the first "else" past the limit.
	{"if N > 1 {}" + strings.Repeat(" else if N > 1 {}", maxChain+1) + " else {}", []string{
		"1:" + strconv.Itoa(11+17*maxChain+2) + ": if statement too long (more than 2000 else-ifs); look the value up by index in a data vector, or split the cases over several if statements",
	}},
	{"if N > 1 {}" + strings.Repeat(" else if N > 1 {}", maxChain) + "\nif N > 1 {}" + strings.Repeat(" else if N > 1 {}", maxChain) +
		"\nfor i in 1:3 {\n  if N > 1 {}" + strings.Repeat(" else if N > 1 {}", maxChain) + "\n  if N > 1 {}" + strings.Repeat(" else if N > 1 {}", maxChain) + "\n}", nil},
	{"if N > 1 {" + strings.Repeat("if N > 1 {} else if N > 1 {}\n", maxChain+1) + "}", nil},
	// A body's statements end the body's count, not the chain's.
	{"if N > 1 {\n  let a = 1\n}" + strings.Repeat(" else if N > 1 {\n  let a = 1\n}", maxChain+1), []string{
		strconv.Itoa(1+2*(maxChain+1)) + ":3: if statement too long (more than 2000 else-ifs); look the value up by index in a data vector, or split the cases over several if statements",
	}},
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range syntaxErrorTests {
		_, err := ParseFile("", []byte(tc.src))
		got := errorStrings(t, err)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("ParseFile(%q) errors:\n got %q\nwant %q", tc.src, got, tc.want)
		}
		checkErrorPositions(t, "", tc.src, err)
	}
}

func TestErrorFileName(t *testing.T) {
	_, err := ParseFile("model.gpp", []byte("data N: int\nparam x\n"))
	want := `model.gpp:2:8: expected ":" after "x", found newline`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	checkErrorPositions(t, "model.gpp", "data N: int\nparam x\n", err)
}

func TestParseExprErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", `1:1: expected an expression, found end of file`},
		{"a +", `1:4: expected an expression after "+", found end of file`},
		{"a ~ b", `1:3: unexpected "~"`},
		{"a\nb", `2:1: unexpected "b"`},
		{"f(", `1:3: expected ")" after "(", found end of file`},
		{"x[1:2:3]", `1:6: expected "]" after "2", found ":"`},
		{"1e+", `1:1: malformed number "1e+"`},
	} {
		_, err := ParseExpr(tc.src)
		got := strings.Join(errorStrings(t, err), "\n")
		if got != tc.want {
			t.Errorf("ParseExpr(%q): got %q, want %q", tc.src, got, tc.want)
		}
		checkErrorPositions(t, "", tc.src, err)
	}
}

// TestErrorsFile checks testdata/errors.gpp: chunks separated by "---" lines,
// in which a line ending with `### COL: MESSAGE` expects that error on that
// line (the marker is a comment, invisible to the parser).
func TestErrorsFile(t *testing.T) {
	data, err := os.ReadFile("testdata/errors.gpp")
	if err != nil {
		t.Fatal(err)
	}
	marker := regexp.MustCompile(`### (\d+): (.*)$`)
	chunks := regexp.MustCompile(`(?m)^---\n`).Split(string(data), -1)
	line0 := 0
	for _, chunk := range chunks {
		var want []string
		for i, line := range strings.Split(chunk, "\n") {
			if m := marker.FindStringSubmatch(line); m != nil {
				want = append(want, fmt.Sprintf("%d:%s: %s", i+1, m[1], m[2]))
			}
		}
		_, err := ParseFile("errors.gpp", []byte(chunk))
		got := errorStrings(t, err)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("chunk at line %d of testdata/errors.gpp:\n got %q\nwant %q", line0+1, got, want)
		}
		checkErrorPositions(t, "errors.gpp", chunk, err)
		line0 += strings.Count(chunk, "\n") + 1
	}
}

// TestTooManyErrors checks that a parse gives up after ast.MaxErrors errors with
// one more saying where, so that a data file or a long line of junk given as
// the model prints a screenful, not one error per line or per character.
func TestTooManyErrors(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("x,y\n")
	for i := range 5000 {
		fmt.Fprintf(&csv, "%d.5,%d\n", i, i)
	}
	junk := strings.Repeat("@a", 1000) + "\n"
	body := "for i in 0:3 {\n" + strings.Repeat("  x +\n  ~ 1\n", 100) + "}\n"
	for _, tc := range []struct {
		name, src string
		stop      string // the position of the last error
	}{
		{"csv", csv.String(), "21:1"},
		{"junk", junk, "1:41"},
		{"for body", body, "42:3"},
	} {
		_, err := ParseFile("m.gpp", []byte(tc.src))
		got := errorStrings(t, err)
		if len(got) != ast.MaxErrors+1 {
			t.Errorf("%s: %d errors, want %d", tc.name, len(got), ast.MaxErrors+1)
			continue
		}
		if want := tc.stop + ": too many errors; the file was not read beyond here"; got[ast.MaxErrors] != want {
			t.Errorf("%s: last error %q, want %q", tc.name, got[ast.MaxErrors], want)
		}
		checkErrorPositions(t, "m.gpp", tc.src, err)
	}
}
