package compile

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the ODE model tests: solves at rel = abs = 1e-10 agree
// with closed forms to about 1e-9 (odeClosedTol, relative to max(1,
// |value|)); central differences of step 1e-5 of such solves carry an
// error of about 1e-10/1e-5 (odeGradTol).
const (
	odeClosedTol = 1e-7
	odeGradTol   = 1e-5
)

const lotkaVolterra = `fn lv(t, z, theta) {
  let u = z[0]
  let v = z[1]
  return [(theta[0] - theta[1] * v) * u, (-theta[2] + theta[3] * u) * v]
}
data ts: real[T]
data obs: real[T, 2]
param theta: positive[4] ~ LogNormal(-1, 1)
param z0: positive[2] ~ LogNormal(log(10), 1)
param sigma: positive ~ LogNormal(-1, 1)
let z = ode_rk45_tol(lv, z0, 0, ts, 1e-10, 1e-10, 100000, theta)
obs ~ LogNormal(log(z), sigma)
output z_hat = z
`

// lvData simulates Lotka–Volterra counts (Carpenter's hares and lynxes
// example, in miniature) with a plain RK4 of small steps and noise.
func lvData(t *testing.T, n int) data.Input {
	theta := []float64{0.55, 0.028, 0.8, 0.024}
	u, v := 33.0, 6.2
	rng := rand.New(rand.NewPCG(9, 9))
	rows := make([][]float64, n)
	const h = 1e-3
	tm := 0.0
	f := func(u, v float64) (float64, float64) {
		return (theta[0] - theta[1]*v) * u, (-theta[2] + theta[3]*u) * v
	}
	for i := range rows {
		for k := 0; k < 1000; k++ {
			a1, b1 := f(u, v)
			a2, b2 := f(u+h/2*a1, v+h/2*b1)
			a3, b3 := f(u+h/2*a2, v+h/2*b2)
			a4, b4 := f(u+h*a3, v+h*b3)
			u += h / 6 * (a1 + 2*a2 + 2*a3 + a4)
			v += h / 6 * (b1 + 2*b2 + 2*b3 + b4)
		}
		tm++
		rows[i] = []float64{tm, u * math.Exp(0.25*rng.NormFloat64()), v * math.Exp(0.25*rng.NormFloat64())}
	}
	return data.Input{File: "lv.csv", Table: csvTable(t, "lv.csv", "ts,obs.1,obs.2", rows)}
}

// TestODELotkaVolterraGradient checks the log joint's gradient of a
// Lotka–Volterra model (every param reaching the solve: y0 and theta)
// against central differences, at points around the simulated truth.
func TestODELotkaVolterraGradient(t *testing.T) {
	m := compileSrc(t, "lv.gpp", lotkaVolterra, nil, lvData(t, 20))
	// coordinates: log theta [4], log z0 [2], log sigma
	center := []float64{math.Log(0.55), math.Log(0.028), math.Log(0.8), math.Log(0.024), math.Log(33), math.Log(6.2), math.Log(0.25)}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, m.Dim)
	g := make([]float64, m.Dim)
	for trial := range 3 {
		for i := range x {
			x[i] = center[i] + 0.05*rng.NormFloat64()
		}
		if _, err := m.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
		f := func(x []float64) float64 {
			v, err := m.LogJoint(x, make([]float64, len(x)))
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-5})
		for i := range want {
			if d := math.Abs(g[i]-want[i]) / max(1, math.Abs(want[i])); d > odeGradTol {
				t.Errorf("trial %d: d/dx[%d] (%s) = %.10g, fd %.10g", trial, i, m.LatentOf(i), g[i], want[i])
			}
		}
	}
}

