package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestFitMatrixLitCovariance fits 300 pairs (TestFitCholCov's, covariance
// [[4, −0.6], [−0.6, 0.25]]) with that covariance written as a matrix
// literal, by Laplace: the posterior of mu is normal, so q's mean and
// covariance (fit.json) are the exact posterior's, worked out here from
// the data, to optimiser precision. An output matrix literal of constants
// and params is reported row-major in the summary.
func TestFitMatrixLitCovariance(t *testing.T) {
	d := t.TempDir()
	model, dataFile, out := filepath.Join(d, "m.gpp"), filepath.Join(d, "pairs.json"), filepath.Join(d, "out")
	src := "data y: real[N, 2]\nparam mu: real[2] ~ Normal(0, 5)\n" +
		"y ~ MvNormalRows(mu, [[4, -0.6],\n                     [-0.6, 0.25]])\n" +
		"output R = [[1, 2, 3], [mu[0], mu[1], 6]]\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 300
	writeCorrData(t, dataFile, n, -0.6, 5)
	if code, _, stderr := runSafe(t, "fit", model, dataFile, "--family", "laplace", "--quiet", "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	// The exact posterior: precision P = n Σ⁻¹ + I/25, mean P⁻¹ n Σ⁻¹ ȳ.
	var sum [2]float64
	raw, err := os.ReadFile(dataFile)
	if err != nil {
		t.Fatal(err)
	}
	var pairs struct{ Y [][2]float64 }
	if err := json.Unmarshal(raw, &pairs); err != nil || len(pairs.Y) != n {
		t.Fatalf("%s: %d pairs, %v", dataFile, len(pairs.Y), err)
	}
	for _, row := range pairs.Y {
		sum[0] += row[0]
		sum[1] += row[1]
	}
	s00, s01, s11 := 4.0, -0.6, 0.25
	det := s00*s11 - s01*s01
	i00, i01, i11 := s11/det, -s01/det, s00/det // Σ⁻¹
	p00, p01, p11 := n*i00+1.0/25, n*i01, n*i11+1.0/25
	b0, b1 := i00*sum[0]+i01*sum[1], i01*sum[0]+i11*sum[1] // n Σ⁻¹ ȳ
	pdet := p00*p11 - p01*p01
	c00, c01, c11 := p11/pdet, -p01/pdet, p00/pdet // P⁻¹
	wantMean := []float64{c00*b0 + c01*b1, c01*b0 + c11*b1}
	wantCov := []float64{c00, c01, c11}

	f := savedFactor(t, out, "mu")
	mean, ok1 := f.Params.Get("mean")
	l1, ok2 := f.Params.Get("L[1]")
	l2, ok3 := f.Params.Get("L[2]")
	if !ok1 || !ok2 || !ok3 || len(mean) != 2 || len(l1) != 2 || len(l2) != 2 {
		t.Fatalf("fit.json factor mu: %+v", f)
	}
	for k := range 2 {
		if sd := math.Sqrt([]float64{c00, c11}[k]); math.Abs(float64(mean[k])-wantMean[k]) > 1e-3*sd {
			t.Errorf("mu[%d]'s mode %.8g, exact posterior mean %.8g (sd %.3g)", k, mean[k], wantMean[k], sd)
		}
	}
	// L's columns (L[1], L[2]): the covariance is L L'.
	gotCov := []float64{
		float64(l1[0] * l1[0]),
		float64(l1[0] * l1[1]),
		float64(l1[1]*l1[1] + l2[1]*l2[1]),
	}
	for k, name := range []string{"[0, 0]", "[0, 1]", "[1, 1]"} {
		if math.Abs(gotCov[k]-wantCov[k]) > 1e-3*math.Sqrt(c00*c11) {
			t.Errorf("q's covariance%s = %.8g, exact posterior's %.8g", name, gotCov[k], wantCov[k])
		}
	}
	m := summaryMeans(t, out)
	for name, want := range map[string]float64{"R[0, 0]": 1, "R[0, 1]": 2, "R[0, 2]": 3, "R[1, 2]": 6, "R[1, 0]": m["mu[0]"], "R[1, 1]": m["mu[1]"]} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("summary %s = %v, want %v", name, got, want)
		}
	}
}
