package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// mixedProgram builds a non-trivial program: matmul, gather, densities,
// Cholesky, solve, logdet and the fused ops (Gaussian rows, row-product
// sums, prepared densities), with outputs of comparisons and logical ops.
func mixedProgram(t testing.TB) (*Program, []float64) {
	const n, k, m = 6, 3, 8
	r := rand.New(rand.NewPCG(11, 12))
	randn := func(l int) []float64 {
		v := make([]float64, l)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return v
	}
	b := NewBuilder()
	w := b.Input("W", Matrix(n, k), testPos)
	mu := b.Input("mu", Vector(n), testPos)
	logSigma := b.Input("log_sigma", Scalar(), testPos)
	y := b.Const(randn(m*n), Matrix(m, n), testPos)
	yt := b.Transpose(y, testPos)
	c := b.Add(b.MatMul(w, b.Transpose(w, testPos), testPos), b.Identity(n, testPos), testPos)
	quad := b.Sum(b.Mul(yt, b.Solve(c, yt, testPos), testPos), testPos)
	gauss := b.Sub(b.Mul(b.Scalar(-0.5, testPos), quad, testPos), b.Mul(b.Scalar(m/2.0, testPos), b.LogDet(c, testPos), testPos), testPos)
	rows := b.GaussRowsSS(c, b.MatMul(yt, y, testPos), m, testPos)
	idx := []int{0, 5, 5, 2, 1, 0, 3}
	obs := b.Const(randn(len(idx)), Vector(len(idx)), testPos)
	lik := b.Density(testNormal, obs, []ID{b.Gather(mu, idx, testPos), b.Exp(logSigma, testPos)}, testPos)
	prior := b.Density(testNormal, w, []ID{b.Scalar(0, testPos), b.Scalar(1, testPos)}, testPos)
	wg := b.Gather(w, []int{1, 1, 4}, testPos)
	prior2 := b.Density(testGamma, b.Exp(wg, testPos), []ID{b.Scalar(2, testPos), b.Scalar(1, testPos)}, testPos)
	root := b.Add(b.Add(b.Add(gauss, rows, testPos), b.Add(lik, prior, testPos), testPos), prior2, testPos)
	// The fused ops: a row-product sum of gathered rows, and a prepared
	// density with its arguments shared along the rows.
	rt := b.Transpose(b.Exp(b.Slice(mu, 0, k, testPos), testPos), testPos)
	rate := b.RowSumProd(b.Gather(w, []int{0, 2, 5, 2}, testPos), b.Gather(w, []int{1, 1, 4, 2}, testPos), rt, testPos)
	prior3 := b.DensityPrepared(testGamma, gammaPrepared{}, b.Exp(w, testPos), []ID{b.Exp(mu, testPos), b.Scalar(2, testPos)}, testPos)
	// A log-scale prepared density reading exp(W) from prior3's value.
	prior4 := b.DensityPrepared(testGammaLog, gammaLogPrepared{}, w, []ID{b.Exp(mu, testPos), b.Scalar(2, testPos)}, testPos)
	root = b.Add(root, b.Add(b.Sum(rate, testPos), b.Add(prior3, prior4, testPos), testPos), testPos)
	// Outputs of step nodes, evaluated at every Forward beside the log
	// joint: W > exp(mu[0:k])' broadcast, !(mu > 0) && (mu < 1), and their mean.
	gt := b.Logical(OpGt, w, rt, testPos)
	muPos := b.Logical(OpGt, mu, b.Scalar(0, testPos), testPos)
	band := b.Logical(OpAnd, b.Not(muPos, testPos), b.Logical(OpLt, mu, b.Scalar(1, testPos), testPos), testPos)
	p, err := b.Finish(root, gt, band, b.Mean(band, testPos))
	if err != nil {
		t.Fatal(err)
	}
	return p, randn(p.Dim())
}

func TestZeroAllocs(t *testing.T) {
	p, x := mixedProgram(t)
	var fused []string
	for i := range p.nodes {
		switch n := &p.nodes[i]; {
		case !n.live:
		case n.op == OpRowSumProd && n.sumOf > 0:
			fused = append(fused, "summed-rowsumprod")
		case n.op == OpRowSumProd:
			fused = append(fused, "rowsumprod")
		case n.op == OpDensity && n.prep != nil && n.expOf > 0:
			fused = append(fused, "prepared-log")
		case n.op == OpDensity && n.prep != nil:
			fused = append(fused, "prepared")
		}
	}
	if !slices.Equal(fused, []string{"prepared", "prepared-log", "summed-rowsumprod"}) {
		t.Errorf("mixed program has fused nodes %v, want prepared, prepared-log and summed-rowsumprod", fused)
	}
	wantZeroAllocs(t, p, x)
}

// The whole mixed program's gradient against finite differences.
func TestGradMixedProgram(t *testing.T) {
	p, x := mixedProgram(t)
	grad := make([]float64, p.Dim())
	if _, err := p.LogJoint(x, grad); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		const h = 1e-6
		xp := append([]float64(nil), x...)
		xp[i] += h
		fp, _ := p.Forward(xp)
		xp[i] -= 2 * h
		fm, _ := p.Forward(xp)
		want := (fp - fm) / (2 * h)
		if math.Abs(grad[i]-want) > 1e-5*max(1, math.Abs(want)) {
			t.Errorf("grad[%d] = %.10g, fd %.10g", i, grad[i], want)
		}
	}
}

