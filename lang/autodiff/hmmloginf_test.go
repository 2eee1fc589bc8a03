package autodiff

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// TestHMMMarginalLogZeroEmission: an emission of probability 0, log1m(y)
// of data at y = 1 (a dead animal is never seen), is −Inf in log_omega
// and a value, not an error: hmm_marginal's value is the sum over the
// paths that avoid it (hmmRef), and its gradient in the finite entries
// is the central differences', 0 in the −Inf ones, in a clone and a
// profile too. The same log 0 that
// reaches the log joint through a sum, or through exp(x · log 0), is an
// error at the log1m.
func TestHMMMarginalLogZeroEmission(t *testing.T) {
	const n, k = 5, 2
	y := []float64{0, 0, 0, 1, 0, 0, 0, 0, 0, 1} // column 1 only: state 1 cannot emit at rows 1 and 4
	x := []float64{-0.3, -1.2, -2, 0.4, -0.7, -0.1, -1.5, 0.2, -0.6, -0.9}
	gamma, rho := []float64{0.7, 0.3, 0.1, 0.9}, []float64{0.6, 0.4}
	b := NewBuilder()
	lo := b.Add(b.Input("x", Matrix(n, k), testPos), b.Unary(OpLog1m, b.Const(y, Matrix(n, k), testPos), testPos), testPos)
	p, err := b.Finish(b.HMMMarginal(lo, b.Const(gamma, Matrix(k, k), testPos), b.Const(rho, Vector(k), testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, len(x))
	got, err := p.LogJoint(x, g)
	if err != nil {
		t.Fatal(err)
	}
	ref := func(x []float64) float64 {
		l := make([]float64, len(x))
		for i := range x {
			l[i] = x[i] + math.Log1p(-y[i])
		}
		return hmmRef(l, n, k, gamma, rho)
	}
	if want := ref(x); math.IsInf(want, 0) || math.Abs(got-want) > 1e-13*math.Abs(want) {
		t.Errorf("value %v, want %v", got, want)
	}
	if c, err := p.Clone().LogJoint(x, make([]float64, len(x))); c != got || err != nil {
		t.Errorf("clone: %v, %v; want %v", c, err, got)
	}
	if _, err := p.Profile(x, 2); err != nil { // gpp fit --profile goes past the log 0 too
		t.Errorf("profile: %v", err)
	}
	want := fd.Gradient(nil, ref, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	for i := range g {
		if math.IsInf(g[i], 0) || math.IsNaN(g[i]) || math.Abs(g[i]-want[i]) > 1e-7 {
			t.Errorf("grad[%d] = %v, central differences %v", i, g[i], want[i])
		}
	}
	for _, i := range []int{3, 9} {
		if g[i] != 0 {
			t.Errorf("grad[%d] (an impossible emission) = %v, want 0", i, g[i])
		}
	}

	// exp(x · log 0) would have a NaN gradient in x: still an error.
	b = NewBuilder()
	e := b.Sum(b.Exp(b.Mul(b.Input("x", Matrix(n, k), testPos), b.Unary(OpLog1m, b.Const(y, Matrix(n, k), at(2, 5)), at(2, 5)), testPos), testPos), testPos)
	xp := make([]float64, len(x)) // x > 0: exp(x · −Inf) is a finite 0
	for i, v := range x {
		xp[i] = math.Abs(v)
	}
	if p, err = b.Finish(e); err == nil {
		_, err = p.Forward(xp) // the value alone, as the ELBO's estimates ask
	}
	if err == nil || !strings.Contains(err.Error(), "2:5") || !strings.Contains(err.Error(), "log1m") {
		t.Errorf("exp(x * log 0 of data): error %v, want log1m's at 2:5", err)
	}

	b = NewBuilder()
	sum := b.Add(b.Sum(b.Input("x", Matrix(n, k), testPos), testPos), b.Sum(b.Unary(OpLog1m, b.Const(y, Matrix(n, k), at(3, 9)), at(3, 9)), testPos), testPos)
	if _, err := b.Finish(sum); err == nil || !strings.Contains(err.Error(), "3:9") || !strings.Contains(err.Error(), "log1m") {
		t.Errorf("log 0 of data summed into the log joint: error %v, want log1m's at 3:9", err)
	}
}
