package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// fuzzLoopHead declares the loop models' data and parameters (loopHead)
// and more: data z in {0, 1} for Bernoulli, p > 0 for Gamma, k in 0..3
// for Categorical, and the weights B [3, 4] of a multi-output product
// and w, m of a two-component mixture.
const fuzzLoopHead = loopHead + "data z: int<lower=0, upper=1>[N]\ndata p: positive[N]\n" +
	"data k: int<lower=0, upper=3>[N]\ndata Y: int<lower=0>[N, 4]\ndata Q: simplex[N, 3]\nparam B: real[3, 4] ~ Normal(0, 1)\nparam w: simplex[2] ~ Dirichlet(2)\nparam m: real[2] ~ Normal(0, 1)\n"

// fuzzLoopData is loopData(n) with z, p, k, the counts Y and the simplex
// rows Q.
func fuzzLoopData(n int) data.Input {
	in := loopData(n)
	r := rand.New(rand.NewPCG(uint64(n), 13))
	z, p, k := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range z {
		z[i] = float64(r.IntN(2))
		p[i] = math.Exp(r.NormFloat64())
	}
	for i := range k {
		k[i] = float64(r.IntN(4))
	}
	in.JSON["z"] = &data.Array{Name: "z", Shape: []int{n}, Values: z}
	in.JSON["p"] = &data.Array{Name: "p", Shape: []int{n}, Values: p}
	in.JSON["k"] = &data.Array{Name: "k", Shape: []int{n}, Values: k}
	cy := make([]float64, 4*n) // counts of 4 categories per row
	for i := range cy {
		cy[i] = float64(r.IntN(4))
	}
	in.JSON["Y"] = &data.Array{Name: "Y", Shape: []int{n, 4}, Values: cy}
	q := make([]float64, 3*n) // rows on the simplex
	for i := 0; i < n; i++ {
		s := 0.0
		for j := range 3 {
			q[3*i+j] = r.ExpFloat64()
			s += q[3*i+j]
		}
		for j := range 3 {
			q[3*i+j] /= s
		}
	}
	in.JSON["Q"] = &data.Array{Name: "Q", Shape: []int{n, 3}, Values: q}
	return in
}

// loopGen writes a random loop body from fuzz bytes, deterministically: the
// bytes are its choices, zeros once they run out.
type loopGen struct {
	b     []byte
	w     strings.Builder
	lets  int      // lets named so far
	scope []string // the lets visible here
	// vscope holds the visible lets of a vector per iteration, by
	// their length (3, 4 or 2: X[i], X[i]' * B, a mixture's).
	vscope map[int][]string
	inner  bool // inside the nested loop over j
	depth  int  // expression depth
	// fallback records a shape the lowering must unroll (y[i − 1], &&,
	// prod of a slice of a row, a range depending on i), so that the tape may grow
	// with N.
	fallback bool
}

// pick returns the next choice among n.
func (g *loopGen) pick(n int) int {
	if len(g.b) == 0 {
		return 0
	}
	c := int(g.b[0])
	g.b = g.b[1:]
	return c % n
}

// printf writes a line at indent.
func (g *loopGen) printf(indent int, format string, args ...any) {
	g.w.WriteString(strings.Repeat("    ", indent))
	fmt.Fprintf(&g.w, format, args...)
	g.w.WriteByte('\n')
}

