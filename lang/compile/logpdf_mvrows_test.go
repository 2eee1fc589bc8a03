package compile

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/gpplang/gpp/data"
)

// rowsLogPDFData is mvLogPDFData's five rows Y [5, 2], four simplex rows
// P [4, 3], and data matrices for the hand computations: a scale or
// precision matrix Sd [2, 2] and a concentration al [3].
func rowsLogPDFData(t *testing.T) data.Input {
	t.Helper()
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"Y": [[0.3, -1.2], [2.5, 0.4], [-0.7, 1.9], [1.1, 1.0], [-2.2, -0.5]],
"P": [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [0.05, 0.15, 0.8], [0.3, 0.3, 0.4]],
"Sd": [[1.7, -0.4], [-0.4, 0.9]], "al": [0.7, 2.5, 1.3]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

const rowsHead = `data Y: real[5, 2]
data P: real[4, 3]
param mu: real[2]
param b: real
param S: cov_matrix[2]
param L: cholesky_factor_cov[2]
param nu: positive
param X: real[3, 2]
param a: positive[3]
`

// target += sum(logpdf(Y, D(...))) is Y ~ D(...), log joint and gradient,
// for MvNormalPrec, MultiStudentT, MultiStudentTCholesky and Dirichlet,
// the mean (alpha) shared ([d], a row [1, d], a scalar) or a row per row
// of the value, the value data or a param; and logpdf of one vector [d]
// is a scalar, the ~ of that vector. The multivariate normal and t terms
// are the ~'s nodes and sum to it bit for bit; Dirichlet's rows are summed
// in another order than the ~'s one sum, so to rounding.
func TestLogPDFRowFamiliesSumToTilde(t *testing.T) {
	in := rowsLogPDFData(t)
	for _, c := range []struct {
		v, lik string
		exact  bool
	}{
		{"Y", "MvNormalPrec(mu, S)", true},
		{"Y", "MvNormalPrec(mu', S)", true},
		{"Y", "MvNormalPrec(b * Y, S)", true},
		{"Y[1]", "MvNormalPrec(mu, S)", true},
		{"X", "MvNormalPrec(mu, S)", true},
		{"Y", "MultiStudentT(nu, mu, S)", true},
		{"Y", "MultiStudentT(nu, b * Y, S)", true},
		{"Y[2]", "MultiStudentT(nu, mu', S)", true},
		{"X", "MultiStudentT(nu, mu, S)", true},
		{"Y", "MultiStudentTCholesky(nu, mu', L)", true},
		{"X[0]", "MultiStudentTCholesky(nu, mu, L)", true},
		{"P", "Dirichlet(a)", false},
		{"P", "Dirichlet(a')", false},
		{"P", "Dirichlet(2.5)", false},
		{"P", "Dirichlet(exp(b * P))", false},
		{"P[1]", "Dirichlet(a)", true},
		{"P[3]", "Dirichlet(nu)", true},
	} {
		sum := "sum(logpdf(" + c.v + ", " + c.lik + "))"
		if strings.Contains(c.v, "[") {
			sum = "logpdf(" + c.v + ", " + c.lik + ")" // a scalar: sum would hide a vector
		}
		a := compileSrc(t, "a.gpp", rowsHead+"target += "+sum+"\n", nil, in)
		b := compileSrc(t, "b.gpp", rowsHead+c.v+" ~ "+c.lik+"\n", nil, in)
		name := "logpdf(" + c.v + ", " + c.lik + ")"
		if c.exact { // logpdf's per-row terms are the ~'s nodes, which the ~ sums: bit for bit
			t.Run(name, func(t *testing.T) {
				for _, z := range mvPts(a) {
					sameLogJoint(t, a, b, "the ~ form", z, 0, 0)
				}
			})
		} else {
			wantSameLogJointAt(t, name, a, b, mvPts(a))
		}
	}
}

// logpdf of a simplex param under Dirichlet is what the param's ~ adds,
// through the same coordinates (log z), finite where an element of z
// underflows to 0: a simplex vector and a matrix of simplex rows, log
// joint and gradient, and the gradient against central differences.
func TestLogPDFDirichletOfSimplexParam(t *testing.T) {
	for _, c := range []struct{ decl, v, lik string }{
		{"param th: simplex[3]\n", "th", "Dirichlet(a)"},
		{"param th: simplex[3]\n", "th", "Dirichlet(0.6)"},
		{"param W: simplex[4, 3]\n", "W", "Dirichlet(a)"},
		{"param W: simplex[4, 3]\n", "W", "Dirichlet(a')"},
	} {
		head := "param a: positive[3] ~ Gamma(2, 1)\n" + c.decl
		lp := "logpdf(" + c.v + ", " + c.lik + ")"
		if c.v == "W" {
			lp = "sum(" + lp + ")"
		}
		a := compileSrc(t, "a.gpp", head+"target += "+lp+"\n", nil)
		b := compileSrc(t, "b.gpp", head+c.v+" ~ "+c.lik+"\n", nil)
		// and a point where an element of the simplex is below the
		// smallest float, exp of its coordinate −800: log z from the
		// coordinate, finite, as the ~'s
		far := mvPts(a)[0]
		for i := range far {
			if strings.HasPrefix(a.LatentOf(i), c.v+"[") {
				far[i] = -800
				break
			}
		}
		wantSameLogJointAt(t, lp, a, b, append(mvPts(a), far))
		checkGradient(t, a, 11, 0.7)
	}
}

// logpdf of each family against its density written out by hand in the
// model from the matrix's entries (the 2-D Student t and the 2-D normal of
// precision Omega) or with lgamma (Dirichlet): log_sum_exp of the per-row
// vector, which a row's term in the wrong row or a shared constant added
// once would change; log joint and gradient, and the gradient against
// central differences.
func TestLogPDFRowFamiliesByHand(t *testing.T) {
	in := rowsLogPDFData(t)
	const fns = `fn mst2(x, y, mx, my, a, c, d, nu) = lgamma((nu + 2) / 2) - lgamma(nu / 2) - log(nu * 3.141592653589793) - 0.5 * log(a * d - c^2) - (nu + 2) / 2 * log1p((d * (x - mx)^2 - 2 * c * (x - mx) .* (y - my) + a * (y - my)^2) / (a * d - c^2) / nu)
fn bvnp(x, y, mx, my, a, c, d) = -1.8378770664093453 + 0.5 * log(a * d - c^2) - 0.5 * (a * (x - mx)^2 + 2 * c * (x - mx) .* (y - my) + d * (y - my)^2)
`
	for _, c := range []struct{ lp, hand string }{
		{"logpdf(Y, MultiStudentT(nu, mu, S))", "mst2(Y[:, 0], Y[:, 1], mu[0], mu[1], S[0, 0], S[1, 0], S[1, 1], nu)"},
		{"logpdf(Y, MultiStudentTCholesky(nu, mu', L))", "mst2(Y[:, 0], Y[:, 1], mu[0], mu[1], L[0, 0]^2, L[1, 0] * L[0, 0], L[1, 0]^2 + L[1, 1]^2, nu)"},
		{"logpdf(X, MultiStudentT(nu, b * X, S))", "mst2(X[:, 0], X[:, 1], b * X[:, 0], b * X[:, 1], S[0, 0], S[1, 0], S[1, 1], nu)"},
		{"logpdf(Y, MvNormalPrec(mu, S))", "bvnp(Y[:, 0], Y[:, 1], mu[0], mu[1], S[0, 0], S[1, 0], S[1, 1])"},
		{"logpdf(Y, MvNormalPrec(b * Y, S))", "bvnp(Y[:, 0], Y[:, 1], b * Y[:, 0], b * Y[:, 1], S[0, 0], S[1, 0], S[1, 1])"},
		{"logpdf(P, Dirichlet(a))", "lgamma(a[0] + a[1] + a[2]) - lgamma(a[0]) - lgamma(a[1]) - lgamma(a[2]) + (a[0] - 1) * log(P[:, 0]) + (a[1] - 1) * log(P[:, 1]) + (a[2] - 1) * log(P[:, 2])"},
		{"logpdf(P, Dirichlet(exp(b * P)))", "lgamma(exp(b * P[:, 0]) + exp(b * P[:, 1]) + exp(b * P[:, 2])) - lgamma(exp(b * P[:, 0])) - lgamma(exp(b * P[:, 1])) - lgamma(exp(b * P[:, 2])) + (exp(b * P[:, 0]) - 1) .* log(P[:, 0]) + (exp(b * P[:, 1]) - 1) .* log(P[:, 1]) + (exp(b * P[:, 2]) - 1) .* log(P[:, 2])"},
	} {
		m := compileSrc(t, "m.gpp", rowsHead+"target += log_sum_exp("+c.lp+")\n", nil, in)
		ref := compileSrc(t, "hand.gpp", rowsHead+fns+"target += log_sum_exp("+c.hand+")\n", nil, in)
		wantSameLogJointAt(t, c.lp, m, ref, mvPts(m))
		checkGradient(t, m, 5, 0.5)
	}
}

// The values of logpdf on data, against the densities computed here in
// Go from their formulas with math.Lgamma: the per-row vector of
// MultiStudentT(3.5, [0.2, −0.1], Sd) and MvNormalPrec([0.2, −0.1], Sd) of
// Y and of Dirichlet(al) of P, each seen through log_sum_exp and through
// the scalar of one row, in a model whose one param m ~ Normal(0, 1) is 0.
func TestLogPDFRowFamiliesValues(t *testing.T) {
	in := rowsLogPDFData(t)
	Y := [][]float64{{0.3, -1.2}, {2.5, 0.4}, {-0.7, 1.9}, {1.1, 1.0}, {-2.2, -0.5}}
	P := [][]float64{{0.2, 0.3, 0.5}, {0.6, 0.1, 0.3}, {0.05, 0.15, 0.8}, {0.3, 0.3, 0.4}}
	sa, sc, sd := 1.7, -0.4, 0.9 // Sd's entries
	det := sa*sd - sc*sc
	mx, my, nu := 0.2, -0.1, 3.5
	al := []float64{0.7, 2.5, 1.3}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	mst := make([]float64, len(Y))
	prec := make([]float64, len(Y))
	for r, y := range Y {
		dx, dy := y[0]-mx, y[1]-my
		q := (sd*dx*dx - 2*sc*dx*dy + sa*dy*dy) / det // Sd⁻¹'s quadratic form
		mst[r] = lg((nu+2)/2) - lg(nu/2) - math.Log(nu*math.Pi) - 0.5*math.Log(det) - (nu+2)/2*math.Log1p(q/nu)
		prec[r] = -math.Log(2*math.Pi) + 0.5*math.Log(det) - 0.5*(sa*dx*dx+2*sc*dx*dy+sd*dy*dy)
	}
	dir := make([]float64, len(P))
	for r, p := range P {
		dir[r] = lg(al[0] + al[1] + al[2])
		for j, x := range p {
			dir[r] += (al[j]-1)*math.Log(x) - lg(al[j])
		}
	}
	const head = "data Y: real[5, 2]\ndata P: real[4, 3]\ndata Sd: real[2, 2]\ndata al: positive[3]\nparam m: real ~ Normal(0, 1)\n"
	for _, c := range []struct {
		lp   string
		want float64
	}{
		{"log_sum_exp(logpdf(Y, MultiStudentT(3.5, [0.2, -0.1], Sd)))", floats.LogSumExp(mst)},
		{"logpdf(Y[3], MultiStudentT(3.5, [0.2, -0.1], Sd))", mst[3]},
		{"log_sum_exp(logpdf(Y, MultiStudentTCholesky(3.5, [0.2, -0.1], chol(Sd))))", floats.LogSumExp(mst)},
		{"log_sum_exp(logpdf(Y, MvNormalPrec([0.2, -0.1], Sd)))", floats.LogSumExp(prec)},
		{"logpdf(Y[1], MvNormalPrec([0.2, -0.1]', Sd))", prec[1]},
		{"log_sum_exp(logpdf(P, Dirichlet(al)))", floats.LogSumExp(dir)},
		{"logpdf(P[2], Dirichlet(al))", dir[2]},
	} {
		m := compileSrc(t, "m.gpp", head+"target += "+c.lp+"\n", nil, in)
		got, err := m.LogJoint([]float64{0}, []float64{0})
		if want := c.want - 0.5*math.Log(2*math.Pi); err != nil || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: log joint %.17g, want %.17g (error %v)", c.lp, got, want, err)
		}
	}
}

