package main

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// TestTransformCoord: a coordinate of a correlation or covariance factor
// is named by the entry it moves (a cholesky_factor_corr's first column
// by the entry itself, its partial correlation elsewhere), a sum-to-zero
// param's as its isometric coordinate, and other supports' are elements.
func TestTransformCoord(t *testing.T) {
	for _, c := range []struct {
		s            dist.Support
		k            int
		elem, scale  string
		notTransform bool
	}{
		{s: dist.CholCorr, k: 0, elem: "L[1, 0]", scale: "atanh"},
		{s: dist.CholCorr, k: 1, elem: "L[2, 0]", scale: "atanh"},
		{s: dist.CholCorr, k: 2, elem: "pcor L[2, 1]", scale: "atanh"},
		{s: dist.CorrMatrix, k: 2, elem: "pcor L[2, 1]", scale: "atanh"},
		{s: dist.CholCov, k: 0, elem: "L[0, 0]", scale: "log"},
		{s: dist.CholCov, k: 1, elem: "L[1, 0]"},
		{s: dist.CovMatrix, k: 2, elem: "chol L[1, 1]", scale: "log"},
		{s: dist.SumToZero, k: 3, elem: "L coordinate 3"},
		{s: dist.Ordered, k: 0, elem: "L[0]"},
		{s: dist.Ordered, k: 1, elem: "L[1] - L[0]", scale: "log"},
		{s: dist.Ordered, k: 3, elem: "L[3] - L[2]", scale: "log"},
		{s: dist.PositiveOrdered, k: 0, elem: "L[0]", scale: "log"},
		{s: dist.PositiveOrdered, k: 2, elem: "L[2] - L[1]", scale: "log"},
		{s: dist.Real, k: 0, notTransform: true},
		{s: dist.Simplex, k: 0, notTransform: true},
	} {
		shape := []int{4}
		elem, scale, ok := transformCoord("L", shape, c.s, c.k, compile.ElemName)
		if ok == c.notTransform || elem != c.elem || scale != c.scale {
			t.Errorf("%v coordinate %d: %q, %q, %v; want %q, %q", c.s, c.k, elem, scale, ok, c.elem, c.scale)
		}
	}
}

// TestTransformCoordLabels: a labelled axis's coordinates read by the
// labels the tables use (latentNamer), an ordered param's first element
// and its gaps alike, not by number.
func TestTransformCoordLabels(t *testing.T) {
	axes := []string{"high", "low", "mid"}
	for _, c := range []struct {
		s     dist.Support
		shape []int
		k     int
		want  string
	}{
		{dist.Ordered, []int{3}, 0, "c[high]"},
		{dist.Ordered, []int{3}, 2, "log(c[mid] - c[low])"},
		{dist.PositiveOrdered, []int{3}, 1, "log(c[low] - c[high])"},
	} {
		labels := make([][]string, len(c.shape))
		for a := range labels {
			labels[a] = axes
		}
		elemName := func(name string, shape []int, k int) string { return pipeline.LabelledName(name, shape, labels, k) }
		if e, scale, _ := transformCoord("c", c.shape, c.s, c.k, elemName); coordLabel(e, scale) != c.want {
			t.Errorf("%v coordinate %d: %q, want %q", c.s, c.k, coordLabel(e, scale), c.want)
		}
	}
}