func TestHoisting(t *testing.T) {
	const n, d = 5, 3
	b := NewBuilder()
	y := b.Const([]float64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, Matrix(n, d), testPos)
	yc := b.Sub(y, b.Scalar(1, testPos), testPos) // data only
	yt := b.Transpose(yc, testPos)                // folded into the product: dropped
	s := b.MatMul(yt, yc, testPos)                // data only: Y'Y
	c := b.Input("C", Matrix(d, d), testPos)
	lp := b.GaussRowsSS(c, s, n, testPos)
	unused := b.Exp(c, testPos) // not needed by the root: never evaluated
	p, err := b.Finish(lp)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Value(s)[0], 1.0+16+49+100+169; got != want {
		t.Errorf("Y'Y[0, 0] = %v after Finish, want %v", got, want)
	}
	x := []float64{2, 0.5, 0, 0.5, 2, 0.5, 0, 0.5, 2}
	grad := make([]float64, p.Dim())
	const calls = 10
	for range calls {
		if _, err := p.LogJoint(x, grad); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		id   ID
		want int
	}{{"Y - 1", yc, 1}, {"Y'Y", s, 1}, {"Y", y, 0}, {"folded Y'", yt, 0}, {"log density", lp, calls}, {"unused", unused, 0}} {
		if got := p.Evals(c.id); got != c.want {
			t.Errorf("%s evaluated %d times, want %d", c.name, got, c.want)
		}
	}
}

// LogDet and Solve of the same matrix share one factorisation.
func TestCholShared(t *testing.T) {
	b := NewBuilder()
	a := b.Input("A", Matrix(2, 2), testPos)
	l1, l2 := b.Chol(a, testPos), b.Chol(a, testPos)
	if l1 != l2 {
		t.Fatalf("Chol of one node built twice")
	}
	root := b.Add(b.LogDet(a, testPos), b.Sum(b.Solve(a, b.Const([]float64{1, 2}, Vector(2), testPos), testPos), testPos), testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Forward([]float64{2, 1, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if p.Evals(l1) != 1 {
		t.Errorf("chol evaluated %d times per call, want 1", p.Evals(l1))
	}
	// det = 3; A⁻¹ [1 2]' = [0 1]'.
	if got, want := p.Value(root)[0], math.Log(3)+1; math.Abs(got-want) > 1e-15 {
		t.Errorf("logdet + sum(solve) = %v, want %v", got, want)
	}
}

// Large products go through gemm's tiling and must not allocate either.
func TestLargeMatMulNoAllocs(t *testing.T) {
	const n = 300
	b := NewBuilder()
	x := b.Input("X", Matrix(n, n), testPos)
	p, err := b.Finish(b.Sum(b.MatMul(x, x, testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, n*n)
	for i := range v {
		v[i] = float64(i%7) / 7
	}
	grad := make([]float64, n*n)
	p.LogJoint(v, grad)
	if a := testing.AllocsPerRun(3, func() { p.LogJoint(v, grad) }); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
	// d sum(X X)/dX = 1 X' + X' 1, check one entry.
	// ∂/∂X[1, 0] of Σ_ij (X X)_ij = Σ_k X[0, k] + Σ_k X[k, 1].
	want := 0.0
	for k := 0; k < n; k++ {
		want += v[0*n+k] + v[k*n+1]
	}
	if math.Abs(grad[1*n+0]-want) > 1e-9*math.Abs(want) {
		t.Errorf("grad[1, 0] = %v, want %v", grad[1*n+0], want)
	}
}

func TestFirstBad(t *testing.T) {
	for n := 0; n < 11; n++ {
		v := make([]float64, n)
		if got := firstBad(v); got != -1 {
			t.Errorf("len %d finite: got %d", n, got)
		}
		for k := 0; k < n; k++ {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				v[k] = bad
				if got := firstBad(v); got != k {
					t.Errorf("len %d, %v at %d: got %d", n, bad, k, got)
				}
				v[k] = 0
			}
		}
	}
}

// Finish keeps extra outputs (generated quantities) evaluated beside the
// log joint; other nodes off the root's path are dropped.
func TestKeepOutputs(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(2), testPos)
	out := b.Exp(x, testPos)
	dropped := b.Log(x, testPos)
	p, err := b.Finish(b.Sum(b.Square(x, testPos), testPos), out)
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float64, 2)
	lp, err := p.LogJoint([]float64{1, 2}, grad)
	if err != nil || lp != 5 || grad[0] != 2 || grad[1] != 4 {
		t.Fatalf("got %v %v %v", lp, grad, err)
	}
	if v := p.Value(out); v[0] != math.E || v[1] != math.Exp(2) {
		t.Errorf("kept output = %v", v)
	}
	defer func() {
		if r := recover(); r != errNotLive {
			t.Errorf("Value of a dropped node: panic %v, want %q", r, errNotLive)
		}
	}()
	p.Value(dropped)
}

// A node that only kept nodes read (an output) and is not finite does not
// stop Forward: the log joint, its gradient and the other kept nodes are
// computed, the node keeps its value and OutputErr explains it; a failed
// op among them gives NaN. A data-only one does not fail Finish either.
func TestOutputNotFinite(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(2), at(1, 1))
	root := b.Sum(b.Square(x, at(2, 1)), at(2, 5))
	logx := b.Log(x, at(3, 8))                                                                                         // NaN where x < 0
	chol := b.Chol(b.Mul(b.Const([]float64{-1}, Matrix(1, 1), at(4, 3)), b.Outer(x, x, at(4, 9)), at(4, 7)), at(4, 1)) // not PD
	twice := b.Mul(x, b.Scalar(2, at(5, 3)), at(5, 1))
	dataLog := b.Log(b.Scalar(-1, at(6, 9)), at(6, 5)) // data only
	p, err := b.Finish(root, logx, chol, twice, dataLog)
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{-2, 3}
	g := make([]float64, 2)
	v, err := p.LogJoint(xs, g)
	if err != nil {
		t.Fatal(err)
	}
	if v != 13 || g[0] != -4 || g[1] != 6 {
		t.Errorf("log joint %v, gradient %v; want 13, [-4 6]", v, g)
	}
	if l := p.Value(logx); !math.IsNaN(l[0]) || l[1] != math.Log(3) {
		t.Errorf("log(x) = %v", l)
	}
	if c := p.Value(chol); !math.IsNaN(c[0]) {
		t.Errorf("failed chol = %v, want NaN", c)
	}
	if tw := p.Value(twice); tw[0] != -4 || tw[1] != 6 {
		t.Errorf("2x = %v", tw)
	}
	if err, want := p.OutputErr(), "model.gpp:6:5:"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("OutputErr %v, want the data-only log at %s", err, want)
	}
	// Without the data-only one, the first failing node of the pass.
	b2 := NewBuilder()
	x2 := b2.Input("x", Vector(2), at(1, 1))
	lx2 := b2.Log(x2, at(3, 8))
	p2, err := b2.Finish(b2.Sum(b2.Square(x2, at(2, 1)), at(2, 5)), lx2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Forward(xs); err != nil {
		t.Fatal(err)
	}
	if err, want := p2.OutputErr(), "model.gpp:3:8: log: argument -2 < 0"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("OutputErr %v, want %q", err, want)
	}
	if _, err := p2.Forward([]float64{1, 2}); err != nil || p2.OutputErr() != nil {
		t.Errorf("all finite: %v, %v", err, p2.OutputErr())
	}
}