// The two-component mixture of bivariate Student t rows (Stan's log_mix of
// two multi_student_t_lpdf per y[n]): log_mix of the vectors of per-row
// log densities, against the same mixture with each density written out by
// hand from Sigma's entries, log joint and gradient, and the gradient
// against central differences.
func TestLogPDFMultiStudentTMixture(t *testing.T) {
	in := rowsLogPDFData(t)
	const head = `data Y: real[5, 2]
param w: unit ~ Beta(2, 2)
param nu: positive ~ Gamma(2, 0.1)
param mu1: real[2] ~ Normal(0, 5)
param mu2: real[2] ~ Normal(0, 5)
param S1: cov_matrix[2] ~ Wishart(4, I(2))
param S2: cov_matrix[2] ~ Wishart(4, I(2))
`
	const hand = `fn mst2(x, y, mx, my, a, c, d, nu) = lgamma((nu + 2) / 2) - lgamma(nu / 2) - log(nu * 3.141592653589793) - 0.5 * log(a * d - c^2) - (nu + 2) / 2 * log1p((d * (x - mx)^2 - 2 * c * (x - mx) .* (y - my) + a * (y - my)^2) / (a * d - c^2) / nu)
let l1 = mst2(Y[:, 0], Y[:, 1], mu1[0], mu1[1], S1[0, 0], S1[1, 0], S1[1, 1], nu)
let l2 = mst2(Y[:, 0], Y[:, 1], mu2[0], mu2[1], S2[0, 0], S2[1, 0], S2[1, 1], nu)
target += sum(log_mix(w, l1, l2))
`
	ref := compileSrc(t, "hand.gpp", head+hand, nil, in)
	for _, mix := range []string{
		"target += sum(log_mix(w, logpdf(Y, MultiStudentT(nu, mu1, S1)), logpdf(Y, MultiStudentT(nu, mu2, S2))))\n",
		"let l1 = logpdf(Y, MultiStudentTCholesky(nu, mu1', chol(S1)))\nlet l2 = logpdf(Y, MultiStudentTCholesky(nu, mu2', chol(S2)))\ntarget += sum(log_mix(w, l1, l2))\noutput log_lik = log_mix(w, l1, l2)\n",
	} {
		m := compileSrc(t, "mix.gpp", head+mix, nil, in)
		wantSameLogJointAt(t, strings.TrimSpace(mix), m, ref, mvPts(m))
		checkGradient(t, m, 5, 0.5)
	}
}

