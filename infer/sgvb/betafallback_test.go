package sgvb

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// TestLogitNormalUnitFactor fits unit latents whose logits are independent
// normals by the mean-field normal factors on the logits that
// betaFallback refits with (Settings.logitNormalUnit): q's family holds
// the posterior, so the ELBO is log Z within elboTol (the logit's Jacobian
// in log p and log q), the logits' means and sds are the posterior's
// within relTol and the reported means and sds are the logit-normal's.
func TestLogitNormalUnitFactor(t *testing.T) {
	sub := mat.NewSymDense(2, []float64{0.25, 0, 0, 0.64})
	tg := &unitGauss{newMVGauss([]float64{0.5, -1}, sub, false)}
	s := conjugateSettings()
	s.logitNormalUnit = true
	r, err := Fit(context.Background(), tg, []Latent{{Name: "u", Size: 2, Shape: []int{2}, Support: dist.Unit}}, s)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factor("u")
	logZ := 2*halfLog2Pi + 0.5*math.Log(0.25*0.64)
	t.Logf("ELBO %.5f ± %.2g (log Z %.5f), logits %v sds %v, means %v", r.ELBO, r.ELBOSE, logZ, f.Params[0], f.Params[1], f.Mean())
	if f.Family != FamilyNormal || math.Abs(r.ELBO-logZ) > elboTol {
		t.Errorf("%v factor, ELBO %.5f, log Z %.5f", f.Family, r.ELBO, logZ)
	}
	mean, sd := f.Mean(), f.SD()
	for i := range 2 {
		ws := math.Sqrt(sub.At(i, i))
		if math.Abs(f.Params[0][i]-tg.m[i]) > relTol*ws || math.Abs(f.Params[1][i]/ws-1) > relTol {
			t.Errorf("logit %d: mean %.4f sd %.4f, want %.4f %.4f", i, f.Params[0][i], f.Params[1][i], tg.m[i], ws)
		}
		m, v := logitNormalMoments(f.Params[0][i], f.Params[1][i])
		if mean[i] != m || sd[i] != v {
			t.Errorf("u[%d]: mean %g sd %g, want the logit-normal's %g %g", i, mean[i], sd[i], m, v)
		}
	}
}

