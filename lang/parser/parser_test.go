package parser

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// exprTests are ParseExpr inputs and their trees; FuzzParse starts from
// them too.
var exprTests = []struct{ src, want string }{
	// Atoms.
	{`x`, `(ident x)`},
	{`_a1`, `(ident _a1)`},
	{`lower`, `(ident lower)`}, // lower and upper are not reserved
	{`3`, `(int 3)`},
	{`007`, `(int 007)`},
	{`3.0`, `(real 3.0)`},
	{`.5`, `(real .5)`},
	{`1e-3`, `(real 1e-3)`},
	{`2.5E+4`, `(real 2.5E+4)`},
	{`1e5`, `(real 1e5)`},
	{`(x)`, `(paren (ident x))`},
	{`((x))`, `(paren (paren (ident x)))`},

	// Precedence and associativity.
	{`a + b * c`, `(binary + (ident a) (binary * (ident b) (ident c)))`},
	{`a * b + c`, `(binary + (binary * (ident a) (ident b)) (ident c))`},
	{`a - b - c`, `(binary - (binary - (ident a) (ident b)) (ident c))`},
	{`a-b-c`, `(binary - (binary - (ident a) (ident b)) (ident c))`},
	{`a / b / c`, `(binary / (binary / (ident a) (ident b)) (ident c))`},
	{`a * b .* c / d`, `(binary / (binary .* (binary * (ident a) (ident b)) (ident c)) (ident d))`},
	{`a - (b - c)`, `(binary - (ident a) (paren (binary - (ident b) (ident c))))`},
	{`2^3^2`, `(binary ^ (int 2) (binary ^ (int 3) (int 2)))`},
	{`a * b ^ c`, `(binary * (ident a) (binary ^ (ident b) (ident c)))`},
	{`a ^ b * c`, `(binary * (binary ^ (ident a) (ident b)) (ident c))`},
	{`(a + b) * c`, `(binary * (paren (binary + (ident a) (ident b))) (ident c))`},
	{`g0 / K`, `(binary / (ident g0) (ident K))`},
	{`3.*x`, `(binary .* (int 3) (ident x))`}, // 3. is not a number
	{`3.0.*x`, `(binary .* (real 3.0) (ident x))`},
	// Stan's int % and %/%: at *'s level, left-associative, unary minus
	// and ^ tighter.
	{`t % 7`, `(binary % (ident t) (int 7))`},
	{`t%/%7`, `(binary %/% (ident t) (int 7))`},
	{`a % b % c`, `(binary % (binary % (ident a) (ident b)) (ident c))`},
	{`a %/% b % c`, `(binary % (binary %/% (ident a) (ident b)) (ident c))`},
	{`a * b % c / d`, `(binary / (binary % (binary * (ident a) (ident b)) (ident c)) (ident d))`},
	{`a + b %/% c`, `(binary + (ident a) (binary %/% (ident b) (ident c)))`},
	{`a % b - c`, `(binary - (binary % (ident a) (ident b)) (ident c))`},
	{`-a % b ^ 2`, `(binary % (unary - (ident a)) (binary ^ (ident b) (int 2)))`},
	{`a %/% -b`, `(binary %/% (ident a) (unary - (ident b)))`},
	{`t % 7 == 0`, `(binary == (binary % (ident t) (int 7)) (int 0))`},
	{`s[t % 7]`, `(index (ident s) (binary % (ident t) (int 7)))`},

	// Unary minus: looser than ^, tighter than * and /.
	{`-x`, `(unary - (ident x))`},
	{`-x^2`, `(unary - (binary ^ (ident x) (int 2)))`},
	{`-a*b`, `(binary * (unary - (ident a)) (ident b))`},
	{`a*-b`, `(binary * (ident a) (unary - (ident b)))`},
	{`a - -b`, `(binary - (ident a) (unary - (ident b)))`},
	{`--x`, `(unary - (unary - (ident x)))`},
	{`-1`, `(unary - (int 1))`},
	{`x^-1`, `(binary ^ (ident x) (unary - (int 1)))`},
	{`x^-y^2`, `(binary ^ (ident x) (unary - (binary ^ (ident y) (int 2))))`},
	{`-x^-y^2`, `(unary - (binary ^ (ident x) (unary - (binary ^ (ident y) (int 2)))))`},
	{`(-x)^2`, `(binary ^ (paren (unary - (ident x))) (int 2))`},
	{`-W'`, `(unary - (transpose (ident W)))`},

	// Comparisons and logical operators (Stan's precedence): || loosest,
	// then &&, then one comparison, then + and -; ! is unary like -.
	{`a < b`, `(binary < (ident a) (ident b))`},
	{`a<=b`, `(binary <= (ident a) (ident b))`},
	{`a > b + 1`, `(binary > (ident a) (binary + (ident b) (int 1)))`},
	{`a - 1 >= b * 2`, `(binary >= (binary - (ident a) (int 1)) (binary * (ident b) (int 2)))`},
	{`y[i] == 0`, `(binary == (index (ident y) (ident i)) (int 0))`},
	{`a != -b`, `(binary != (ident a) (unary - (ident b)))`},
	{`a && b || c`, `(binary || (binary && (ident a) (ident b)) (ident c))`},
	{`a || b && c`, `(binary || (ident a) (binary && (ident b) (ident c)))`},
	{`a || b || c`, `(binary || (binary || (ident a) (ident b)) (ident c))`},
	{`i > 0 && y[i-1] == 0`, `(binary && (binary > (ident i) (int 0)) (binary == (index (ident y) (binary - (ident i) (int 1))) (int 0)))`},
	{`!a`, `(unary ! (ident a))`},
	{`!a && b`, `(binary && (unary ! (ident a)) (ident b))`},
	{`!(a < b)`, `(unary ! (paren (binary < (ident a) (ident b))))`},
	{`!x^2`, `(unary ! (binary ^ (ident x) (int 2)))`},
	{`!!a`, `(unary ! (unary ! (ident a)))`},
	{`(a < b) < c`, `(binary < (paren (binary < (ident a) (ident b))) (ident c))`},
	{`x[a < b]`, `(index (ident x) (binary < (ident a) (ident b)))`},

	// Postfix: transpose, indexing and calls bind tightest.
	{`W'`, `(transpose (ident W))`},
	{`W''`, `(transpose (transpose (ident W)))`},
	{`W[i]'`, `(transpose (index (ident W) (ident i)))`},
	{`x'[0]`, `(index (transpose (ident x)) (int 0))`},
	{`(W*W')'`, `(transpose (paren (binary * (ident W) (transpose (ident W)))))`},
	{`W * W'`, `(binary * (ident W) (transpose (ident W)))`},
	{`r' .* s`, `(binary .* (transpose (ident r)) (ident s))`},
	{`x^2'`, `(binary ^ (ident x) (transpose (int 2)))`},
	{`A[i][j]`, `(index (index (ident A) (ident i)) (ident j))`},
	{`f(x)[0]`, `(index (call f (ident x)) (int 0))`},
	{`f(x)'`, `(transpose (call f (ident x)))`},
	{`(a + b)[0]`, `(index (paren (binary + (ident a) (ident b))) (int 0))`},

	// Vector literals: an operand, so postfix operators apply to them; a
	// "[" after an operand is an index.
	{`[1]`, `(vector (int 1))`},
	{`[a, b + 1, -c]`, `(vector (ident a) (binary + (ident b) (int 1)) (unary - (ident c)))`},
	{`[x[0], f(y), (z), 2.5]`, `(vector (index (ident x) (int 0)) (call f (ident y)) (paren (ident z)) (real 2.5))`},
	{`[a, b][0]`, `(index (vector (ident a) (ident b)) (int 0))`},
	{`[a, b]'`, `(transpose (vector (ident a) (ident b)))`},
	{`X * [a, b]'`, `(binary * (ident X) (transpose (vector (ident a) (ident b))))`},
	{`-[a]`, `(unary - (vector (ident a)))`},
	{`[a]^2`, `(binary ^ (vector (ident a)) (int 2))`},
	{`x[[0, 2]]`, `(index (ident x) (vector (int 0) (int 2)))`},
	{`x[[0, 2], 1:2]`, `(index (ident x) (vector (int 0) (int 2)) (slice (int 1) (int 2)))`},
	// Matrix literals: a literal of literals (the checker types it
	// [rows, cols] and rejects ragged rows such as [[1, 2], [3]]).
	{`[[1, 2], [3]]`, `(vector (vector (int 1) (int 2)) (vector (int 3)))`},
	{`[[s1, 0], [rho * s1, s2]]`, `(vector (vector (ident s1) (int 0)) (vector (binary * (ident rho) (ident s1)) (ident s2)))`},
	{"[[1, 0.8],\n [0.8, 1]]", `(vector (vector (int 1) (real 0.8)) (vector (real 0.8) (int 1)))`},
	{"[\n  [a, b],\n  [c, d]\n][1, 0]", `(index (vector (vector (ident a) (ident b)) (vector (ident c) (ident d))) (int 1) (int 0))`},
	{`[x, [1, 2]]'`, `(transpose (vector (ident x) (vector (int 1) (int 2))))`},
	{`f([a, b], c)`, `(call f (vector (ident a) (ident b)) (ident c))`},

	// Calls.
	{`f()`, `(call f)`},
	{`f(x)`, `(call f (ident x))`},
	{`f(x, y + 1)`, `(call f (ident x) (binary + (ident y) (int 1)))`},
	{`f(g(x), h(y, z(1)))`, `(call f (call g (ident x)) (call h (ident y) (call z (int 1))))`},
	{`I(D) / prec`, `(binary / (call I (ident D)) (ident prec))`},
	{`log1mexp(rate) + rate`, `(binary + (call log1mexp (ident rate)) (ident rate))`},

	// Indexing: empty positions, colons and slices.
	{`x[i]`, `(index (ident x) (ident i))`},
	{`A[i, j]`, `(index (ident A) (ident i) (ident j))`},
	{`A[, 0]`, `(index (ident A) (slice _ _) (int 0))`},
	{`A[0, ]`, `(index (ident A) (int 0) (slice _ _))`},
	{`A[0,]`, `(index (ident A) (int 0) (slice _ _))`},
	{`A[,]`, `(index (ident A) (slice _ _) (slice _ _))`},
	{`A[:, 0]`, `(index (ident A) (slice _ _) (int 0))`},
	{`A[0, :]`, `(index (ident A) (int 0) (slice _ _))`},
	{`x[1:3]`, `(index (ident x) (slice (int 1) (int 3)))`},
	{`x[:n]`, `(index (ident x) (slice _ (ident n)))`},
	{`x[2:]`, `(index (ident x) (slice (int 2) _))`},
	{`x[:]`, `(index (ident x) (slice _ _))`},
	{`x[i+1:n-1]`, `(index (ident x) (slice (binary + (ident i) (int 1)) (binary - (ident n) (int 1))))`},
	{`A[lo:hi, j]`, `(index (ident A) (slice (ident lo) (ident hi)) (ident j))`},
	{`W[links[, 0]]`, `(index (ident W) (index (ident links) (slice _ _) (int 0)))`},
	{`x[-1]`, `(index (ident x) (unary - (int 1)))`},

	// Newlines inside brackets do not end the expression.
	{"f(a,\n  b)", `(call f (ident a) (ident b))`},
	{"f(\n  a,\n  b\n)", `(call f (ident a) (ident b))`},
	{"(a\n+ b)", `(paren (binary + (ident a) (ident b)))`},
	{"x[\n0\n]", `(index (ident x) (int 0))`},
	{"[a,\n  b\n]", `(vector (ident a) (ident b))`},
	// ... and neither does one after an operator.
	{"a +\n  b", `(binary + (ident a) (ident b))`},
	{"a *\n\n  b # comment\n", `(binary * (ident a) (ident b))`},
	{"a # comment", `(ident a)`},
	{"  a  \n\n", `(ident a)`},
}