// logpdf's errors at the fit are the ~ form's, at the same place: a data
// precision or scale matrix that is not positive definite names the
// family, the argument and its file; a data simplex row with a negative
// element is log's error at the Dirichlet, naming the cell.
func TestLogPDFRowFamiliesFitErrors(t *testing.T) {
	tab := func(name, header string, rows [][]float64) data.Input {
		return data.Input{Name: strings.TrimSuffix(name, ".csv"), File: name, Table: csvTable(t, name, header, rows)}
	}
	y := tab("Y.csv", "a,b", [][]float64{{0.3, 1}, {-0.2, 0.5}})
	om := tab("Om.csv", "c0,c1", [][]float64{{1, 2}, {2, 1}})
	pm := tab("P.csv", "p0,p1,p2", [][]float64{{0.2, 0.3, 0.5}, {0.4, -0.1, 0.7}})
	const head = "data Y: real[N, 2]\ndata Om: real[2, 2]\ndata P: real[K, 3]\nparam m: real ~ Normal(0, 1)\n"
	for _, c := range []struct{ fam, tilde, lp, want string }{
		{"MvNormalPrec", "Y ~ MvNormalPrec(rep(m, 2), Om)\n", "target += sum(logpdf(Y, MvNormalPrec(rep(m, 2), Om)))\n",
			"MvNormalPrec: precision matrix Om (data from Om.csv) is not positive definite (leading minor 2)"},
		{"MultiStudentT", "Y ~ MultiStudentT(4, rep(m, 2), Om)\n", "target += sum(logpdf(Y, MultiStudentT(4, rep(m, 2), Om)))\n",
			"MultiStudentT: scale matrix Om (data from Om.csv) is not positive definite (leading minor 2)"},
		{"Dirichlet", "P ~ Dirichlet(exp(m))\n", "target += sum(logpdf(P, Dirichlet(exp(m))))\n",
			"log: argument -0.1 < 0 (element [1, 1]); the argument is P's at P.csv"},
	} {
		for _, src := range []string{c.tilde, c.lp} {
			want := fmt.Sprintf("m.gpp:5:%d: %s", strings.Index(src, c.fam)+1, c.want) // at the family's name
			m, err := compileSrcErr(t, "m.gpp", head+src, nil, y, om, pm)
			if err == nil {
				_, err = m.LogJoint(make([]float64, m.Dim), make([]float64, m.Dim))
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s: error %v, want %q", strings.TrimSpace(src), err, want)
			}
		}
	}
}