// real returns a scalar real expression of the row.
func (g *loopGen) real() string {
	g.depth++
	defer func() { g.depth-- }()
	k := g.pick(19)
	if g.depth > 3 {
		k %= 9
	}
	switch k {
	case 0:
		return []string{"a", "b", "s", "theta"}[g.pick(4)]
	case 1:
		return []string{"x[i]", "y[i]", "p[i]"}[g.pick(3)]
	case 2:
		return []string{"u[g[i]]", "u[h[i]]", "u[c[i]]"}[g.pick(3)]
	case 3:
		if g.inner {
			return []string{"X[i, j]", "beta[j]", "X[i, j] * beta[j]"}[g.pick(3)]
		}
		return fmt.Sprintf("X[i, %d]", g.pick(3))
	case 4:
		if len(g.scope) > 0 {
			return g.scope[g.pick(len(g.scope))]
		}
		return "x[i]"
	case 5:
		return []string{"0.5", "2", "-1.25", "c[i]", "z[i]"}[g.pick(5)]
	case 6:
		if g.pick(2) == 0 {
			return "dot_product(X[i], beta)"
		}
		return "dot_product(beta, X[i])"
	case 7:
		return fmt.Sprintf("beta[%d]", g.pick(3))
	case 8:
		switch g.pick(4) {
		case 0:
			// a shape the lowering must leave unrolled
			g.fallback = true
			return "y[i - 1]"
		case 1:
			return "sum(cumsum(" + g.vec(3) + "))"
		case 2:
			// an element of a vector per iteration: a column of the rows
			k := 2 + g.pick(3)
			if g.pick(2) == 0 {
				// at the row's int data: each row's own element, or
				// (c[i] up to 4) out of range in some rows
				ix := map[int][]string{2: {"z[i]", "c[i]"}, 3: {"z[i]", "c[i]"}, 4: {"k[i]", "c[i]"}}[k]
				return fmt.Sprintf("(%s)[%s]", g.vec(k), ix[g.pick(2)])
			}
			return fmt.Sprintf("(%s)[%d]", g.vec(k), g.pick(k))
		default:
			return []string{"max(", "min("}[g.pick(2)] + g.vec(2+g.pick(3)) + ")"
		}
	case 9, 10, 11:
		return "(" + g.real() + []string{" + ", " - ", " * ", " * "}[g.pick(4)] + g.real() + ")"
	case 12:
		if g.pick(4) == 0 {
			// a NaN or an infinity in some rows: the same error
			return []string{"log(x[i] - a)", "sqrt(y[i] + b)", "exp(900 * b * x[i])", "log(p[i] - 1)", "sqrt(c[i] * s)", "log(z[i] * s)"}[g.pick(6)]
		}
		return g.real() + " / " + g.pos()
	case 13:
		if g.pick(2) == 0 {
			return g.rowScalar()
		}
		fallthrough
	case 14:
		f := []string{"tanh", "inv_logit", "square", "sin", "Phi", "abs", "exp", "log1p"}[g.pick(8)]
		arg := g.real()
		switch f {
		case "exp":
			arg = "0.1 * " + arg
		case "log1p":
			arg = "square(" + arg + ")"
		}
		return f + "(" + arg + ")"
	case 16:
		// the loop variables as values, int arithmetic
		if g.inner {
			return []string{"0.1 * j", "(i - j) * 0.01", "c[i] / 2 + j", "u[j]", "x[j]"}[g.pick(5)]
		}
		return []string{"0.01 * i", "c[i] / 2", "(c[i] * 3 - 1)", "u[g[i]] * u[h[i]]"}[g.pick(4)]
	case 17:
		// more shapes the lowering must leave unrolled
		g.fallback = true
		return []string{"u[g[i] + 0]", "(x[i] > 0) * a", "x[N - 1 - i]", "prod(X[i, 0:2])", "u[G - 1 - g[i]]"}[g.pick(5)]
	default:
		return "-" + g.real()
	}
}

// rowScalar returns a scalar of the row made from a vector per iteration
// (looprows.go): a sum, a log_sum_exp, a dot product.
func (g *loopGen) rowScalar() string {
	k := 2 + g.pick(3)
	switch g.pick(8) {
	case 0:
		return "sum(" + g.vec(k) + ")"
	case 7:
		return []string{"prod(", "mean("}[g.pick(2)] + g.vec(k) + ")"
	case 1:
		return "log_sum_exp(" + g.vec(k) + ")"
	case 2:
		return "dot_product(" + g.vec(3) + ", " + []string{"beta", "X[i]", "[0.5, -1, 2]"}[g.pick(3)] + ")"
	case 3:
		return "dot_product(" + []string{"beta", "X[i] * 2"}[g.pick(2)] + ", " + g.vec(3) + ")"
	case 4:
		return "sum(X[i]' * beta)"
	case 5:
		return "sum(X[i]' .* " + []string{"beta'", "X[i]'", "(" + g.vec(3) + ")'"}[g.pick(3)] + ")"
	default:
		return "log_sum_exp(log_softmax(" + g.vec(k) + ") + " + g.vec(k) + ")"
	}
}

