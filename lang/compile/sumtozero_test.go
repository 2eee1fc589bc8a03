package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// A sum_to_zero_vector[K] param has K−1 coordinates and the K values of
// dist.SumToZeroValues, summing to zero; its declared Normal prior is the
// elementwise density at those values with no Jacobian (Stan's phi ~
// normal(0, s)), and the hand-written ICAR term of a ring reads them
// through a gather; the gradient matches finite differences.
func TestSumToZeroParam(t *testing.T) {
	const src = `data node1: int[E]
data node2: int[E]
param phi: sum_to_zero_vector[4] ~ Normal(0, 2)
target += -0.5 * dot_self(phi[node1] - phi[node2])
output v = phi
`
	rows := [][]float64{{0, 1}, {1, 2}, {2, 3}, {3, 0}}
	m := compileSrc(t, "stz.gpp", src, nil, data.Input{File: "g.csv", Table: csvTable(t, "g.csv", "node1,node2", rows)})
	if l := m.Latents[0]; l.Support != dist.SumToZero || l.Size != 3 || l.Family != "normal" || len(l.Value) != 1 || l.Value[0] != 4 {
		t.Fatalf("latent phi: %+v", l)
	}
	y := []float64{0.3, -1.2, 0.7}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	lp, outs, err := ev.Eval(y)
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float64, 4)
	dist.SumToZeroValues(z, y)
	sum, ref := 0.0, 0.0
	for k, v := range outs[0] {
		if v != z[k] {
			t.Errorf("phi[%d] = %.17g, want %.17g", k, v, z[k])
		}
		sum += v
		ref += dist.Normal{Mu: 0, Sigma: 2}.LogProb(v)
	}
	if math.Abs(sum) > 1e-15 {
		t.Errorf("phi sums to %g", sum)
	}
	for i := range z {
		d := z[i] - z[(i+1)%4]
		ref -= 0.5 * d * d
	}
	if math.Abs(lp-ref) > 1e-12*math.Abs(ref) {
		t.Errorf("log joint %.17g, want %.17g", lp, ref)
	}
	checkGradient(t, m, 1, 1)
}

// A size the data give is checked at compile time: K = 1 is an error at
// the dimension.
func TestSumToZeroTooShort(t *testing.T) {
	const src = `data y: real[N]
param phi: sum_to_zero_vector[N] ~ Normal(0, 1)
y ~ Normal(phi, 1)
`
	_, err := compileSrcErr(t, "short.gpp", src, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "y", [][]float64{{0.5}})})
	if err == nil || !strings.Contains(err.Error(), "short.gpp:2:31: a sum_to_zero_vector needs at least 2 elements (one is the constant 0); `N` is 1") {
		t.Fatalf("got %v", err)
	}
}

// Prior draws of a sum_to_zero_vector[4] ~ Normal(3, 2): Stan's density
// restricted to the zero-sum plane, whose elements have mean 0 (the
// scalar mean drops out there) and variance 4·(K−1)/K = 3; each draw sums
// to zero. A prior other than a Normal of scalar arguments is refused.
func TestPriorDrawsSumToZero(t *testing.T) {
	m := compileSrc(t, "p.gpp", "param phi: sum_to_zero_vector[4] ~ Normal(3, 2)\noutput v = phi\n", nil)
	_, outs := priorDraws(t, m, 20000, 1)
	// a zero mean is a mean, not a scale that must be > 0
	priorDraws(t, compileSrc(t, "p0.gpp", "param phi: sum_to_zero_vector[4] ~ Normal(0, 2)\n", nil), 1, 1)
	for _, row := range outs {
		if s := row[0] + row[1] + row[2] + row[3]; math.Abs(s) > 1e-12 {
			t.Fatalf("a draw %v sums to %g", row, s)
		}
	}
	for k := range 4 {
		checkMoments(t, "phi element", column(outs, k), 0, 3)
	}
	// a sum_to_zero_matrix[3, 2]: variance 4·(1 − 1/3)(1 − 1/2) = 4/3
	mm := compileSrc(t, "pm.gpp", "param A: sum_to_zero_matrix[3, 2] ~ Normal(1, 2)\noutput v = A\n", nil)
	_, mouts := priorDraws(t, mm, 20000, 2)
	for k := range 6 {
		checkMoments(t, "A element", column(mouts, k), 0, 4.0/3)
	}
	for _, src := range []string{
		"param phi: sum_to_zero_vector[4] ~ StudentT(3, 0, 1)\n",
		"data m: real[4]\nparam phi: sum_to_zero_vector[4] ~ Normal(m, 1)\n",
	} {
		m := compileSrc(t, "p.gpp", src, nil, data.Input{File: "m.csv", Table: csvTable(t, "m.csv", "m", [][]float64{{1}, {2}, {3}, {4}})})
		if _, err := m.NewPriorSampler(); err == nil || !strings.Contains(err.Error(), "a sum_to_zero_vector param is drawn from a Normal prior with scalar arguments") {
			t.Errorf("%q: got %v", src, err)
		}
	}
}

// A sum_to_zero_matrix[3, 4] param has 2×3 coordinates and the 3×4 values
// of dist.SumToZeroMatrixValues, every row and column summing to zero; its
// Normal prior is the elementwise density at them with no Jacobian, and
// the gradient matches finite differences. M or N below 2 from the data
// is an error at the dimension.
func TestSumToZeroMatrixParam(t *testing.T) {
	const src = `param A: sum_to_zero_matrix[3, 4] ~ Normal(0, 1.5)
output v = A
`
	m := compileSrc(t, "stzm.gpp", src, nil)
	if l := m.Latents[0]; l.Support != dist.SumToZeroMatrix || l.Size != 6 || len(l.Shape) != 2 || l.Shape[0] != 2 || l.Shape[1] != 3 || len(l.Value) != 2 || l.Value[0] != 3 || l.Value[1] != 4 {
		t.Fatalf("latent A: %+v", l)
	}
	y := []float64{0.3, -1.2, 0.7, 2, -0.4, 0.1}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	lp, outs, err := ev.Eval(y)
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float64, 12)
	dist.SumToZeroMatrixValues(z, y, 3, 4)
	ref := 0.0
	var rows [3]float64
	var cols [4]float64
	for k, v := range outs[0] {
		if v != z[k] {
			t.Errorf("A element %d = %.17g, want %.17g", k, v, z[k])
		}
		rows[k/4] += v
		cols[k%4] += v
		ref += dist.Normal{Mu: 0, Sigma: 1.5}.LogProb(v)
	}
	for _, s := range append(rows[:], cols[:]...) {
		if math.Abs(s) > 1e-14 {
			t.Errorf("a row or column of A sums to %g", s)
		}
	}
	if math.Abs(lp-ref) > 1e-12*math.Abs(ref) {
		t.Errorf("log joint %.17g, want %.17g", lp, ref)
	}
	checkGradient(t, m, 1, 1)

	const short = "data y: real[M, N]\nparam A: sum_to_zero_matrix[M, N] ~ Normal(0, 1)\ny ~ Normal(A, 1)\n"
	_, err = compileSrcErr(t, "short.gpp", short, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "a,b", [][]float64{{0.5, 1}})})
	if err == nil || !strings.Contains(err.Error(), "short.gpp:2:29: a sum_to_zero_matrix needs at least 2 rows and 2 columns (one is the constant 0); `M` is 1") {
		t.Fatalf("got %v", err)
	}
}
