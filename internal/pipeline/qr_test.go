package pipeline_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"gonum.org/v1/gonum/mat"
)

// TestQRRegression fits the Stan User's Guide's QR reparameterisation
// (testdata/qr_regression.gpp: qr_thin_Q, qr_thin_R and inverse(R_ast) of
// data) and the same regression on X (qr_plain.gpp), on three wine
// columns correlated 0.70 to 0.86, and compares both with the exact
// posterior, which the weak priors leave at least squares: the means of
// beta from either fit within 0.25 posterior sd of the least-squares
// estimates (and so of each other), and the QR fit's sds within 15 % of
// the exact ones, σ̂ √((AᵀA)⁻¹)ᵢᵢ, which a mean-field q on the correlated
// beta of the plain form underestimates (logged).
func TestQRRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two models")
	}
	const csv = "../../examples/wine_std.csv"
	cols := []string{"total_phenols", "flavanoids", "od280_od315_of_diluted_wines"}
	args := []string{"X=" + csv + ":" + cols[0] + "," + cols[1] + "," + cols[2], "y=" + csv + ":proline"}
	qr := fitSummary(t, "testdata/qr_regression.gpp", args, sgvb.Settings{Seed: 1})
	plain := fitSummary(t, "testdata/qr_plain.gpp", args, sgvb.Settings{Seed: 1})
	y := readColumn(t, csv, "proline")
	n, k := len(y), len(cols)
	a := mat.NewDense(n, k+1, nil)
	for j, c := range cols {
		for i, v := range readColumn(t, csv, c) {
			a.Set(i, j+1, v)
		}
	}
	for i := 0; i < n; i++ {
		a.Set(i, 0, 1)
	}
	var ata, inv mat.Dense
	ata.Mul(a.T(), a)
	if err := inv.Inverse(&ata); err != nil {
		t.Fatal(err)
	}
	var b mat.VecDense
	var aty mat.VecDense
	aty.MulVec(a.T(), mat.NewVecDense(n, y))
	b.MulVec(&inv, &aty)
	var fit mat.VecDense
	fit.MulVec(a, &b)
	rss := 0.0
	for i := range y {
		rss += (y[i] - fit.AtVec(i)) * (y[i] - fit.AtVec(i))
	}
	s2 := rss / float64(n-k-1)
	for j := 0; j < k; j++ {
		name := fmt.Sprintf("beta[%d]", j+1)
		ls, sd := b.AtVec(j+1), math.Sqrt(s2*inv.At(j+1, j+1))
		q, p := qr[name], plain[name]
		t.Logf("%s: least squares %.4f ± %.4f; QR fit %.4f ± %.4f; plain fit %.4f ± %.4f", name, ls, sd, q.mean, q.sd, p.mean, p.sd)
		if math.Abs(q.mean-ls) > 0.25*sd {
			t.Errorf("%s: QR fit's mean %.4f, least squares %.4f (sd %.4f)", name, q.mean, ls, sd)
		}
		if math.Abs(p.mean-ls) > 0.25*sd {
			t.Errorf("%s: plain fit's mean %.4f, least squares %.4f (sd %.4f)", name, p.mean, ls, sd)
		}
		if math.Abs(q.sd/sd-1) > 0.15 {
			t.Errorf("%s: QR fit's sd %.4f, exact %.4f", name, q.sd, sd)
		}
	}
}