// TestForwardAll: past a failing node of the log joint, ForwardAll still
// computes the kept nodes; those that read the failure are NaN, the others
// exact. Forward stops there.
func TestForwardAll(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(2), at(1, 1))
	logx := b.Log(x, at(2, 8)) // fails where x < 0
	root := b.Sum(logx, at(2, 1))
	twice := b.Mul(x, b.Scalar(2, at(3, 3)), at(3, 1))      // does not read log(x)
	shifted := b.Add(logx, b.Scalar(1, at(4, 3)), at(4, 1)) // does
	data := b.Exp(b.Scalar(0, at(5, 5)), at(5, 1))          // data only
	p, err := b.Finish(root, twice, shifted, data)
	if err != nil {
		t.Fatal(err)
	}
	const want = "model.gpp:2:8: log: argument -2 < 0"
	lp, err := p.ForwardAll([]float64{-2, 3})
	if err == nil || !strings.HasPrefix(err.Error(), want) || !math.IsNaN(lp) {
		t.Fatalf("ForwardAll: %v, %v; want NaN, %q", lp, err, want)
	}
	if tw := p.Value(twice); tw[0] != -4 || tw[1] != 6 {
		t.Errorf("2x = %v, want [-4 6]", tw)
	}
	if sh := p.Value(shifted); !math.IsNaN(sh[0]) || sh[1] != math.Log(3)+1 {
		t.Errorf("log(x) + 1 = %v, want [NaN log(3)+1]", sh)
	}
	if d := p.Value(data); d[0] != 1 {
		t.Errorf("exp(0) = %v", d)
	}
	if lp, err := p.ForwardAll([]float64{1, 1}); err != nil || lp != 0 {
		t.Errorf("all finite: %v, %v", lp, err)
	}
	if sh := p.Value(shifted); sh[0] != 1 || sh[1] != 1 {
		t.Errorf("log(x) + 1 = %v, want [1 1]", sh)
	}
	if _, err := p.Forward([]float64{-2, 3}); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Forward: %v, want %q", err, want)
	}
}

// wantZeroAllocs fails t unless a steady-state Forward+Backward of p at x
// makes no allocations (after one warm-up call).
func wantZeroAllocs(t *testing.T, p *Program, x []float64) {
	t.Helper()
	grad := make([]float64, p.Dim())
	if _, err := p.LogJoint(x, grad); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := p.LogJoint(x, grad); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Forward+Backward allocates %v times per call, want 0", allocs)
	}
}