func TestParseExpr(t *testing.T) {
	for _, tc := range exprTests {
		x, err := ParseExpr(tc.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tc.src, err)
			continue
		}
		if got := ast.Dump(x); got != tc.want {
			t.Errorf("ParseExpr(%q)\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestParseNumberValue(t *testing.T) {
	for _, tc := range []struct {
		src   string
		value float64
		isInt bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"3.0", 3, false},
		{".5", 0.5, false},
		{"1e-3", 1e-3, false},
		{"2.5E+4", 2.5e4, false},
		{"12345678901234567890", 12345678901234567890, true},
	} {
		x, err := ParseExpr(tc.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tc.src, err)
			continue
		}
		n, ok := x.(*ast.NumberLit)
		if !ok || n.Value != tc.value || n.IsInt != tc.isInt || n.Raw != tc.src {
			t.Errorf("ParseExpr(%q) = %#v, want value %g, IsInt %v", tc.src, x, tc.value, tc.isInt)
		}
	}
}

// stmtTests are ParseStmts inputs and their trees, one statement a line.
var stmtTests = []struct{ src, want string }{
	// Declarations.
	{`data N: int`, `(data N (type int))`},
	{`data Y: real[N, D]`, `(data Y (type real (dims (ident N) (ident D))))`},
	{`data x: int<lower=0>[N]`, `(data x (type int (lower (int 0)) (dims (ident N))))`},
	{`data p: real<upper=1>`, `(data p (type real (upper (int 1))))`},
	{`data p: real<lower=0, upper=1>[N, 3]`, `(data p (type real (lower (int 0)) (upper (int 1)) (dims (ident N) (int 3))))`},
	{`data p: real<upper=1, lower=-1>`, `(data p (type real (lower (unary - (int 1))) (upper (int 1))))`},
	{`data theta: simplex[K]`, `(data theta (type simplex (dims (ident K))))`},
	{`data u: unit[N, K]`, `(data u (type unit (dims (ident N) (ident K))))`},
	{`param c: ordered[K] ~ Normal(0, 5)`, `(param c (type ordered (dims (ident K))) (call Normal (int 0) (int 5)))`},
	{`param A: sum_to_zero_matrix[3, 4]`, `(param A (type sum_to_zero_matrix (dims (int 3) (int 4))))`},
	{`param phi: sum_to_zero_vector[5] ~ Normal(0, 1)`, `(param phi (type sum_to_zero_vector (dims (int 5))) (call Normal (int 0) (int 1)))`},
	{`param r: positive_ordered[2] ~ Gamma(2, 0.5)`, `(param r (type positive_ordered (dims (int 2))) (call Gamma (int 2) (real 0.5)))`},
	{`param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)`, `(param L (type cholesky_factor_corr (dims (int 2))) (call LKJCorrCholesky (int 2)))`},
	{`param Omega: corr_matrix[K] ~ LKJCorr(2)`, `(param Omega (type corr_matrix (dims (ident K))) (call LKJCorr (int 2)))`},
	{`const K = 10`, `(const K (int 10))`},
	{`const K: int = 10`, `(const K (type int) (int 10))`},
	{`const s: real = 2 * 0.5`, `(const s (type real) (binary * (int 2) (real 0.5)))`},
	{`param beta: real[2]`, `(param beta (type real (dims (int 2))))`},
	{`param prec: positive ~ Gamma(0.1, 0.1)`, `(param prec (type positive) (call Gamma (real 0.1) (real 0.1)))`},
	{`param beta: real[3] ~ Normal(0, [10, 2.5, 2.5])`,
		`(param beta (type real (dims (int 3))) (call Normal (int 0) (vector (int 10) (real 2.5) (real 2.5))))`},
	{`param W: positive[D, K] ~ Gamma(g * r', g)`,
		`(param W (type positive (dims (ident D) (ident K))) (call Gamma (binary * (ident g) (transpose (ident r))) (ident g)))`},

	// Statements.
	{`Y ~ MvNormalRows(0, W * W' + I(D) / prec)`,
		`(tilde (ident Y) (call MvNormalRows (int 0) (binary + (binary * (ident W) (transpose (ident W))) (binary / (call I (ident D)) (ident prec)))))`},
	{`y[i] ~ Normal(mu, 1)`, `(tilde (index (ident y) (ident i)) (call Normal (ident mu) (int 1)))`},
	{`log(x) ~ Normal(0, 1)`, `(tilde (call log (ident x)) (call Normal (int 0) (int 1)))`},
	{`[a, b] ~ Normal(0, 1)`, `(tilde (vector (ident a) (ident b)) (call Normal (int 0) (int 1)))`},
	// Truncation, either bound empty.
	{`y ~ Normal(mu, s) T[0, ]`, `(tilde (ident y) (call Normal (ident mu) (ident s)) (trunc (int 0) _))`},
	{`y ~ Normal(mu, s) T[L, U]`, `(tilde (ident y) (call Normal (ident mu) (ident s)) (trunc (ident L) (ident U)))`},
	{`n ~ Poisson(lam) T[, 10]`, `(tilde (ident n) (call Poisson (ident lam)) (trunc _ (int 10)))`},
	{`y ~ Normal(0, 1) T[a - 1, b[i]]`, `(tilde (ident y) (call Normal (int 0) (int 1)) (trunc (binary - (ident a) (int 1)) (index (ident b) (ident i))))`},
	{`y ~ Normal(0, 1) T[,]`, `(tilde (ident y) (call Normal (int 0) (int 1)) (trunc _ _))`},
	{`output r ~ Normal(0, 1) T[0, ]`, `(output r (call Normal (int 0) (int 1)) (trunc (int 0) _))`},
	{"let T = 2\ny ~ Normal(T, 1)", "(let T (int 2))\n(tilde (ident y) (call Normal (ident T) (int 1)))"},
	{`output pair = [mean(x), sd]`, `(output pair (vector (call mean (ident x)) (ident sd)))`},
	{`let s = colsum(W)`, `(let s (call colsum (ident W)))`},
	{`target += sum(x)`, `(target += (call sum (ident x)))`},
	{`target -= 0.5 * s`, `(target -= (binary * (real 0.5) (ident s)))`},
	{`output theta`, `(output theta)`},
	{`output cov = W * W'`, `(output cov (binary * (ident W) (transpose (ident W))))`},
	{`output y_rep ~ Poisson(exp(eta))`, `(output y_rep (call Poisson (call exp (ident eta))))`},
	{"for i in 0:N {\n    y[i] ~ Normal(mu[i], 1)\n}",
		`(for i (int 0) (ident N) (tilde (index (ident y) (ident i)) (call Normal (index (ident mu) (ident i)) (int 1))))`},
	{"for i in 0:N { y[i] ~ Normal(0, 1) }", `(for i (int 0) (ident N) (tilde (index (ident y) (ident i)) (call Normal (int 0) (int 1))))`},
	{"for i in 0:N {}", `(for i (int 0) (ident N))`},
	{"for i in 0:N {\n}", `(for i (int 0) (ident N))`},
	{"for i in 1:N-1 { let d = x[i] - x[i-1]; d ~ Normal(0, s) }",
		`(for i (int 1) (binary - (ident N) (int 1)) (let d (binary - (index (ident x) (ident i)) (index (ident x) (binary - (ident i) (int 1))))) (tilde (ident d) (call Normal (int 0) (ident s))))`},
	{"for i in 0:N {\n  for j in 0:i {\n    target += A[i, j]\n  }\n}",
		`(for i (int 0) (ident N) (for j (int 0) (ident i) (target += (index (ident A) (ident i) (ident j)))))`},

	// if, else if, else.
	{"if y[i] == 0 { target += a } else { target += b }",
		`(if (branch (binary == (index (ident y) (ident i)) (int 0)) (target += (ident a))) (else (target += (ident b))))`},
	{"if a {\n  target += 1\n} else if b {\n  target += 2\n} else if c {\n} else {\n}",
		`(if (branch (ident a) (target += (int 1))) (branch (ident b) (target += (int 2))) (branch (ident c)) (else))`},
	{"if (K > 1) {}", `(if (branch (paren (binary > (ident K) (int 1)))))`},
	{"if a {\n}\nelse {\n  let z = 1\n}", `(if (branch (ident a)) (else (let z (int 1))))`},
	{"if a {}\nif b {}", "(if (branch (ident a)))\n(if (branch (ident b)))"},
	{"for i in 0:N {\n  if y[i] == 0 {\n    target += 1\n  } else {\n    y[i] ~ Poisson(l)\n  }\n}",
		`(for i (int 0) (ident N) (if (branch (binary == (index (ident y) (ident i)) (int 0)) (target += (int 1))) (else (tilde (index (ident y) (ident i)) (call Poisson (ident l))))))`},
	{"if a >\n    b && c &&\n    d { }", `(if (branch (binary && (binary && (binary > (ident a) (ident b)) (ident c)) (ident d))))`},
	{"data x: real<lower=0>\nlet a = x > 0", "(data x (type real (lower (int 0))))\n(let a (binary > (ident x) (int 0)))"},

	// Termination: ";" separates; a trailing operator or an open bracket
	// continues the statement on the next line.
	{"let a = 1; let b = 2", "(let a (int 1))\n(let b (int 2))"},
	{"let a = 1;;\n;let b = 2;", "(let a (int 1))\n(let b (int 2))"},
	{"let a = x +\n    y", `(let a (binary + (ident x) (ident y)))`},
	{"y ~ Normal(\n    mu,\n    sigma\n)", `(tilde (ident y) (call Normal (ident mu) (ident sigma)))`},
	{"let a = b[\n  0,\n  1]", `(let a (index (ident b) (int 0) (int 1)))`},
	{"let a = b'\nlet c = d", "(let a (transpose (ident b)))\n(let c (ident d))"},
	{"let a = [\n  1,\n  2\n]", `(let a (vector (int 1) (int 2)))`},
	// A "[" that starts a line after a complete statement starts a literal
	// in a new statement, not an index.
	{"let a = x\n[a, b] ~ Normal(0, 1)", "(let a (ident x))\n(tilde (vector (ident a) (ident b)) (call Normal (int 0) (int 1)))"},
	{"data N: int\ndata x: int<lower=0>\n", "(data N (type int))\n(data x (type int (lower (int 0))))"},
	{"\n\n# comment only\n\nlet a = 1 # trailing\n\n", `(let a (int 1))`},
	{"", ``},
}