// TestCoordLabel: a coordinate's name with its scale, a difference in
// parentheses.
func TestCoordLabel(t *testing.T) {
	for _, c := range [][3]string{
		{"L[1, 0]", "atanh", "atanh L[1, 0]"},
		{"pcor L[2, 1]", "atanh", "atanh pcor L[2, 1]"},
		{"m[1] - m[0]", "log", "log(m[1] - m[0])"},
		{"m[0]", "", "m[0]"},
	} {
		if got := coordLabel(c[0], c[1]); got != c[2] {
			t.Errorf("coordLabel(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// fitSeed1 writes src as m.gpp to a new directory, fits it with seed 1
// (--quiet), fails t unless gpp exits 0, and returns the model's path and
// the output.
func fitSeed1(t *testing.T, src string) (model, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	model = writeFile(t, dir, "m.gpp", src)
	code, stdout, stderr := runSafe(t, "fit", model, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "o"))
	if code != 0 {
		t.Fatalf("gpp fit: exit %d\n%s", code, stderr)
	}
	return model, stdout, stderr
}

// TestFitCurvatureOrderedName: the mean-field hint names an ordered
// param's coordinates as they are, m[0] and the log gap log(m[1] - m[0]):
// a trial's mixture read "m1[0] moves with m1[1] (correlation −0.92)"
// where NUTS's corr(m1[0], m1[1]) is +0.19. Here m[1] is pinned near 2,
// so m[0] and the gap move against each other; gpp diagnose names them
// alike (gpp logprob: TestLogprobCoordsTransforms).
func TestFitCurvatureOrderedName(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	model, _, stderr := fitSeed1(t, "param m: ordered[2] ~ Normal(0, 1)\ntarget += logpdf(m[1], Normal(2, 0.05))\n")
	if !strings.Contains(stderr, "log(m[1] - m[0]) moves with m[0] (correlation −") && !strings.Contains(stderr, "m[0] moves with log(m[1] - m[0]) (correlation −") ||
		strings.Contains(stderr, "with m[1] ") || strings.Contains(stderr, "m[1]'s") {
		t.Errorf("stderr\n%s", stderr)
	}
	code, stdout, stderr := runSafe(t, "diagnose", model)
	if code != 0 || !hasFields(stdout, "m[0]", "value") || !hasFields(stdout, "m[1] - m[0]", "log") {
		t.Errorf("diagnose: exit %d, stdout\n%s\nstderr\n%s", code, stdout, stderr)
	}
}

// TestFitCurvatureCorrName: the mean-field hint names a
// cholesky_factor_corr's coordinate by the entry it is, L[1, 0] (a trial's
// weak-instrument fit read "b1 moves with L[0]", a row of the 2×2 L in
// the tables), the table marks L[1, 0]'s sd with its *, and gpp diagnose
// lists it and L's partial correlation pcor L[2, 1] so, of kind atanh.
func TestFitCurvatureCorrName(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	model, stdout, stderr := fitSeed1(t, "param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)\nparam a: real ~ Normal(3 * L[1, 0], 0.1)\n")
	if row := lineWith(stdout, "L[1, 0] "); !strings.Contains(row, "*") {
		t.Errorf("the table marks no sd of L[1, 0] too small:\n%s", stdout)
	}
	if !strings.Contains(stderr, "hint: L[1, 0]'s and a's sds") || !strings.Contains(stderr, "L[1, 0] moves with a") || strings.Contains(stderr, "L[0]") {
		t.Errorf("stderr\n%s", stderr)
	}
	code, stdout, stderr := runSafe(t, "diagnose", model)
	if code != 0 || !hasFields(stdout, "L[1, 0]", "atanh") || !hasFields(stdout, "pcor L[2, 1]", "atanh") {
		t.Errorf("diagnose: exit %d, stdout\n%s\nstderr\n%s", code, stdout, stderr)
	}
}

// hasFields reports whether some line of out starts, after spaces, with
// name followed by spaces and kind: a table's row.
func hasFields(out, name, kind string) bool {
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), name+" ")
		if ok && strings.HasPrefix(strings.TrimSpace(rest), kind+" ") {
			return true
		}
	}
	return false
}

// TestLogprobCoordsTransforms: gpp logprob's header names a
// cholesky_factor_corr's and an ordered param's coordinates as the hints
// do, with their scales.
func TestLogprobCoordsTransforms(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param L: cholesky_factor_corr[3] ~ LKJCorrCholesky(2)\nparam a: real ~ Normal(3 * L[1, 0], 0.1)\n", "atanh L[1, 0]|atanh L[2, 0]|atanh pcor L[2, 1]|a"},
		{"param m: ordered[3] ~ Normal(0, 1)\n", "m[0]|log(m[1] - m[0])|log(m[2] - m[1])"},
		{"param m: positive_ordered[2] ~ Normal(0, 1)\n", "log m[0]|log(m[1] - m[0])"},
	} {
		if got := logprobCoordsOf(t, c.src); !slices.Equal(got, strings.Split(c.want, "|")) {
			t.Errorf("%q: coordinates %q, want %q", c.src, got, strings.Split(c.want, "|"))
		}
	}
}

