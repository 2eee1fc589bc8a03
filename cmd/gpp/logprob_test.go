package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/model"
	"gonum.org/v1/gonum/diff/fd"
)

// logprobFDTol is the relative error (with diagnose's absolute floor of 1)
// allowed between gpp logprob's gradient and a central finite difference.
const logprobFDTol = 1e-6

// runLogprob runs gpp logprob with args and returns its CSV's rows (lp__
// then the gradient), failing the test on a non-zero exit.
func runLogprob(t *testing.T, args ...string) [][]float64 {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"logprob"}, args...), nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("gpp logprob %v: exit %d\n%s", args, code, stderr.String())
	}
	return parseLogprob(t, stdout.String())
}

// parseLogprob reads gpp logprob's CSV: comment lines, the header, rows.
func parseLogprob(t *testing.T, text string) [][]float64 {
	t.Helper()
	var rows [][]float64
	header := false
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if !header {
			header = true
			if !strings.HasPrefix(line, "lp__,g_1") {
				t.Fatalf("header %q", line)
			}
			continue
		}
		var row []float64
		for _, f := range strings.Split(line, ",") {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("cell %q: %v", f, err)
			}
			row = append(row, x)
		}
		rows = append(rows, row)
	}
	return rows
}

// logprobPoints are exact points of testdata/logprob.gpp's params, in
// ParamNames' order (mu, sigma, p, theta.1..4, c.1, c.2).
var logprobPoints = [][]float64{
	{0.4, 1.3, 0.25, 0.1, 0.2, 0.3, 0.4, -0.5, 0.7},
	{-1.7, 0.05, 0.9, 0.25, 0.25, 0.25, 0.25, 2, 2.5},
	{3, 7.5, 0.01, 0.7, 0.1, 0.1, 0.1, -4, 3},
}