// TestODEDecayModel compares a model whose mean is an ODE's solution with
// the same model written with the closed form y0 exp(−k t), log joint and
// gradient, with y0 a param and the rate per component data times a
// param: data arguments pass through f as constants. It does so for
// ode_rk45_tol, ode_bdf at Stan's defaults and ode_bdf_tol. The value
// alone (LogJointValue) is LogJoint's bit for bit.
func TestODEDecayModel(t *testing.T) {
	const head = `data ts: real[T]
data obs: real[T, 2]
data w: real[2]
param y0: real[2] ~ Normal(0, 3)
param k: positive ~ Gamma(2, 2)
`
	closed := head + `let y = exp(-k * (ts - 0.5) * w') .* (rep(1, T) * y0')
obs ~ Normal(y, 0.3)
`
	rng := rand.New(rand.NewPCG(5, 5))
	rows := make([][]float64, 12)
	for i := range rows {
		ti := 0.5 + 0.4*float64(i+1)
		rows[i] = []float64{ti, 2*math.Exp(-0.7*ti) + 0.3*rng.NormFloat64(), -1*math.Exp(-1.4*ti) + 0.3*rng.NormFloat64()}
	}
	in := []data.Input{{File: "d.csv", Table: csvTable(t, "d.csv", "ts,obs.1,obs.2", rows)}, {File: "w.csv", Table: csvTable(t, "w.csv", "w", [][]float64{{1}, {2}})}}
	mc := compileSrc(t, "closed.gpp", closed, nil, in...)
	for _, call := range []string{"ode_rk45_tol(decay, y0, 0.5, ts, 1e-11, 1e-11, 100000, k, w)", "ode_bdf(decay, y0, 0.5, ts, k, w)", "ode_bdf_tol(decay, y0, 0.5, ts, 1e-11, 1e-11, 100000, k, w)"} {
		mo := compileSrc(t, "ode.gpp", head+"fn decay(t, y, k, w) = -k * w .* y\nlet y = "+call+"\nobs ~ Normal(y, 0.3)\n", nil, in...)
		go1, gc := make([]float64, mo.Dim), make([]float64, mc.Dim)
		for _, x := range randomPoints(3, 3, mo.Dim) {
			lo, err := mo.LogJoint(x, go1)
			if err != nil {
				t.Fatal(err)
			}
			lc, err := mc.LogJoint(x, gc)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := mo.LogJointValue(x); err != nil || math.Float64bits(v) != math.Float64bits(lo) {
				t.Errorf("%s at %v: LogJointValue %v (%v), LogJoint %v", call, x, v, err, lo)
			}
			if math.Abs(lo-lc) > odeClosedTol*max(1, math.Abs(lc)) {
				t.Errorf("%s at %v: log joint %.15g, %.15g closed form", call, x, lo, lc)
			}
			for i := range gc {
				if math.Abs(go1[i]-gc[i]) > odeClosedTol*max(1, math.Abs(gc[i])) {
					t.Errorf("%s at %v: gradient[%d] %.15g, %.15g closed form", call, x, i, go1[i], gc[i])
				}
			}
		}
	}
}

// TestODEInLoop solves one ODE per subject in a loop (a population
// pharmacokinetic model's shape) and compares it with the loop unrolled
// by hand.
func TestODEInLoop(t *testing.T) {
	const head = `fn one(t, y, ka, ke) = [-ka * y[0], ka * y[0] - ke * y[1]]
data ts: real[T]
data c: real[T, 2]
param ka: positive[2] ~ LogNormal(0, 0.5)
param ke: positive[2] ~ LogNormal(-1, 0.5)
`
	loop := head + `for i in 0:2 {
  c[:, i] ~ Normal(ode_rk45(one, [100, 0], 0, ts, ka[i], ke[i])[:, 1], 1)
}
`
	unrolled := head + `c[:, 0] ~ Normal(ode_rk45(one, [100, 0], 0, ts, ka[0], ke[0])[:, 1], 1)
c[:, 1] ~ Normal(ode_rk45(one, [100, 0], 0, ts, ka[1], ke[1])[:, 1], 1)
`
	rows := [][]float64{{0.5, 30, 25}, {1, 45, 40}, {2, 50, 52}, {4, 35, 40}, {8, 15, 20}}
	in := data.Input{File: "c.csv", Table: csvTable(t, "c.csv", "ts,c.1,c.2", rows)}
	ml := compileSrc(t, "loop.gpp", loop, nil, in)
	mu := compileSrc(t, "unrolled.gpp", unrolled, nil, in)
	sameAsUnrolled(t, ml, mu, randomPoints(4, 2, ml.Dim))
}