func TestParseStmts(t *testing.T) {
	for _, tc := range stmtTests {
		stmts, err := ParseStmts("t.gpp", []byte(tc.src))
		if err != nil {
			t.Errorf("ParseStmts(%q): %v", tc.src, err)
			continue
		}
		var dumps []string
		for _, s := range stmts {
			dumps = append(dumps, ast.Dump(s))
		}
		if got := strings.Join(dumps, "\n"); got != tc.want {
			t.Errorf("ParseStmts(%q)\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestParseBOM: a source file that starts with a UTF-8 byte-order mark parses
// as without it, with the same positions.
func TestParseBOM(t *testing.T) {
	const src = "param x: real ~ Normal(0, 1)\ntarget += y\n"
	plain, err := ParseFile("m.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	marked, err := ParseFile("m.gpp", []byte("\ufeff"+src))
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Stmts) != 2 || len(marked.Stmts) != 2 {
		t.Fatalf("statements: %d and %d, want 2", len(plain.Stmts), len(marked.Stmts))
	}
	for i := range plain.Stmts {
		if a, b := ast.Dump(plain.Stmts[i]), ast.Dump(marked.Stmts[i]); a != b {
			t.Errorf("statement %d:\n%s\nwith the mark:\n%s", i, a, b)
		}
		if a, b := plain.Stmts[i].Pos(), marked.Stmts[i].Pos(); a != b {
			t.Errorf("statement %d at %v, with the mark at %v", i, a, b)
		}
	}
}

// TestNeedsMore: an input goes on over the next line while a bracket is
// open or its last token cannot end a statement, never after a lexical
// error.
func TestNeedsMore(t *testing.T) {
	tests := []struct {
		src  string
		more bool
	}{
		{"param lambda: positive ~ Gamma(2, 0.5)", false}, // complete statement
		{"y ~ Poisson(lambda)", false},
		{"x'", false},                   // ends with a transpose
		{"data y: int<lower=0>", false}, // ends with >
		{"let b = a >", true},           // a comparison's > goes on
		{"let b = a >=", true},
		{"let b = a &&", true},
		{"let b = !", true},
		{"if a { target += 1 }", false},
		{"if a {", true},
		{"if a { target += 1 } else {", true},
		{"mean(lambda)", false},                     // expression
		{"param lambda: positive ~ Gamma(2,", true}, // open (
		{"W[0,", true},                              // open [
		{"for i in 0:N {", true},                    // open {
		{"for i in 0:N {\n y[i] ~ Poisson(l)\n}", false},
		{"let s = a +", true}, // trailing operator
		{"let s = a .*", true},
		{"y ~", true},
		{"const K =", true},
		{"data y: int<", true},
		{"a + b # comment (", false}, // comments do not count
		{"target +=", true},
		{"x)", false}, // unbalanced: submitted, reported by the parser
		{`"`, false},  // invalid characters: reported at once
		{`foo("`, false},
		{"let s = y[0 @", false},
		{"y ~ Normal(λ", false},
		{"a + b # \"", false},
		{"", false},
		{"let a = 1;", false},
		{"1e", false}, // malformed number
	}
	for _, tt := range tests {
		if got := NeedsMore(tt.src); got != tt.more {
			t.Errorf("NeedsMore(%q) = %v, want %v", tt.src, got, tt.more)
		}
	}
}

// TestInputShape: what the REPL asks of an input before it parses it.
func TestInputShape(t *testing.T) {
	starts := []struct {
		line string
		want bool
	}{
		{"param x: real", true},
		{"  for i in 0:N {", true},
		{"target += x", true},
		{"database + 1", false}, // a name that starts with a keyword
		{"# data", false},       // a comment
		{"in", false},           // reserved, but no statement starts with it
		{"", false},
	}
	for _, c := range starts {
		if got := StartsStatement(c.line); got != c.want {
			t.Errorf("StartsStatement(%q) = %v, want %v", c.line, got, c.want)
		}
	}
	braces := []struct {
		src  string
		want int
	}{
		{"for i in 0:N {\n for j in 0:M {", 2},
		{"for i in 0:N {\n y[i] ~ Poisson(l) # }\n", 1}, // a brace in a comment does not count
		{"}", -1},
		{"a + b", 0},
	}
	for _, c := range braces {
		if got := OpenBraces(c.src); got != c.want {
			t.Errorf("OpenBraces(%q) = %d, want %d", c.src, got, c.want)
		}
	}
	stmts := []struct {
		src  string
		want bool
	}{
		{"let = 3", true},
		{"y ~ Normal(", true},
		{"x = 1 +", true},
		{"target += ", true},
		{"a; b(", true},
		{"f(a = 1", false}, // "=" inside brackets
		{"mean(x[1 ~", false},
		{"data", true},
		{"datum +", false},
		{"1 + # ~", false}, // "~" in a comment
		{"", false},
	}
	for _, c := range stmts {
		if got := LooksLikeStatements(c.src); got != c.want {
			t.Errorf("LooksLikeStatements(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}
