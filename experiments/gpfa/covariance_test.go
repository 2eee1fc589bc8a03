package gpfa

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/internal/shareddata"
)

func refFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBaselinesReproduceSharedFile checks the empirical-covariance and
// Ledoit–Wolf test NLLs (training mean, raw scale) against
// baselines_nll.csv for every data set in it.
func TestBaselinesReproduceSharedFile(t *testing.T) {
	ref := shareddata.Path(t, "continuous", "baselines_nll.csv")
	dir := filepath.Dir(ref)
	for _, row := range reftest.ReadCSVMaps(t, ref) {
		if row["scale"] != "raw" {
			continue
		}
		x, _, err := ReadMatrix(filepath.Join(dir, row["file"]))
		if err != nil {
			t.Fatal(err)
		}
		train, test := SplitTest(x)
		if r, _ := train.Dims(); strconv.Itoa(r) != row["n_train"] {
			t.Fatalf("%s: %d training rows, file says %s", row["file"], r, row["n_train"])
		}
		mu := ColumnMeans(train)
		emp, err := GaussianNLL(test, mu, EmpiricalCovariance(train, mu))
		if row["empirical"] == "inf" {
			if err == nil || !math.IsInf(emp, 1) {
				t.Errorf("%s: empirical NLL %v, want inf (singular)", row["file"], emp)
			}
		} else if want := refFloat(t, row["empirical"]); math.Abs(emp-want) > 1e-3 {
			t.Errorf("%s: empirical NLL %.5f, want %.4f", row["file"], emp, want)
		}
		lw, delta := LedoitWolf(train, mu)
		got, err := GaussianNLL(test, mu, lw)
		if err != nil {
			t.Fatal(err)
		}
		if want := refFloat(t, row["ledoit_wolf"]); math.Abs(got-want) > 1e-3 {
			t.Errorf("%s: Ledoit–Wolf NLL %.5f, want %.4f", row["file"], got, want)
		}
		if want := refFloat(t, row["lw_shrinkage"]); math.Abs(delta-want) > 1e-4 {
			t.Errorf("%s: Ledoit–Wolf shrinkage %.5f, want %.4f", row["file"], delta, want)
		}
	}
}

// TestBaselinesSmallNCurve checks the CyTOF small-n curve
// (cytof_small_n_curve.csv): the first n training rows.
func TestBaselinesSmallNCurve(t *testing.T) {
	ref := shareddata.Path(t, "continuous", "cytof_small_n_curve.csv")
	x, _, err := ReadMatrix(shareddata.Path(t, CyTOFFile))
	if err != nil {
		t.Fatal(err)
	}
	train, test := SplitTest(x)
	for _, row := range reftest.ReadCSVMaps(t, ref) {
		n, _ := strconv.Atoi(row["n_train"])
		tr := firstRows(train, n)
		mu := ColumnMeans(tr)
		emp, err := GaussianNLL(test, mu, EmpiricalCovariance(tr, mu))
		if err != nil {
			t.Fatal(err)
		}
		if want := refFloat(t, row["empirical"]); math.Abs(emp-want) > 1e-3 {
			t.Errorf("n=%d: empirical NLL %.5f, want %.4f", n, emp, want)
		}
		lw, _ := LedoitWolf(tr, mu)
		got, err := GaussianNLL(test, mu, lw)
		if err != nil {
			t.Fatal(err)
		}
		if want := refFloat(t, row["ledoit_wolf"]); math.Abs(got-want) > 1e-3 {
			t.Errorf("n=%d: Ledoit–Wolf NLL %.5f, want %.4f", n, got, want)
		}
	}
}

// TestGaussianNLLSmall checks GaussianNLL against a hand computation.
func TestGaussianNLLSmall(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 0, 0, 2})
	sigma := mat.NewSymDense(2, []float64{2, 0, 0, 4})
	got, err := GaussianNLL(x, []float64{0, 0}, sigma)
	if err != nil {
		t.Fatal(err)
	}
	// Row 1: ½(1/2 + log(2π·2) + log(2π·4)); row 2: ½(4/4 + same logs).
	logs := math.Log(2*math.Pi*2) + math.Log(2*math.Pi*4)
	want := 0.5 * ((0.5+1)/2 + logs)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("NLL %v, want %v", got, want)
	}
}

// TestNonnegFactorMLRecovers checks the ML fit on an exact covariance of
// the model family: it must reach the minimum NLL, that of Σ itself.
func TestNonnegFactorMLRecovers(t *testing.T) {
	syn := GenerateSynthetic(1, 12, 3, 0.5, 0.2, 4)
	d, _ := syn.W.Dims()
	sigma := mat.NewSymDense(d, nil)
	sigma.SymOuterK(1, syn.W)
	for i := 0; i < d; i++ {
		sigma.SetSym(i, i, sigma.At(i, i)+0.2)
	}
	fit := NonnegFactorML(sigma, 3, 1)
	// ½[log det Σ̂ + tr(Σ̂⁻¹Σ)] is minimal (= ½[log det Σ + d]) at Σ̂ = Σ.
	obj := func(s *mat.SymDense) float64 {
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			t.Fatal("not positive definite")
		}
		var inv mat.SymDense
		ch.InverseTo(&inv)
		tr := 0.0
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				tr += inv.At(i, j) * sigma.At(j, i)
			}
		}
		return 0.5 * (ch.LogDet() + tr)
	}
	if got, want := obj(fit), obj(sigma); got-want > 1e-4 {
		t.Errorf("objective %.6f, minimum %.6f", got, want)
	}
	neg, total, _ := negativeCovariances(sigma)
	if neg != 0 || total != d*(d-1)/2 {
		t.Errorf("negative covariances %d of %d in a W Wᵀ + sI", neg, total)
	}
}

// VarianceRatios is 1 for the held-out rows' own covariance about mu, and
// scales inversely with sigma; ActiveColumns counts columns by energy.
func TestVarianceRatiosAndActiveColumns(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 2, -1, 0, 3, 4, -3, -2})
	mu := []float64{0, 1}
	emp := EmpiricalCovariance(x, mu)
	for j, r := range VarianceRatios(x, mu, emp) {
		if math.Abs(r-1) > 1e-15 {
			t.Errorf("ratio %d = %v with the rows' own covariance, want 1", j, r)
		}
	}
	double := mat.NewSymDense(2, nil)
	double.ScaleSym(2, emp)
	for j, r := range VarianceRatios(x, mu, double) {
		if math.Abs(r-0.5) > 1e-15 {
			t.Errorf("ratio %d = %v with twice the covariance, want 0.5", j, r)
		}
	}
	w := mat.NewDense(3, 4, []float64{1, 0, 0.05, 0, 1, 0, 0, 0, 1, 2, 0, 0})
	// energies 3, 4, 0.0025, 0 of 7.0025
	if got := ActiveColumns(w, 0.01); got != 2 {
		t.Errorf("ActiveColumns = %d, want 2", got)
	}
	if got := ActiveColumns(w, 0.0001); got != 3 {
		t.Errorf("ActiveColumns(1e-4) = %d, want 3", got)
	}
}