// writeLogprobCSV writes the points as a CSV of draws with the model's
// param columns between others that gpp logprob ignores.
func writeLogprobCSV(t *testing.T, m *model.Model, points [][]float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# a CSV of draws\nlp__,chain__," + strings.Join(m.ParamNames(), ",") + ",yrep.1\n")
	for _, p := range points {
		b.WriteString("0,1")
		for _, x := range p {
			b.WriteString("," + strconv.FormatFloat(x, 'g', -1, 64))
		}
		b.WriteString(",9\n")
	}
	path := filepath.Join(t.TempDir(), "draws.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLogprobMatchesModel: each row of gpp logprob is the model package's
// LogDensityGradient at Unconstrain of the row's values, bit for bit, with
// and without the Jacobian, from a CSV of draws and from a JSON file.
func TestLogprobMatchesModel(t *testing.T) {
	const gpp, data = "testdata/logprob.gpp", "testdata/logprob.json"
	m, err := model.Load(gpp, model.DataFiles(data))
	if err != nil {
		t.Fatal(err)
	}
	csv := writeLogprobCSV(t, m, logprobPoints)
	for _, jac := range []bool{true, false} {
		rows := runLogprob(t, gpp, data, "--params", csv, "--jacobian="+strconv.FormatBool(jac))
		if len(rows) != len(logprobPoints) {
			t.Fatalf("jacobian=%v: %d rows, want %d", jac, len(rows), len(logprobPoints))
		}
		for i, theta := range logprobPoints {
			u, err := m.Unconstrain(theta)
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, m.Dim())
			lp, err := m.LogDensityGradient(u, grad, model.Jacobian(jac))
			if err != nil {
				t.Fatal(err)
			}
			want := append([]float64{lp}, grad...)
			if len(rows[i]) != len(want) {
				t.Fatalf("row %d has %d cells, want %d", i+1, len(rows[i]), len(want))
			}
			for j := range want {
				if math.Float64bits(rows[i][j]) != math.Float64bits(want[j]) {
					t.Errorf("jacobian=%v row %d cell %d: %v, model %v", jac, i+1, j+1, rows[i][j], want[j])
				}
			}
		}
	}
	// the JSON file holds the first point
	rows := runLogprob(t, gpp, data, "--params", "testdata/logprob_params.json")
	csvRows := runLogprob(t, gpp, data, "--params", csv)
	if len(rows) != 1 || !bitsEqual(rows[0], csvRows[0]) {
		t.Errorf("the JSON's row %v differs from the CSV's %v", rows, csvRows[0])
	}
}

// bitsEqual reports whether a and b hold the same float64s, bit for bit.
func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestLogprobGradientFD checks gpp logprob's gradient on the bundled
// regression example against central finite differences of the model's
// LogDensity in the unconstrained coordinates, at the draws of a fit.
func TestLogprobGradientFD(t *testing.T) {
	const gpp, data = "../../examples/regression.gpp", "../../examples/wine_std.csv"
	m, err := model.Load(gpp, model.DataFiles(data))
	if err != nil {
		t.Fatal(err)
	}
	points := [][]float64{{0.1, 0.5, -0.2, 0.8}, {-0.3, 1.2, 0.4, 2.5}, {0, 0.6, -0.05, 0.7}}
	rows := runLogprob(t, gpp, data, "--params", writeLogprobCSV(t, m, points))
	for i, theta := range points {
		u, err := m.Unconstrain(theta)
		if err != nil {
			t.Fatal(err)
		}
		f := func(u []float64) float64 {
			lp, err := m.LogDensity(u)
			if err != nil {
				return math.NaN()
			}
			return lp
		}
		want := fd.Gradient(nil, f, u, &fd.Settings{Formula: fd.Central})
		for j, w := range want {
			got := rows[i][1+j]
			if e := relError(got, w); !(e <= logprobFDTol) {
				t.Errorf("point %d g_%d: %v, finite difference %v (relative error %v)", i+1, j+1, got, w, e)
			}
		}
	}
}

// TestLogprobJacobian: lp__ with the Jacobian less lp__ without it is the
// log-Jacobian, log sigma for the regression's one positive param (its
// coordinate g_4 is log sigma), and the gradients differ by 1 there.
func TestLogprobJacobian(t *testing.T) {
	const gpp, data = "../../examples/regression.gpp", "../../examples/wine_std.csv"
	m, err := model.Load(gpp, model.DataFiles(data))
	if err != nil {
		t.Fatal(err)
	}
	points := [][]float64{{0.1, 0.5, -0.2, 0.8}, {-0.3, 1.2, 0.4, 2.5}, {0, 0.6, -0.05, 0.07}}
	csv := writeLogprobCSV(t, m, points)
	with := runLogprob(t, gpp, data, "--params", csv)
	without := runLogprob(t, gpp, data, "--params", csv, "--jacobian=false")
	for i, p := range points {
		u, err := m.Unconstrain(p)
		if err != nil {
			t.Fatal(err)
		}
		if u[3] != math.Log(p[3]) {
			t.Fatalf("point %d: u_4 = %v, want log sigma %v", i+1, u[3], math.Log(p[3]))
		}
		// the log density of u is the log joint plus the log-Jacobian, added last
		if got, want := with[i][0], without[i][0]+math.Log(p[3]); got != want {
			t.Errorf("point %d: lp with the Jacobian %v, want lp without it + log sigma = %v", i+1, got, want)
		}
		for j := 1; j < len(with[i]); j++ {
			d := 0.0
			if j == 4 {
				d = 1
			}
			if with[i][j]-without[i][j] != d {
				t.Errorf("point %d g_%d: with %v, without %v: want a difference of %v", i+1, j, with[i][j], without[i][j], d)
			}
		}
	}
}

// TestLogprobOut: --out writes what stdout would show, and a point outside
// the support writes nothing.
func TestLogprobOut(t *testing.T) {
	const gpp, data = "testdata/logprob.gpp", "testdata/logprob.json"
	dir := t.TempDir()
	out := filepath.Join(dir, "lp.csv")
	var stdout, fileOut, stderr bytes.Buffer
	if code := run([]string{"logprob", gpp, data, "--params", "testdata/logprob_fit_draws.csv"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"logprob", gpp, data, "--params", "testdata/logprob_fit_draws.csv", "--out", out}, nil, &fileOut, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if fileOut.Len() != 0 || !bytes.Equal(got, stdout.Bytes()) {
		t.Errorf("--out wrote %q (stdout %q), want %q", got, fileOut.String(), stdout.String())
	}
	bad := filepath.Join(dir, "bad.csv")
	if code := run([]string{"logprob", gpp, data, "--params", "testdata/logprob_unordered.csv", "--out", bad}, nil, &fileOut, &stderr); code != exitError {
		t.Errorf("a point outside the support: exit %d, want %d", code, exitError)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed run left files: %v", entries)
	}
}

// logprobCoordsOf returns the coordinates gpp logprob's header names for
// the model src.
func logprobCoordsOf(t *testing.T, src string) []string {
	t.Helper()
	l, err := pipeline.Load(writeFile(t, t.TempDir(), "m.gpp", src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		t.Fatal(err)
	}
	return logprobCoords(l.Model, u, latentNamer(l.Model, l))
}

// TestLogprobCoordsBounded: the comment lines name a bounded param's
// coordinate by its transform of the value on the base support, the
// bounds included.
func TestLogprobCoordsBounded(t *testing.T) {
	src := `param a: real<lower=1> ~ Normal(0, 5)
param b: real<lower=-1, upper=3> ~ Normal(0, 5)
param c: real<upper=2> ~ Normal(0, 5)
param d: real<lower=0, upper=2> ~ Normal(0, 5)
param s: real<lower=0> ~ Normal(0, 5)
param p: real<lower=0, upper=1> ~ Beta(2, 2)
`
	got := logprobCoordsOf(t, src)
	want := []string{"log(a - 1)", "logit((b + 1) / 4)", "log(2 - c)", "logit(d / 2)", "log s", "logit p"}
	if !slices.Equal(got, want) {
		t.Errorf("coordinates %q, want %q", got, want)
	}
}

// TestLogprobEscapedKey: a key that is not a param is placed at the key,
// or at its value where the key is written with escapes, as --init places
// it, not at the file's start.
func TestLogprobEscapedKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(path, []byte(`{"mu": 1, "\u0079": [1]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"logprob", "testdata/logprob.gpp", "testdata/logprob.json", "--params", path}, nil, &stdout, &stderr)
	if want := path + `:1:21: --params: "y" is data`; code != exitError || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q...", code, stdout.String(), stderr.String(), exitError, want)
	}
}

// TestUnround: draws.csv's 6 significant digits put a draw of a
// constrained param just off its equality constraint, and logprob puts it
// back: a cholesky_factor_corr row of norm² 0.99999954 (a NUTS draw of
// examples/varying.gpp's L, which logprob refused before) to unit norm, a
// sum_to_zero vector and matrix to zero sums, a simplex row to sum 1;
// values further off than the rounding are left for the support check.
func TestUnround(t *testing.T) {
	l := []float64{1, 0, 0.369833, 0.929097}
	if !unround(l, dist.CholCorr, []int{2, 2}) || math.Abs(l[2]*l[2]+l[3]*l[3]-1) > 1e-15 || l[0] != 1 || l[1] != 0 {
		t.Errorf("cholesky_factor_corr rounded: %v, want its second row of unit norm", l)
	}
	far := []float64{1, 0, 0.36, 0.92}
	if unround(far, dist.CholCorr, []int{2, 2}) || far[2] != 0.36 {
		t.Errorf("cholesky_factor_corr row of norm² %v changed to %v", 0.36*0.36+0.92*0.92, far)
	}
	z := []float64{0.111111, 0.222222, -0.333334} // 1/9, 2/9, −1/3 − 4e-7 rounded
	if !unround(z, dist.SumToZero, []int{3}) || math.Abs(z[0]+z[1]+z[2]) > 1e-15 {
		t.Errorf("sum_to_zero rounded: %v, want a zero sum", z)
	}
	if zf := []float64{0.1, -0.31, 0.2}; unround(zf, dist.SumToZero, []int{3}) {
		t.Errorf("sum_to_zero 0.01 off changed to %v", zf)
	}
	mz := []float64{0.111111, -0.111111, -0.111112, 0.111111} // 2 × 2, rows and columns summing to 0; its latent's shape [1, 1], one fewer each way
	if !unround(mz, dist.SumToZeroMatrix, []int{1, 1}) || math.Abs(mz[0]+mz[1]) > 1e-15 || math.Abs(mz[0]+mz[2]) > 1e-15 || math.Abs(mz[2]+mz[3]) > 1e-15 {
		t.Errorf("sum_to_zero_matrix rounded: %v, want zero row and column sums", mz)
	}
	p := []float64{0.2, 0.300001, 0.5} // 1e-6 over 1: within the rounding of 3 components
	if !unround(p, dist.Simplex, []int{3}) || math.Abs(p[0]+p[1]+p[2]-1) > 1e-15 {
		t.Errorf("simplex rounded: %v, want a sum of 1", p)
	}
}
