package dist

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// mvRecord is one record of testdata/mv_reference.json (written by
// testdata/mv_reference.py, mpmath at 50 digits).
type mvRecord struct {
	Kind                    string
	D, N                    int
	Cond                    float64
	Mu, Sigma, X, Y         floats
	Alpha                   floats
	LP                      float64
	DX, DMu, DSigma, DAlpha floats
}

// floats is a JSON array of numbers, with "+Inf" and "-Inf" as strings.
type floats []float64

func (f *floats) UnmarshalJSON(b []byte) error {
	var raw []any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*f = make([]float64, len(raw))
	for i, v := range raw {
		switch v := v.(type) {
		case float64:
			(*f)[i] = v
		case string:
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return err
			}
			(*f)[i] = x
		default:
			return fmt.Errorf("bad number %v", v)
		}
	}
	return nil
}

// Error bounds of the reference tests, in units of eps = 2⁻⁵² times the
// scale each test derives from the conditioning of the case.
const (
	// mvRefUlps bounds MvNormal and MvNormalRows: a backward-stable
	// Cholesky solve has relative error of order d·κ·eps, κ the condition
	// number of Sigma (its largest eigenvalue is 1 here, so ‖Σ⁻¹‖ = κ).
	mvRefUlps = 4
	// dirichletRefUlps bounds Dirichlet: the log density within eps times
	// its size plus that of the terms m_k − α_k (m_k = α₀·x_k) that cancel
	// between the components; each partial within eps times its size plus
	// that of log(m_k/α_k) and of 1/α_k (large α_k), or of log m_k and ψ(α_k)
	// (small α_k).
	dirichletRefUlps = 16
)

const eps = 0x1p-52

func norm2(v []float64) float64 { return math.Sqrt(dot2(v)) }

// TestMvNormalReference checks MvNormal and MvNormalRows (log density and
// every partial) against mpmath at condition numbers 1e1 to 1e12. For
// MvNormalRows the data mean ȳ is rounded (to a few ulp of ‖ȳ‖) before
// Σ⁻¹ multiplies it, so N·κ·‖ȳ‖ joins the scale of the partials; the cases
// with ȳ ≈ 1e4 and a spread of 1 are there for that.
func TestMvNormalReference(t *testing.T) {
	worst := map[string]float64{}
	check := func(what string, r mvRecord, err, scale float64) {
		t.Helper()
		ratio := err / (eps * scale)
		worst[what] = math.Max(worst[what], ratio)
		if !(ratio <= mvRefUlps) {
			t.Errorf("%s d=%d cond=%g: error %.3g is %.3g eps·scale (scale %.3g)", what, r.D, r.Cond, err, ratio, scale)
		}
	}
	for _, r := range reftest.ReadJSON[mvRecord](t, "testdata/mv_reference.json") {
		d, k := r.D, r.Cond
		fd := float64(d)
		switch r.Kind {
		case "mvnormal":
			dx, dmu, ds := make([]float64, d), make([]float64, d), make([]float64, d*d)
			lp, err := MvNormal{r.Mu, r.Sigma}.Grad(dx, dmu, ds, r.X, nil)
			if err != nil {
				t.Fatal(err)
			}
			check("MvNormal lp", r, math.Abs(lp-r.LP), fd*k*(math.Abs(r.LP)+fd))
			check("MvNormal dx", r, reftest.NormRelErr(dx, r.DX), fd*k)
			check("MvNormal dmu", r, reftest.NormRelErr(dmu, r.DMu), fd*k)
			check("MvNormal dsigma", r, reftest.NormRelErr(ds, r.DSigma), fd*k)
		case "mvrows":
			n := float64(r.N)
			dmu, ds := make([]float64, d), make([]float64, d*d)
			st := NewRowStats(r.Y, d)
			lp, err := MvNormalRows{r.Mu, r.Sigma}.Grad(dmu, ds, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			ybar := norm2(st.Mean)
			beta := norm2(r.DMu) / n
			check("MvNormalRows lp", r, math.Abs(lp-r.LP), fd*k*(math.Abs(r.LP)+n*fd)+fd*norm2(r.DMu)*ybar)
			check("MvNormalRows dmu", r, reftest.NormRelErr(dmu, r.DMu)*norm2(r.DMu), fd*k*(norm2(r.DMu)+n*ybar))
			check("MvNormalRows dsigma", r, reftest.NormRelErr(ds, r.DSigma)*norm2(r.DSigma), fd*k*(norm2(r.DSigma)+n*k*beta*ybar))
		}
	}
	t.Logf("worst error / (eps·scale): %v", worst)
}

// TestDirichletReference checks the Dirichlet log density and partials
// (Grad and GradLog) against mpmath for concentrations from 1e-3 to 3e8,
// at the mean, near it and near the boundary of the simplex. GradLog forms
// x = exp(log x), a rounding that moves the result as a change of log x by
// an ulp would: its scale has that term (|α_k − 1|·(|log x_k| + 1)) too.
func TestDirichletReference(t *testing.T) {
	var worstLP, worstDA float64
	for _, r := range reftest.ReadJSON[mvRecord](t, "testdata/mv_reference.json") {
		if r.Kind != "dirichlet" && r.Kind != "dirichletlog" {
			continue
		}
		isLog := r.Kind == "dirichletlog"
		k := len(r.Alpha)
		dx, da := make([]float64, k), make([]float64, k)
		var lp float64
		if isLog {
			lp = Dirichlet{r.Alpha}.GradLog(dx, da, r.X)
		} else {
			lp = Dirichlet{r.Alpha}.Grad(dx, da, r.X)
		}
		var a0 float64
		for _, a := range r.Alpha {
			a0 += a
		}
		scale := math.Abs(r.LP)
		for i, a := range r.Alpha {
			lx, xi := r.X[i], math.Exp(r.X[i])
			if !isLog {
				lx, xi = Log(r.X[i]), r.X[i]
			}
			scale += math.Abs(a0*xi - a)
			lm := math.Log(a0) + lx // log m_k
			sa := math.Abs(r.DAlpha[i])
			if isLog {
				// x = exp(log x) rounds like a change of log x by an ulp.
				sa += math.Abs(lx) + 1
				scale += math.Abs(a-1) * (math.Abs(lx) + 1)
			}
			if a >= stirlingMin {
				sa += math.Abs(lm-math.Log(a)) + 1/a
			} else {
				sa += math.Abs(lm) + math.Abs(Digamma(a))
			}
			e := math.Abs(da[i]-r.DAlpha[i]) / (eps * sa)
			worstDA = math.Max(worstDA, e)
			if !(e <= dirichletRefUlps) {
				t.Errorf("Dirichlet%v at %v: dalpha[%d] = %.17g, want %.17g (%.3g eps·scale)", r.Alpha, r.X, i, da[i], r.DAlpha[i], e)
			}
			if dx[i] != r.DX[i] && !(math.Abs(dx[i]-r.DX[i]) <= 2*eps*math.Abs(r.DX[i])) {
				t.Errorf("Dirichlet%v at %v: dx[%d] = %.17g, want %.17g", r.Alpha, r.X, i, dx[i], r.DX[i])
			}
		}
		e := math.Abs(lp-r.LP) / (eps * scale)
		worstLP = math.Max(worstLP, e)
		if !(e <= dirichletRefUlps) {
			t.Errorf("Dirichlet%v at %v: log density %.17g, want %.17g (%.3g eps·scale)", r.Alpha, r.X, lp, r.LP, e)
		}
	}
	t.Logf("worst error / (eps·scale): log density %.3g, dalpha %.3g", worstLP, worstDA)
}

func dot2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}