// lineWith returns the first line of out that starts with prefix, "" if
// none.
func lineWith(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestSumToZeroNote: a message naming a sum_to_zero_vector's coordinate
// gets one clause on the first of them, the contrast it moves as, which
// dist.SumToZeroCoords's coordinate k is (checked here at a random zero-sum
// vector); a sum_to_zero_matrix's gets the clause without a contrast; a
// message naming none, or a name that only ends in the param's, gets none.
func TestSumToZeroNote(t *testing.T) {
	r := &sgvb.Result{Factors: []sgvb.Factor{
		{Name: "a", Support: dist.Real, Size: 20},
		{Name: "bz", Support: dist.SumToZero, Size: 19},
		{Name: "A", Support: dist.SumToZeroMatrix, Size: 6},
	}}
	for _, c := range []struct{ msg, want string }{
		{"bz coordinate 7's, bz coordinate 8's sds are about 2.7×, 2.6× too small: bz coordinate 7 moves with a[8]",
			"; bz coordinate 7 is one of the 19 free coordinates of the sum_to_zero_vector bz, not its element 7: it moves as mean(bz[:8]) − bz[8] (docs/language.md, Sum-to-zero vectors)"},
		{"a[3] moves with bz coordinate 0", "; bz coordinate 0 is one of the 19 free coordinates of the sum_to_zero_vector bz, not its element 0: it moves as mean(bz[:1]) − bz[1] (docs/language.md, Sum-to-zero vectors)"},
		{"A coordinate 4 moves with bz coordinate 2", "; A coordinate 4 is one of the 6 free coordinates of the sum_to_zero_matrix A, not an element (docs/language.md, Sum-to-zero vectors)"},
		{"xbz coordinate 3 moves with bz coordinate 2", "; bz coordinate 2 is one of the 19 free coordinates of the sum_to_zero_vector bz, not its element 2: it moves as mean(bz[:3]) − bz[3] (docs/language.md, Sum-to-zero vectors)"},
		{"xbz coordinate 3 moves with a[2]", ""},
		{"a[1] moves with a[2]", ""},
	} {
		if got := sumToZeroNote(c.msg, r); got != c.want {
			t.Errorf("%q: note %q, want %q", c.msg, got, c.want)
		}
	}
	z := []float64{0.3, -1.2, 0.5, 2.0, -0.4, 0.9}
	m := 0.0
	for _, v := range z {
		m += v / float64(len(z))
	}
	for i := range z {
		z[i] -= m
	}
	y := make([]float64, len(z)-1)
	dist.SumToZeroCoords(y, z)
	for k := range y {
		mean := 0.0
		for _, v := range z[:k+1] {
			mean += v / float64(k+1)
		}
		if want := math.Sqrt(float64(k+1)/float64(k+2)) * (mean - z[k+1]); math.Abs(y[k]-want) > 1e-12 {
			t.Errorf("coordinate %d: %g, want √((k+1)/(k+2))·(mean(z[:k+1]) − z[k+1]) = %g", k, y[k], want)
		}
	}
}

// TestParameterisationHintsSumToZeroNote: the curvature hint that names
// a sum_to_zero_vector's coordinate ends with the clause saying what it
// is (sumToZeroNote), before the pointer to a chain's hint.
func TestParameterisationHintsSumToZeroNote(t *testing.T) {
	file, info := checkedSrc(t, "param a: real ~ Normal(0, 1)\nparam bz: sum_to_zero_vector[2] ~ Normal(0, 1)\n")
	cc := &curvCheck{
		c:     &sgvb.Curvature{Ratio: []float64{2.5, 1.2}, Partner: []int{1, 0}, Corr: []float64{0.9, 0.9}},
		names: []string{"bz coordinate 0", "a"}, lats: []int{0, 1},
		r:        &sgvb.Result{Factors: []sgvb.Factor{{Name: "bz", Support: dist.SumToZero, Size: 1, Shape: []int{1}}, {Name: "a", Support: dist.Real, Size: 1, Offset: 1}}},
		autoLost: "bz+a", // the hint then needs no −H (curvGroup)
	}
	m := &compile.Model{Latents: []compile.Latent{{Name: "bz", Support: dist.SumToZero, Size: 1}, {Name: "a", Support: dist.Real, Size: 1}}}
	l := &pipeline.Loaded{File: file, Info: info, Model: m}
	hs := parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), cc, "", "", false)
	want := "; bz coordinate 0 is one of the 1 free coordinates of the sum_to_zero_vector bz, not its element 0: it moves as mean(bz[:1]) − bz[1] (docs/language.md, Sum-to-zero vectors)"
	if len(hs) != 1 || !strings.HasPrefix(hs[0], "bz coordinate 0's sd is about 2.5× too small") || !strings.HasSuffix(hs[0], want) {
		t.Errorf("hints %q, want one ending %q", hs, want)
	}
}