// TestODECompileErrors checks the errors found when the model compiles
// with its data, and a fit-time error in f's body.
func TestODECompileErrors(t *testing.T) {
	const decay = "fn f(t, y, k) = -k * y\n"
	for _, c := range []struct {
		name, src, csv, want string
	}{
		{"ts-order", decay + "data ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_rk45(f, [1], 0, ts, k)\ntarget += sum(y)\n",
			"ts\n1\n3\n2\n", "m.gpp:4:29: ode_rk45: the output times must be finite and increase from t0: ts[2] = 2 (ts at ts.csv:4:1) is not > ts[1] = 3"},
		{"ts-t0", decay + "data ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_rk45(f, [1], 1, ts, k)\ntarget += sum(y)\n",
			"ts\n1\n3\n", "m.gpp:4:29: ode_rk45: the output times must be finite and increase from t0: ts[0] = 1 (ts at ts.csv:2:1) is not > t0 = 1"},
		{"result-length", "fn g(t, y, a) = -a\ndata ts: real[T]\ndata y0: real[D]\nparam a: real[3] ~ Normal(0, 1)\nlet y = ode_rk45(g, y0, 0, ts, a)\ntarget += sum(y)\n",
			"ts,y0\n1,1\n2,2\n", "m.gpp:5:18: the right-hand side returns [3]; it must be a vector [2], as long as y (in the right-hand side g of ode_rk45 at m.gpp:5:9)"},
		{"tol", decay + "data ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_rk45_tol(f, [1], 0, ts, 0, 1e-6, 100, k)\ntarget += sum(y)\n",
			"ts\n1\n", "m.gpp:4:37: ode_rk45_tol: rel_tol is 0; it must be finite and > 0"},
		{"bdf-rel", decay + "data ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_bdf_tol(f, [1], 0, ts, -1e-6, 1e-6, 100, k)\ntarget += sum(y)\n",
			"ts\n1\n", "m.gpp:4:36: ode_bdf_tol: rel_tol is -1e-06; it must be finite and > 0"},
		{"bdf-abs", decay + "data ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_bdf_tol(f, [1], 0, ts, 1e-6, -1, 100, k)\ntarget += sum(y)\n",
			"ts\n1\n", "m.gpp:4:42: ode_bdf_tol: abs_tol is -1; it must be finite and > 0"},
		{"bdf-steps", decay + "data ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_bdf_tol(f, [1], 0, ts, 1e-6, 1e-6, 0, k)\ntarget += sum(y)\n",
			"ts\n1\n", "m.gpp:4:48: ode_bdf_tol: max_num_steps is 0; it must be a positive int (at most 2147483647)"},
		{"bdf-ts", decay + "data ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_bdf(f, [1], 0, ts, k)\ntarget += sum(y)\n",
			"ts\n1\n1\n", "m.gpp:4:28: ode_bdf: the output times must be finite and increase from t0: ts[1] = 1 (ts at ts.csv:3:1) is not > ts[0] = 1"},
	} {
		in := data.Input{File: "ts.csv", Table: csvTable(t, "ts.csv", strings.SplitN(c.csv, "\n", 2)[0], parseRows(c.csv))}
		_, err := compileSrcErr(t, "m.gpp", c.src, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	// a domain error in the body at fit time: its position, the call and t
	src := "fn f(t, y, k) = log(k) * y\ndata ts: real[T]\nparam k: real ~ Normal(0, 1)\nlet y = ode_rk45(f, [1], 0, ts, k)\ntarget += sum(y)\n"
	m := compileSrc(t, "m.gpp", src, nil, data.Input{File: "ts.csv", Table: csvTable(t, "ts.csv", "ts", [][]float64{{1}, {2}})})
	_, err := m.LogJoint([]float64{-2}, make([]float64, 1))
	want := "m.gpp:1:17: log: argument -2 < 0 (in the right-hand side f of ode_rk45 at m.gpp:4:9, at t = 0)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("log(-2) in f: %v, want %q", err, want)
	}
	// too few steps
	src = "fn f(t, y, k) = -k * y\ndata ts: real[T]\nparam k: positive ~ Gamma(2, 2)\nlet y = ode_rk45_tol(f, [1], 0, ts, 1e-6, 1e-6, 20, k)\ntarget += sum(y)\n"
	m = compileSrc(t, "m.gpp", src, nil, data.Input{File: "ts.csv", Table: csvTable(t, "ts.csv", "ts", [][]float64{{1}, {100}})})
	_, err = m.LogJoint([]float64{math.Log(30)}, make([]float64, 1))
	want = "m.gpp:4:9: ode_rk45_tol: max_num_steps 20 reached at t = "
	advice := "raise max_num_steps with ode_rk45_tol, or rescale" // not ode_rk45_tol_tol
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), advice) {
		t.Errorf("step limit: %v, want %q", err, want)
	}
	// the same with the stiff solver, and a domain error in its f
	src = strings.Replace(src, "ode_rk45_tol(f, [1], 0, ts, 1e-6, 1e-6, 20, k)", "ode_bdf_tol(f, [1], 0, ts, 1e-6, 1e-6, 5, k)", 1)
	m = compileSrc(t, "m.gpp", src, nil, data.Input{File: "ts.csv", Table: csvTable(t, "ts.csv", "ts", [][]float64{{1}, {100}})})
	_, err = m.LogJoint([]float64{math.Log(30)}, make([]float64, 1))
	want = "m.gpp:4:9: ode_bdf_tol: max_num_steps 5 reached at t = "
	advice = "(raise max_num_steps with ode_bdf_tol, or rescale the system)"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), advice) {
		t.Errorf("ode_bdf step limit: %v, want %q", err, want)
	}
	src = "fn f(t, y, k) = log(k) * y\ndata ts: real[T]\nparam k: real ~ Normal(0, 1)\nlet y = ode_bdf(f, [1], 0, ts, k)\ntarget += sum(y)\n"
	m = compileSrc(t, "m.gpp", src, nil, data.Input{File: "ts.csv", Table: csvTable(t, "ts.csv", "ts", [][]float64{{1}, {2}})})
	_, err = m.LogJoint([]float64{-2}, make([]float64, 1))
	want = "m.gpp:1:17: log: argument -2 < 0 (in the right-hand side f of ode_bdf at m.gpp:4:9, at t = 0)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("log(-2) in ode_bdf's f: %v, want %q", err, want)
	}
}