// vec returns a vector of k elements per iteration, made from a row of X
// (k = 3), a row times the matrix B (k = 4) or a mixture's components
// (k = 2).
func (g *loopGen) vec(k int) string {
	g.depth++
	defer func() { g.depth-- }()
	c := g.pick(9)
	if g.depth > 3 {
		c = 0
	}
	switch c {
	case 0:
		return map[int]string{3: "X[i]", 4: "(X[i]' * B)'", 2: "(y[i] - m)"}[k]
	case 1:
		if lets := g.vscope[k]; len(lets) > 0 {
			return lets[g.pick(len(lets))]
		}
		return map[int]string{3: "X[i]", 4: "(B' * X[i])", 2: "(m * x[i])"}[k]
	case 2:
		// with a vector of no row, a scalar of the row, or another
		w := map[int][]string{3: {"beta", "[0.5, -1, 2]"}, 4: {"[1, 2, 3, 4]", "B[0]'"}, 2: {"m", "log(w)"}}[k]
		return "(" + g.vec(k) + []string{" + ", " - ", " .* ", " .* "}[g.pick(4)] + []string{w[0], w[1], g.real(), g.vec(k)}[g.pick(4)] + ")"
	case 3:
		return "(" + g.real() + []string{" * ", " - "}[g.pick(2)] + g.vec(k) + ")"
	case 4:
		return "(" + g.vec(k) + " / " + g.pos() + ")"
	case 5:
		f := []string{"tanh", "square", "exp", "inv_logit", "softmax", "log_softmax", "-", "log", "cumsum"}[g.pick(9)]
		arg := g.vec(k)
		if f == "exp" {
			arg = "0.1 * " + arg
		}
		return f + "(" + arg + ")"
	case 6:
		switch k {
		case 3:
			return "(B * " + g.vec(4) + ")"
		case 4:
			return "(" + g.vec(3) + "' * B)'"
		}
		return "logpdf(" + g.real() + ", Normal(m, " + g.pos() + "))"
	case 7:
		switch {
		case k == 2:
			return "log(w) + logpdf(y[i], " + []string{"Normal(m, s)", "StudentT(4, m, s)", "Normal(m * x[i], exp(m))"}[g.pick(3)] + ")"
		case g.pick(2) == 0: // a literal of the row's scalars
			return map[int]string{3: "[" + g.real() + ", y[i], 0.5]", 4: "[x[i], 1, " + g.real() + ", c[i]]"}[k]
		}
		return "(" + g.vec(k) + "')'"
	default:
		if k == 3 && g.inner {
			return "X[i] * (j + 1)"
		}
		return map[int]string{3: "X[h[i]]", 4: "(X[i]' * B + u[g[i]])'", 2: "logccdf(p[i], Gamma(2, exp(m)))"}[k]
	}
}

// pos returns a positive expression of the row.
func (g *loopGen) pos() string {
	switch g.pick(5) {
	case 0:
		return "s"
	case 1:
		return "exp(0.1 * " + g.real() + ")"
	case 2:
		return "s * exp(0.1 * u[h[i]])"
	case 3:
		return "(1 + square(" + g.real() + "))"
	default:
		return "p[i]"
	}
}

// cond returns a condition on data.
func (g *loopGen) cond() string {
	switch g.pick(8) {
	case 0:
		return "c[i] == 0"
	case 1:
		return "c[i] > 2"
	case 2:
		return fmt.Sprintf("x[i] < %g", []float64{-0.5, 0, 0.5}[g.pick(3)])
	case 3:
		return "z[i] == 1"
	case 4:
		return "g[i] != 3"
	case 5:
		g.fallback = true
		return "x[i] < 0.5 && c[i] > 0"
	case 6:
		if g.inner {
			c := []string{"X[i, j] > 0", "j == 1", "j > 1 || c[i] > 1", "!(X[i, j] < 0)"}[g.pick(4)]
			g.fallback = g.fallback || strings.Contains(c, "||")
			return c
		}
		return "!(c[i] == 0)"
	default:
		return "p[i] >= 1"
	}
}

