package compile

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// splitTol is the relative tolerance of the split's two parts against
// the log joint and against hand-written densities (sums in another order).
const splitTol = 1e-10

// coordJacobian is the sum of the constant log Jacobians that the log
// joint adds for bounded params (a loc + scale·b map): what the split
// leaves out of both parts. The models tested have no matrix params.
func coordJacobian(m *Model) float64 {
	jac := 0.0
	for _, l := range m.Latents {
		switch {
		case l.ScaleV != nil:
			for _, s := range l.ScaleV {
				jac += math.Log(math.Abs(s))
			}
		case l.Scale != 0:
			jac += float64(l.Size) * math.Log(math.Abs(l.Scale))
		}
	}
	return jac
}

// normalLog is the log density of Normal(mu, sd) at x, written out.
func normalLog(x, mu, sd float64) float64 {
	return -0.5*math.Log(2*math.Pi) - math.Log(sd) - 0.5*(x-mu)*(x-mu)/(sd*sd)
}

// checkSplitSum checks log prior + log likelihood = log joint − the
// coordinates' log Jacobian at random points near 0.
func checkSplitSum(t *testing.T, m *Model, seed uint64) {
	t.Helper()
	s, err := m.NewSplit(Selection{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, m.Dim)
	jac := coordJacobian(m)
	for trial := range 5 {
		for i := range x {
			x[i] = 0.5 * rng.NormFloat64()
		}
		lj, err := m.LogJointValue(x)
		if err != nil {
			t.Fatal(err)
		}
		lp, ll, err := s.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(lp + ll + jac - lj); d > splitTol*math.Max(1, math.Abs(lj)) {
			t.Errorf("trial %d: log prior %.12g + log lik %.12g + Jacobian %.6g = %.12g, log joint %.12g", trial, lp, ll, jac, lp+ll+jac, lj)
		}
		if lp == 0 || ll == 0 {
			t.Errorf("trial %d: log prior %g, log lik %g: a part is empty", trial, lp, ll)
		}
	}
}

func readCSVInput(t *testing.T, path string) data.Input {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := data.ReadCSV(filepath.Base(path), f)
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: filepath.Base(path), Table: tab}
}

// TestSplitExamples: the split adds up to the log joint on bundled models,
// with ~ priors, target += on data (survival, mixture), a target += prior
// on params (sv) and ordered and simplex params.
func TestSplitExamples(t *testing.T) {
	for _, c := range []struct{ model, data string }{
		{"regression.gpp", "wine_std.csv"},
		{"seeds.gpp", "seeds.csv"},
		{"survival.gpp", "survival.csv"},
		{"mixture.gpp", "wine_std.csv"},
		{"ordinal.gpp", "ordinal.csv"},
		{"sv.gpp", "sv.csv"},
	} {
		t.Run(c.model, func(t *testing.T) {
			m := compileFile(t, filepath.Join("../../examples", c.model), nil, readCSVInput(t, filepath.Join("../../examples", c.data)))
			checkSplitSum(t, m, 1)
		})
	}
	t.Run("eight_schools", func(t *testing.T) {
		checkSplitSum(t, posteriordbModel(t, "eight_schools_noncentered.gpp", "eight_schools-eight_schools_noncentered"), 2)
	})
}

// splitModel has element-wise priors in a loop, a hierarchical prior, a
// target += on params only (a prior), a bounded param (whose Jacobian is
// in neither part) and a likelihood indexed by data in a loop.
const splitModel = `
data y: real[N]
data g: int<lower=0>[N]
param mu: real ~ Normal(0, 10)
param tau: positive ~ HalfNormal(1)
param theta: real[3]
param s: real<lower=1, upper=3> ~ Uniform(1, 3)
for j in 0:3 {
  theta[j] ~ Normal(mu, tau)
}
target += -0.5 * square(mu - 1)
for i in 0:N {
  y[i] ~ Normal(theta[g[i]], s)
}
`

// splitModelData compiles splitModel on five rows of y and g, returned.
func splitModelData(t *testing.T) (m *Model, y []float64, g []int) {
	y = []float64{0.3, -1.2, 2.5, 0.7, 1.1}
	g = []int{0, 1, 2, 0, 2}
	rows := make([][]float64, len(y))
	for i := range y {
		rows[i] = []float64{y[i], float64(g[i])}
	}
	return compileSrc(t, "split.gpp", splitModel, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "y,g", rows)}), y, g
}