// parseRows reads the rows of a small CSV text after its header.
func parseRows(csv string) [][]float64 {
	var rows [][]float64
	for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
		var row []float64
		for _, f := range strings.Split(line, ",") {
			v, _ := strconv.ParseFloat(f, 64)
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// BenchmarkODESIR times one log joint and gradient of the SIR model of
// docs/language.md (D = 3, two params, 20 output times, Stan's default
// tolerances).
func BenchmarkODESIR(b *testing.B) {
	const src = `fn sir(t, y, beta, gamma) {
  let infection = beta * y[0] * y[1]
  let recovery = gamma * y[1]
  return [-infection, infection - recovery, recovery]
}
data ts: real[T]
data cases: int[T]
param beta: positive ~ LogNormal(0, 1)
param gamma: positive ~ LogNormal(-1, 0.5)
let y = ode_rk45(sir, [0.99, 0.01, 0], 0, ts, beta, gamma)
cases ~ PoissonLog(log(1000 * y[:, 1]))
`
	rows := make([][]float64, 20)
	for i := range rows {
		rows[i] = []float64{float64(i + 1), float64(10 * (i + 1))}
	}
	m := compileSrc(b, "sir.gpp", src, nil, data.Input{File: "sir.csv", Table: csvTable(b, "sir.csv", "ts,cases", rows)})
	x, g := []float64{math.Log(1.1), math.Log(0.4)}, make([]float64, 2)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.LogJoint(x, g); err != nil {
			b.Fatal(err)
		}
	}
}

// sameAsUnrolled holds ml, a model whose loop calls a solver, and mu, the
// same loop unrolled, to bitwise the same log joint and gradient at xs.
func sameAsUnrolled(t *testing.T, ml, mu *Model, xs [][]float64) {
	t.Helper()
	gl, gu := make([]float64, ml.Dim), make([]float64, mu.Dim)
	for _, x := range xs {
		ll, err1 := ml.LogJoint(x, gl)
		lu, err2 := mu.LogJoint(x, gu)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if ll != lu {
			t.Errorf("at %v: log joint %v in a loop, %v unrolled", x, ll, lu)
		}
		for i := range gl {
			if gl[i] != gu[i] {
				t.Errorf("at %v: gradient[%d] %v in a loop, %v unrolled", x, i, gl[i], gu[i])
			}
		}
	}
}