// tilde writes a ~ statement: of y[i] (or X[i, j]) with a real
// distribution (lhsKind 0), c[i] Poisson, z[i] Bernoulli or p[i] Gamma.
func (g *loopGen) tilde(indent int, lhsKind int) {
	switch lhsKind {
	case 0:
		if g.pick(6) == 0 {
			// a row under a multivariate normal: the rows' outer
			// products, summed into one scatter
			switch g.pick(3) {
			case 0:
				// or by a Cholesky factor of no row, into one node over
				// the rows (diag([1, a, 2]) fails where a ≤ 0)
				mu := []string{g.vec(3), "beta", "0.5"}[g.pick(3)]
				g.printf(indent, "X[i] ~ MvNormalCholesky(%s, %s)", mu, []string{"diag([1, 2, s])", "chol(crossprod(B') + I(3))", "diag([1, a, 2])"}[g.pick(3)])
			case 1:
				g.printf(indent, "X[i] ~ MvNormal(%s, %s)", g.vec(3), []string{"I(3) * s", "crossprod(B') + I(3)"}[g.pick(2)])
			default:
				// a simplex row under a Dirichlet of no row or of the
				// row (a concentration that underflows to 0 fails)
				alpha := []string{"2", "exp(beta) + 0.5", "[1, 2, exp(-1000 * a)]", "exp(" + g.vec(3) + ")"}[g.pick(4)]
				g.printf(indent, "Q[i] ~ Dirichlet(%s)", alpha)
			}
			return
		}
		lhs := "y[i]"
		if g.inner {
			lhs = []string{"y[i]", "X[i, j]"}[g.pick(2)]
		}
		// a truncation: bounds of no row, of the row's data or params,
		// some that a value passes (the same error in both lowerings)
		tr := g.trunc([]string{"", "", "", " T[-30, 30]", " T[" + lhs + " - exp(u[g[i]]), ]", " T[, " + lhs + " + s]", " T[a, ]", " T[x[i], ]", " T[" + lhs + " - 1, " + lhs + " + square(b) + 0.5]"})
		switch g.pick(4) {
		case 0:
			g.printf(indent, "%s ~ Normal(%s, %s)%s", lhs, g.real(), g.pos(), tr)
		case 1:
			g.printf(indent, "%s ~ StudentT(%s, %s, %s)%s", lhs, []string{"4", "p[i] + 1"}[g.pick(2)], g.real(), g.pos(), tr)
		case 2:
			g.printf(indent, "%s ~ Cauchy(%s, %s)%s", lhs, g.real(), g.pos(), tr)
		default:
			g.printf(indent, "%s ~ Logistic(%s, %s)%s", lhs, g.real(), g.pos(), tr)
		}
	case 1:
		// T[1, ] is a hurdle's positive part (c has zeros: an error)
		g.printf(indent, "c[i] ~ Poisson(exp(0.3 * %s))%s", g.real(), g.trunc([]string{"", "", " T[0, c[i] + 3]", " T[1, ]", " T[, 2]", " T[c[i], ]"}))
	case 2:
		if g.pick(3) == 0 {
			// a vector of 4 per iteration: one row of the classes'
			// logits, of a category k[i] or the counts Y[i]
			switch g.pick(4) {
			case 0:
				g.printf(indent, "k[i] ~ CategoricalLogit(%s)", g.vec(4))
			case 1:
				// scaled far apart, a probability may underflow to 0
				g.printf(indent, "k[i] ~ Categorical(softmax(%s * %s))", g.vec(4), []string{"1", "300 * c[i]", "1e3 * x[i]"}[g.pick(3)])
			case 2:
				g.printf(indent, "Y[i] ~ MultinomialLogit(%s)", g.vec(4))
			default:
				g.printf(indent, "Y[i] ~ Multinomial(softmax(%s * %s))", g.vec(4), []string{"1", "300 * c[i]", "1e3 * x[i]"}[g.pick(3)])
			}
			return
		}
		g.printf(indent, "z[i] ~ Bernoulli(inv_logit(%s))", g.real())
	default:
		g.printf(indent, "p[i] ~ Gamma(%s, %s)%s", g.pos(), g.pos(), g.trunc([]string{"", "", " T[, p[i] + s]", " T[0.5, ]", " T[p[i] * 0.5, p[i] * 2]"}))
	}
}

// trunc returns one of the truncations ts ("" for none).
func (g *loopGen) trunc(ts []string) string { return ts[g.pick(len(ts))] }

// stmts writes a block of n statements; its lets go out of scope after it.
func (g *loopGen) stmts(indent, n int) {
	saved := len(g.scope)
	vsaved := map[int]int{}
	for k, v := range g.vscope {
		vsaved[k] = len(v)
	}
	for range n {
		g.stmt(indent)
	}
	g.scope = g.scope[:saved]
	for k := range g.vscope {
		g.vscope[k] = g.vscope[k][:vsaved[k]]
	}
}