// TestSplitByHand checks each part of splitModel against its densities
// written out: a ~ on an element of a param and a target += of params
// count as prior, a ~ on data as likelihood.
func TestSplitByHand(t *testing.T) {
	m, y, g := splitModelData(t)
	s, err := m.NewSplit(Selection{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, m.Dim)
	for trial := range 5 {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		// coordinates: mu, log tau, theta[0..2], logit b with s = 1 + 2b
		mu, tau := x[0], math.Exp(x[1])
		theta := x[2:5]
		sv := 1 + 2/(1+math.Exp(-x[5]))
		wantPrior := normalLog(mu, 0, 10) + math.Log(2) + normalLog(tau, 0, 1) + math.Log(0.5) - 0.5*(mu-1)*(mu-1)
		for _, th := range theta {
			wantPrior += normalLog(th, mu, tau)
		}
		wantLik := 0.0
		for i := range y {
			wantLik += normalLog(y[i], theta[g[i]], sv)
		}
		lp, ll, err := s.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lp-wantPrior) > splitTol*math.Max(1, math.Abs(wantPrior)) {
			t.Errorf("trial %d: log prior %.12g, want %.12g", trial, lp, wantPrior)
		}
		if math.Abs(ll-wantLik) > splitTol*math.Max(1, math.Abs(wantLik)) {
			t.Errorf("trial %d: log lik %.12g, want %.12g", trial, ll, wantLik)
		}
	}
	checkSplitSum(t, m, 5)
}

// TestSplitMissingTruncated: the missing values of data and a truncated ~
// on data are the likelihood's (their normaliser too); the prior is the
// params' ~ alone.
func TestSplitMissingTruncated(t *testing.T) {
	src := "data y: real[N]\ndata z: real[M]\nparam m: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\ny ~ Normal(m, s)\nz ~ Normal(m, s) T[0, ]\noutput y2 = y\n" // the output keeps y_missing fitted
	m := compileSrc(t, "m.gpp", src, nil, jsonData(t, `{"y": [0.3, null, 1.2], "z": [0.5, 2.0]}`))
	if m.Dim != 3 {
		t.Fatalf("dim %d, want m, s and one missing value", m.Dim)
	}
	s, err := m.NewSplit(Selection{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{0.2, -0.3, 1.7}, {-1, 0.5, 0.01}} {
		mu, sd := x[0], math.Exp(x[1])
		wantPrior := normalLog(mu, 0, 1) + 2*math.Log(2) + math.Log(sd) - 2*sd
		wantLik := normalLog(0.3, mu, sd) + normalLog(x[2], mu, sd) + normalLog(1.2, mu, sd)
		for _, z := range []float64{0.5, 2.0} {
			// log P(Z > 0) = log Φ(mu/sd)
			wantLik += normalLog(z, mu, sd) - math.Log(0.5*math.Erfc(-mu/sd/math.Sqrt2))
		}
		lp, ll, err := s.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lp-wantPrior) > splitTol*math.Max(1, math.Abs(wantPrior)) || math.Abs(ll-wantLik) > splitTol*math.Max(1, math.Abs(wantLik)) {
			t.Errorf("at %v: log prior %.12g, log lik %.12g; want %.12g, %.12g", x, lp, ll, wantPrior, wantLik)
		}
	}
	checkSplitSum(t, m, 9)
}

