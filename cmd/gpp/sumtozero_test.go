package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// sumToZeroModel is testdata/check_sum_to_zero.gpp's ICAR model: Poisson
// counts on a 5-node ring, phi a sum_to_zero_vector[N] with the
// hand-written pairwise-difference density.
const sumToZeroModel = "testdata/check_sum_to_zero.gpp"

// TestFitSumToZero fits the ICAR model and reads the fit's files: the
// summary and draws.csv report phi as its N = 5 values (phi[1] … phi[5],
// not its 4 coordinates), every draw sums to zero; fit.json holds phi's
// normal factor on its 4 coordinates (support sum_to_zero_vector, shape
// [4]), from which --init starts a fit that reads it back.
func TestFitSumToZero(t *testing.T) {
	d := t.TempDir()
	out := filepath.Join(d, "out")
	if code, _, stderr := runSafe(t, "fit", sumToZeroModel, "testdata/check_sum_to_zero.json", "--quiet", "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var names []string
	sum, abs := 0.0, 0.0
	for _, row := range reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))[1:] {
		if strings.HasPrefix(row[0], "phi") {
			names = append(names, row[0])
			m, _ := strconv.ParseFloat(row[2], 64)
			sum += m
			abs += math.Abs(m)
		}
	}
	if strings.Join(names, " ") != "phi[0] phi[1] phi[2] phi[3] phi[4]" {
		t.Fatalf("summary rows of phi: %v", names)
	}
	if math.Abs(sum) > 5e-6*abs { // the means, each written to 6 significant digits
		t.Errorf("the summary's means of phi sum to %g", sum)
	}
	_, head, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(head)
	for _, row := range rows {
		s, abs := 0.0, 0.0
		for i := 1; i <= 5; i++ {
			c, ok := col["phi."+strconv.Itoa(i)]
			if !ok {
				t.Fatalf("draws.csv has no column phi.%d: %v", i, head)
			}
			s += row[c]
			abs += math.Abs(row[c])
		}
		if math.Abs(s) > 5e-6*abs { // each value written to 6 significant digits
			t.Fatalf("a draw of phi sums to %g", s)
		}
	}
	if _, ok := col["phi.6"]; ok {
		t.Errorf("draws.csv has a column phi.6: %v", head)
	}
	if f := savedFactor(t, out, "phi"); f.Family != "normal" || f.Support != "sum_to_zero_vector" || len(f.Shape) != 1 || f.Shape[0] != 4 {
		t.Errorf("fit.json factor phi: %+v", f)
	}
	out2 := filepath.Join(d, "out2")
	if code, _, stderr := runSafe(t, "fit", sumToZeroModel, "testdata/check_sum_to_zero.json", "--quiet", "--seed", "2",
		"--init", filepath.Join(out, "fit.json"), "--out", out2); code != 0 {
		t.Fatalf("fit --init: exit %d: %s", code, stderr)
	}
}

// The REPL fits a sum_to_zero_vector param and answers about its values:
// mean(phi) is 5 values, phi its summary by element (0-based, as the REPL
// names elements), :show its factor on the 4 coordinates.
func TestReplSumToZero(t *testing.T) {
	r, out, errb := newTestRepl()
	typeIn(r, "param phi: sum_to_zero_vector[5] ~ Normal(0, 1)", ":fit --quiet --seed 1 --iter 300")
	if r.fit == nil {
		t.Fatalf("no fit; errors:\n%s", errb.String())
	}
	for _, c := range []struct{ in, want string }{
		{"phi", "phi[4]"},
		{":show phi", "phi coordinate 3  normal"},
	} {
		out.Reset()
		errb.Reset()
		typeIn(r, c.in)
		if !strings.Contains(out.String(), c.want) || errb.Len() > 0 {
			t.Errorf("%s: output %q, errors %q; want it to contain %q", c.in, out.String(), errb.String(), c.want)
		}
	}
	out.Reset()
	typeIn(r, "mean(phi)")
	if n := strings.Count(out.String(), ","); n != 4 || errb.Len() > 0 {
		t.Errorf("mean(phi): output %q (%d commas, want 4), errors %q", out.String(), n, errb.String())
	}
}

// TestFitSumToZeroMatrix fits a sum_to_zero_matrix[2, 3] with a prior
// and reads the fit's files: the summary reports its 6 values A[i,j] (not
// its 2 coordinates), every draw's rows and columns sum to zero in
// draws.csv, fit.json holds the factor of its 1×2 coordinates, and --init
// starts a fit from it.
func TestFitSumToZeroMatrix(t *testing.T) {
	d := t.TempDir()
	model, out := filepath.Join(d, "m.gpp"), filepath.Join(d, "out")
	if err := os.WriteFile(model, []byte("param A: sum_to_zero_matrix[2, 3] ~ Normal(0, 2)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runSafe(t, "fit", model, "--quiet", "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var names []string
	for _, row := range reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))[1:] {
		names = append(names, row[0])
	}
	if strings.Join(names, " ") != "A[0, 0] A[1, 0] A[0, 1] A[1, 1] A[0, 2] A[1, 2]" {
		t.Fatalf("summary rows: %v", names)
	}
	_, head, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(head)
	at := func(row []float64, i, j int) float64 {
		c, ok := col["A."+strconv.Itoa(i)+"."+strconv.Itoa(j)]
		if !ok {
			t.Fatalf("draws.csv has no column A.%d.%d: %v", i, j, head)
		}
		return row[c]
	}
	for _, row := range rows {
		for j := 1; j <= 3; j++ {
			if a, b := at(row, 1, j), at(row, 2, j); math.Abs(a+b) > 5e-6*(math.Abs(a)+math.Abs(b)) {
				t.Fatalf("a draw's column %d sums to %g", j, a+b)
			}
		}
		for i := 1; i <= 2; i++ {
			a, b, c := at(row, i, 1), at(row, i, 2), at(row, i, 3)
			if math.Abs(a+b+c) > 5e-6*(math.Abs(a)+math.Abs(b)+math.Abs(c)) {
				t.Fatalf("a draw's row %d sums to %g", i, a+b+c)
			}
		}
	}
	if f := savedFactor(t, out, "A"); f.Family != "normal" || f.Support != "sum_to_zero_matrix" || len(f.Shape) != 2 || f.Shape[0] != 1 || f.Shape[1] != 2 {
		t.Errorf("fit.json factor A: %+v", f)
	}
	if code, _, stderr := runSafe(t, "fit", model, "--quiet", "--seed", "2", "--init", filepath.Join(out, "fit.json"), "--out", filepath.Join(d, "out2")); code != 0 {
		t.Fatalf("fit --init: exit %d: %s", code, stderr)
	}
}