// stmt writes one statement: a ~, a target += or −=, a let, an if with
// else ifs and an else, or a nested loop.
func (g *loopGen) stmt(indent int) {
	k := g.pick(12)
	if indent > 3 {
		k %= 7
	}
	switch k {
	case 0, 1:
		g.tilde(indent, g.pick(4))
	case 2:
		d := []string{"Normal(%s, %s)", "Gamma(%s, %s)", "Weibull(%s, %s)"}[g.pick(3)]
		fn := []string{"logpdf", "logccdf", "logcdf"}[g.pick(3)]
		if strings.HasPrefix(d, "Normal") {
			g.printf(indent, "target += %s(y[i], "+d+")", fn, g.real(), g.pos())
		} else {
			g.printf(indent, "target += %s(p[i], "+d+")", fn, g.pos(), g.pos())
		}
	case 3:
		g.printf(indent, "target %s %s", []string{"+=", "-="}[g.pick(2)], g.real())
	case 4, 5:
		name := fmt.Sprintf("v%d", g.lets)
		g.lets++
		if g.pick(3) == 0 { // a vector per iteration
			k := 2 + g.pick(3)
			g.printf(indent, "let %s = %s", name, g.vec(k))
			if g.vscope == nil {
				g.vscope = map[int][]string{}
			}
			g.vscope[k] = append(g.vscope[k], name)
			return
		}
		g.printf(indent, "let %s = %s", name, g.real())
		g.scope = append(g.scope, name)
	case 6:
		// a term that does not depend on the row
		g.printf(indent, "target += 0.01 * %s", []string{"a", "beta[1] * s", "u[2]"}[g.pick(3)])
	case 7, 8:
		g.printf(indent, "if %s {", g.cond())
		g.stmts(indent+1, 1+g.pick(2))
		for range g.pick(3) {
			g.w.WriteString(strings.Repeat("    ", indent))
			fmt.Fprintf(&g.w, "} else if %s {\n", g.cond())
			g.stmts(indent+1, 1+g.pick(2))
		}
		if g.pick(2) == 0 {
			g.printf(indent, "} else {")
			g.stmts(indent+1, 1+g.pick(2))
		}
		g.printf(indent, "}")
	case 9:
		if g.inner {
			g.printf(indent, "for k in %s {", []string{"0:2", "1:3"}[g.pick(2)])
			g.printf(indent+1, "target += 0.01 * X[i, k] * X[i, j] * %s", g.real())
			g.printf(indent, "}")
			return
		}
		r := "0:3"
		if g.pick(4) == 0 {
			g.fallback = true
			r = "0:c[i]"
		} else if g.pick(2) == 0 {
			r = "1:3"
		}
		g.printf(indent, "for j in %s {", r)
		g.inner = true
		if r == "0:c[i]" {
			// j may pass X's columns: index beta and X by a constant.
			g.printf(indent+1, "target += 0.01 * j * %s", g.real())
		} else {
			g.stmts(indent+1, 1+g.pick(3))
		}
		g.inner = false
		g.printf(indent, "}")
	default:
		g.tilde(indent, g.pick(4))
	}
}

// genLoopModel returns the loop model the bytes choose and whether it
// must unroll somewhere.
func genLoopModel(b []byte) (string, bool) {
	g := &loopGen{b: b}
	loops := 1 + g.pick(2)
	for range loops {
		if g.pick(6) == 0 {
			g.printf(0, "for i in %s {", []string{"0:G", "3:G - 2", "0:H"}[g.pick(3)])
			g.printf(1, "u[i] ~ %s", []string{"Normal(a, s)", "StudentT(3, b, s)", "Normal(0.1 * i, s)"}[g.pick(3)])
			g.printf(0, "}")
			continue
		}
		lo := []string{"0", "1", "2"}[g.pick(3)]
		hi := []string{"N", "N", "N - 3", "N - 7"}[g.pick(4)]
		g.printf(0, "for i in %s:%s {", lo, hi)
		body := 1 + g.pick(4)
		// From 0, a y[i - 1] is out of range in the first iteration: an
		// error both lowerings must report alike.
		g.stmts(1, body)
		g.printf(0, "}")
	}
	return g.w.String(), g.fallback
}