// TestBetaFallbackScaleNearBound: a normal scale the data put at 10⁻⁴ of
// its declared range [0, 10]. Its beta factor, on the way there, passed
// through small shapes whose draws reach 10⁻⁵⁰, and seeds 1–3 ended at
// s = 9.57, 7.36 and 10 after optimizer resets; the logit-normal refit
// (betaFallback) lands at the posterior, whose mean and sd come from
// quadrature here, and says so.
func TestBetaFallbackScaleNearBound(t *testing.T) {
	ys := []float64{0.0012, -0.0008, 0.0005, -0.0011, 0.0009, -0.0013, 0.0007, -0.001, 0.0011, -0.0006, 0.0014, -0.0009, 0.0004, -0.0012, 0.001, -0.0007, 0.0013, -0.001, 0.0008, -0.0011}
	var csv strings.Builder
	csv.WriteString("y\n")
	ss := 0.0
	for _, y := range ys {
		csv.WriteString(strconv.FormatFloat(y, 'g', -1, 64) + "\n")
		ss += y * y
	}
	// The posterior of s ∝ s^−N exp(−ss/(2s²)) on (0, 10), by quadrature
	// on log s over [10⁻⁵, 10] (it is negligible below).
	n := float64(len(ys))
	var z, m1, m2 float64
	const K = 200000
	lo, hi := math.Log(1e-5), math.Log(10)
	logMax := math.Inf(-1)
	for k := range K {
		ls := lo + (hi-lo)*(float64(k)+0.5)/K
		logMax = math.Max(logMax, -n*ls-ss/(2*math.Exp(2*ls))+ls)
	}
	for k := range K {
		ls := lo + (hi-lo)*(float64(k)+0.5)/K
		w := math.Exp(-n*ls - ss/(2*math.Exp(2*ls)) + ls - logMax) // ds = s d log s
		s := math.Exp(ls)
		z += w
		m1 += w * s
		m2 += w * s * s
	}
	pm := m1 / z
	psd := math.Sqrt(m2/z - pm*pm)

	src := "data y: real[N]\nparam s: real<lower=0, upper=10> ~ Uniform(0, 10)\ny ~ Normal(0, s)\n"
	tab, err := data.ReadCSV("d.csv", strings.NewReader(csv.String()))
	if err != nil {
		t.Fatal(err)
	}
	m, lat := compiledModel(t, src, tab)
	for seed := uint64(1); seed <= 3; seed++ {
		r, err := Fit(context.Background(), compiledTarget{m}, lat, Settings{Seed: seed, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		q := r.Factor("s")
		mean := q.Mean()[0]
		said := false
		for _, w := range r.Warnings {
			said = said || strings.Contains(w, "refit with logit-normal factors") && strings.Contains(w, "which is kept")
		}
		t.Logf("seed %d: %v factor, s %.6g ± %.3g (posterior %.6g ± %.3g), ELBO %.4f", seed, q.Family, mean, q.SD()[0], pm, psd, r.ELBO)
		if math.Abs(mean-pm) > 0.5*psd || !said || q.Family != FamilyNormal {
			t.Errorf("seed %d: %v factor, s %.6g, posterior %.6g ± %.3g, refit said: %v", seed, q.Family, mean, pm, psd, said)
		}
	}
	// a beta family the caller names is the caller's choice: no refit
	r, err := Fit(context.Background(), compiledTarget{m}, lat, Settings{Seed: 1, Workers: 1, Families: map[string]Family{"s": FamilyBeta}})
	if err != nil {
		t.Fatal(err)
	}
	if q := r.Factor("s"); q.Family != FamilyBeta || slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "refit with logit-normal") }) {
		t.Errorf("named beta: %v factor, warnings %q", q.Family, r.Warnings)
	}
}

// TestLogitNormalUnitStart: the refit's normal factor of a unit latent
// starts on the logit scale, from an Init mean (logit 0.2) and from a
// previous fit's beta factor (Settings.Init: its logit's mean and sd), as
// the beta and full-rank factors do, not at the natural-scale values read
// as logits.
func TestLogitNormalUnitStart(t *testing.T) {
	tg := &unitGauss{newMVGauss([]float64{0}, mat.NewSymDense(1, []float64{1}), false)}
	s := Settings{Seed: 1, logitNormalUnit: true}
	e, err := newEngine(tg, []Latent{{Name: "u", Size: 1, Shape: []int{1}, Support: dist.Unit, Init: []float64{0.2}}}, &s)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(0.2 / 0.8); math.Abs(e.theta[0]-want) > 1e-12 {
		t.Errorf("Init 0.2: logit mean %g, want %g", e.theta[0], want)
	}
	a, b := 3.0, 5.0
	s.Init = &Result{Factors: []Factor{{Name: "u", Family: FamilyBeta, Size: 1, Support: dist.Unit, Params: [][]float64{{a}, {b}}}}}
	e, err = newEngine(tg, []Latent{{Name: "u", Size: 1, Shape: []int{1}, Support: dist.Unit}}, &s)
	if err != nil {
		t.Fatal(err)
	}
	wm, wsd := dist.Digamma(a)-dist.Digamma(b), math.Sqrt(dist.Trigamma(a)+dist.Trigamma(b))
	if sd := softplus(e.theta[1]); math.Abs(e.theta[0]-wm) > 1e-9 || math.Abs(sd-wsd) > 1e-9 {
		t.Errorf("warm from beta(3, 5): logit mean %g sd %g, want %g %g", e.theta[0], sd, wm, wsd)
	}
}