// TestSplitSelection: --prior mu,tau keeps the priors of mu and tau and the
// target += of mu, not theta's population prior theta[j] ~ Normal(mu, tau)
// (a prior of theta, whatever its arguments read) nor s's; --likelihood z
// keeps z's terms (its truncation's normaliser too), not y's nor the
// missing value's; a name that no term of the part belongs to is an error.
func TestSplitSelection(t *testing.T) {
	m, _, _ := splitModelData(t)
	s, err := m.NewSplit(Selection{Prior: []string{"mu", "tau"}})
	if err != nil {
		t.Fatal(err)
	}
	all, err := m.NewSplit(Selection{})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.4, -0.3, 0.2, -0.5, 1.1, 0.3}
	mu, tau := x[0], math.Exp(x[1])
	want := normalLog(mu, 0, 10) + math.Log(2) + normalLog(tau, 0, 1) - 0.5*(mu-1)*(mu-1) // not s's Uniform(1, 3)
	lp, ll, err := s.Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	_, llAll, _ := all.Eval(x)
	if math.Abs(lp-want) > splitTol*math.Abs(want) || ll != llAll {
		t.Errorf("--prior mu,tau: log prior %.12g, log lik %.12g; want %.12g, %.12g", lp, ll, want, llAll)
	}

	src := "data y: real[N]\ndata z: real[M]\nparam m: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\ny ~ Normal(m, s)\nz ~ Normal(m, s) T[0, ]\noutput y2 = y\n" // the output keeps y_missing fitted
	mt := compileSrc(t, "m.gpp", src, nil, jsonData(t, `{"y": [0.3, null, 1.2], "z": [0.5, 2.0]}`))
	sz, err := mt.NewSplit(Selection{Likelihood: []string{"z"}})
	if err != nil {
		t.Fatal(err)
	}
	allT, err := mt.NewSplit(Selection{})
	if err != nil {
		t.Fatal(err)
	}
	xt := []float64{0.2, -0.3, 1.7}
	ms, sd := xt[0], math.Exp(xt[1])
	wantZ := 0.0
	for _, z := range []float64{0.5, 2.0} {
		wantZ += normalLog(z, ms, sd) - math.Log(0.5*math.Erfc(-ms/sd/math.Sqrt2))
	}
	lpz, llz, err := sz.Eval(xt)
	if err != nil {
		t.Fatal(err)
	}
	lpAll, _, _ := allT.Eval(xt)
	if math.Abs(llz-wantZ) > splitTol*math.Abs(wantZ) || lpz != lpAll {
		t.Errorf("--likelihood z: log prior %.12g, log lik %.12g; want %.12g, %.12g", lpz, llz, lpAll, wantZ)
	}

	for _, c := range []struct {
		m    *Model
		sel  Selection
		want string
	}{
		{m, Selection{Prior: []string{"mu", "g"}}, "--prior g: not a param with a prior term (those are mu, tau, s, theta)"},
		{m, Selection{Likelihood: []string{"mu"}}, "--likelihood mu: not a data name with a likelihood term (those are y)"},
		{mt, Selection{Likelihood: []string{"N"}}, "--likelihood N: not a data name with a likelihood term (those are y, z)"},
	} {
		if _, err := c.m.NewSplit(c.sel); err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %q", c.sel, err, c.want)
		}
	}
	// PriorOwners lists the names the error lists, in source order
	if got, want := m.PriorOwners(), []string{"mu", "tau", "s", "theta"}; !slices.Equal(got, want) {
		t.Errorf("PriorOwners %q, want %q", got, want)
	}
}

// TestSplitExpressionLHS: a ~ on an expression of params that reads no
// data is a prior of the params it reads (log(s) ~ D, and the soft
// sum-to-zero constraint sum(th) ~ D whose scale reads the size N), as a ~
// on a let of them is; a ~ on a constant is a prior when its distribution
// reads params alone (0 ~ Normal(th[0] + 2·th[1], 0.5)) and the likelihood
// when it reads data; a ~ whose left side reads data is the likelihood.
func TestSplitExpressionLHS(t *testing.T) {
	src := "data y: real[N]\nparam th: real[2]\nparam s: positive\nlog(s) ~ Normal(0, 1)\nsum(th) ~ Normal(0, 0.01 * N)\ntarget += logpdf(th[0] - th[1], Normal(0, 0.1 * N))\n0 ~ Normal(th[0] + 2 * th[1], 0.5)\n0 ~ Normal(y[1] - th[1], 2)\ny - th[0] ~ Normal(th[1], s)\n"
	y := []float64{0.3, -0.4, 0.9}
	m := compileSrc(t, "e.gpp", src, nil, jsonData(t, `{"y": [0.3, -0.4, 0.9]}`))
	splits := map[string]*Split{}
	for _, sel := range []Selection{{}, {Prior: []string{"th"}}, {Prior: []string{"s"}}} {
		s, err := m.NewSplit(sel)
		if err != nil {
			t.Fatal(err)
		}
		splits[strings.Join(sel.Prior, ",")] = s
	}
	for _, x := range [][]float64{{0.2, -0.3, 0.4}, {-1, 0.05, -0.7}} {
		th0, th1, sd := x[0], x[1], math.Exp(x[2])
		// N is a size, not data; 0 ~ D(params) is a prior, 0 ~ D(data) a likelihood term.
		priorS := normalLog(x[2], 0, 1)
		priorTh := normalLog(th0+th1, 0, 0.01*3) + normalLog(th0-th1, 0, 0.1*3) + normalLog(0, th0+2*th1, 0.5)
		wantLik := normalLog(0, y[1]-th1, 2)
		for _, v := range y {
			wantLik += normalLog(v-th0, th1, sd)
		}
		for sel, want := range map[string]float64{"": priorS + priorTh, "th": priorTh, "s": priorS} {
			lp, ll, err := splits[sel].Eval(x)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(lp-want) > splitTol*math.Max(1, math.Abs(want)) || math.Abs(ll-wantLik) > splitTol*math.Max(1, math.Abs(wantLik)) {
				t.Errorf("--prior %q at %v: log prior %.12g, log lik %.12g; want %.12g, %.12g", sel, x, lp, ll, want, wantLik)
			}
		}
	}
	checkSplitSum(t, m, 11)
}
