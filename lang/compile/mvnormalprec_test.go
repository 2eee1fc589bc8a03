package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// MvNormalPrec(mu, Omega) is MvNormal(mu, inverse_spd(Omega)), log joint
// and each partial (to mvCholEqTol), for data rows with a shared mean, a
// param matrix with a row of mu per row, and a param vector with a row
// mean; Omega a product of params, so its gradient flows; and the
// gradient matches finite differences.
func TestMvNormalPrecMatchesMvNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 28))
	y := make([]float64, 5*3)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"Y":   {Name: "Y", Shape: []int{5, 3}, Values: y},
		"Low": {Name: "Low", Shape: []int{3, 3}, Values: []float64{0, 0, 0, 1, 0, 0, 1, 1, 0}},
	}}
	const head = `data Y: real[N, 3]
data Low: real[3, 3]
param m: real[3]
param M: real[5, 3]
param Lr: real[3, 3]
param v: real[3]
let L = Lr .* Low + diag(exp(diag(Lr)))
let Omega = L * L'
`
	for _, c := range []struct{ name, prec, mv string }{
		{"data rows", "Y ~ MvNormalPrec(m, Omega)\n", "Y ~ MvNormal(m, inverse_spd(Omega))\n"},
		{"param rows, mu per row", "M ~ MvNormalPrec(Y, Omega)\n", "M - Y ~ MvNormal(0, inverse_spd(Omega))\n"},
		{"vector, row mean", "v ~ MvNormalPrec(m', Omega)\n", "v ~ MvNormal(m, inverse_spd(Omega))\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mp := compileSrc(t, "prec.gpp", head+c.prec, nil, in)
			mm := compileSrc(t, "mv.gpp", head+c.mv, nil, in)
			x := make([]float64, mp.Dim)
			gp, gm := make([]float64, mp.Dim), make([]float64, mp.Dim)
			for trial := range 3 {
				fillNormal(x, rng, 0, 0.5)
				vp, err := mp.LogJoint(x, gp)
				if err != nil {
					t.Fatal(err)
				}
				vm, err := mm.LogJoint(x, gm)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(vp-vm) > mvCholEqTol*max(1, math.Abs(vm)) {
					t.Errorf("trial %d: log joint %.17g, MvNormal %.17g", trial, vp, vm)
				}
				for i := range gp {
					if math.Abs(gp[i]-gm[i]) > mvCholEqTol*max(1, math.Abs(gm[i])) {
						t.Errorf("trial %d: d/dx[%d] (%s) = %.17g, MvNormal %.17g", trial, i, mp.LatentOf(i), gp[i], gm[i])
					}
				}
			}
			checkGradient(t, mp, 4, 0.5)
		})
	}
}

// An MvNormalPrec replicate has the covariance Omega⁻¹: Omega = [[2, 1],
// [1, 2]] gives [[2, −1], [−1, 2]] / 3, a draw per row of a matrix mean.
func TestPredictiveMvNormalPrec(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"Omega": {Name: "Omega", Shape: []int{2, 2}, Values: []float64{2, 1, 1, 2}},
		"M":     {Name: "M", Shape: []int{2, 2}, Values: []float64{1, 2, 3, 4}},
	}}
	m := compileSrc(t, "prec.gpp", "data Omega: real[2, 2]\ndata M: real[2, 2]\nparam a: real ~ Normal(0, 1)\noutput Y ~ MvNormalPrec(M, Omega)\n", nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(2, 2)))
	const n = 20000
	var s, ss [4]float64
	var s01 float64
	for range n {
		_, outs, err := ev.Eval([]float64{0})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range outs[0] {
			d := v - float64(i+1)
			s[i] += d
			ss[i] += d * d
		}
		s01 += (outs[0][0] - 1) * (outs[0][1] - 2)
	}
	const sds = 5
	for i := range 4 {
		if got := s[i] / n; math.Abs(got) > sds*math.Sqrt(2.0/3/n) {
			t.Errorf("Y element %d: mean off by %.4f", i, got)
		}
		if got := ss[i] / n; math.Abs(got-2.0/3) > sds*math.Sqrt(2*(4.0/9)/n) {
			t.Errorf("Y element %d: variance %.4f, want %.4f", i, got, 2.0/3)
		}
	}
	if got := s01 / n; math.Abs(got+1.0/3) > sds*math.Sqrt((4.0/9+1.0/9)/n) {
		t.Errorf("Y row 0: covariance %.4f, want %.4f", got, -1.0/3)
	}
}