// FuzzLoopLowering compares the two lowerings of a for loop, as vectors
// and unrolled, on random loop models: both compile or both fail with the
// same error; the log joint and its gradient agree to loopTol at random
// points, or both fail with the same error, which names the same
// iteration (the first failing one for a value, the last for a
// gradient); and a loop the generator built only from vectorisable
// shapes has a tape that does not grow with N. A body string is used as
// it is; otherwise the bytes choose a body (genLoopModel). The seeds are
// the loopvec tests' models and a few byte strings.
func FuzzLoopLowering(f *testing.F) {
	for _, m := range loopModels {
		f.Add(m.body, []byte(nil))
	}
	for _, m := range rowLoopModels {
		f.Add(m.body, []byte(nil))
	}
	// a rate near 2e12: each row's log mass and normaliser cancel to a
	// few units (addTruncPair adds them per element in both lowerings)
	f.Add("for i in 0:N {\n  c[i] ~ Poisson(exp(0.3 * (95 + x[i] + a))) T[0, c[i] + 3]\n}", []byte(nil))
	for _, seed := range []string{"\x00", "\x01\x03\x07\x02\x05\x09\x0b", "\x00\x02\x08\x09\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b", "\x01\x00\x03\x07\x07\x01\x02\x03\x05\x09\x09\x02\x04\x06",
		// Y[i] ~ Multinomial(softmax(...)), Q[i] ~ Dirichlet(exp(X[i]))
		"\x00\x01\x00\x00\x00\x00\x02\x00\x03\x00\x00\x01", "\x00\x01\x00\x00\x00\x00\x00\x00\x02\x00\x03"} {
		f.Add("", []byte(seed))
	}
	f.Fuzz(fuzzLoopOne)
}

// fuzzLoopOne is FuzzLoopLowering's check of one input.
func fuzzLoopOne(t *testing.T, body string, gen []byte) {
	vectorisable := false
	if body == "" {
		if len(gen) > 200 {
			return
		}
		var fallback bool
		body, fallback = genLoopModel(gen)
		vectorisable = !fallback
	}
	src := fuzzLoopHead + body + "\n"
	pf, err := parser.ParseFile("loop.gpp", []byte(src))
	if err != nil {
		return
	}
	info, err := check.Check(pf, &check.Config{})
	if err != nil {
		return
	}
	build := func(n int, unroll bool) (*Model, error) {
		bound, err := data.Bind(info, []data.Input{fuzzLoopData(n)}, nil)
		if err != nil {
			return nil, err
		}
		unrollLoops = unroll
		defer func() { unrollLoops = false }()
		return Compile(pf, info, bound)
	}
	const n = 23
	vec, err1 := build(n, false)
	unr, err2 := build(n, true)
	if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
		t.Fatalf("%s\ncompile error as vectors:\n  %v\nunrolled:\n  %v", src, err1, err2)
	}
	if err1 != nil {
		return
	}
	if vec.Dim != unr.Dim {
		t.Fatalf("%s\ndimension %d as vectors, %d unrolled", src, vec.Dim, unr.Dim)
	}
	gv, gu := make([]float64, vec.Dim), make([]float64, unr.Dim)
	for seed := range uint64(3) {
		x := randomPoint(vec, seed)
		lv, err1 := vec.LogJoint(x, gv)
		lu, err2 := unr.LogJoint(x, gu)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("%s\nseed %d: log joint error as vectors:\n  %v\nunrolled:\n  %v", src, seed, err1, err2)
		}
		if err1 != nil {
			continue
		}
		if !sameOrClose(lv, lu) {
			t.Fatalf("%s\nseed %d: log joint %.17g as vectors, %.17g unrolled", src, seed, lv, lu)
		}
		for k := range gv {
			if !sameOrClose(gv[k], gu[k]) {
				t.Fatalf("%s\nseed %d: gradient[%d] %.17g as vectors, %.17g unrolled", src, seed, k, gv[k], gu[k])
			}
		}
	}
	if !vectorisable {
		return
	}
	// An if's branch empty at one N and not at the other adds or
	// drops its few nodes; unrolling adds some for every row.
	const big = 400
	large, err := build(big, false)
	if err != nil {
		// Data of the larger N the model rejects: as the unrolled
		// loop does.
		if _, err2 := build(big, true); err2 == nil || err.Error() != err2.Error() {
			t.Fatalf("%s\nN = %d: compile error as vectors:\n  %v\nunrolled:\n  %v", src, big, err, err2)
		}
		return
	}
	if large.prog.Len()-vec.prog.Len() >= (big-n)/2 {
		t.Fatalf("%s\nnot lowered as vectors: %d nodes at N = %d, %d at N = %d", src, vec.prog.Len(), n, large.prog.Len(), big)
	}
}

// sameOrClose reports whether a and b agree to loopTol, or are both the
// same non-finite value.
func sameOrClose(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b || math.IsNaN(a) && math.IsNaN(b)
	}
	return closeRel(a, b, loopTol)
}
