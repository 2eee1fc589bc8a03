package main

import (
	"bytes"
	"cmp"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// sensTestBase is a base of S draws of n elements of a vector v: element
// i's draws are normal with mean i and sd 1 + i/4, the log prior and
// likelihood two functions of element 0, and equal base weights.
func sensTestBase(n, S int, seed uint64) *sensBase {
	rng := rand.New(rand.NewPCG(seed, 1))
	ds := &drawSet{vars: []variable{{name: "v", shape: []int{n}}}}
	for i := range n {
		ds.vars[0].elems = append(ds.vars[0].elems, i)
		col := make([]float64, S)
		for s := range col {
			col[s] = float64(i) + (1+float64(i)/4)*rng.NormFloat64()
		}
		ds.cols = append(ds.cols, col)
	}
	b := &sensBase{ds: ds, lprior: make([]float64, S), llik: make([]float64, S), kBase: math.NaN(), kFit: math.NaN(), what: "test draws"}
	for s, x := range ds.cols[0] {
		b.lprior[s] = -x * x / 2
		b.llik[s] = -(x - 1) * (x - 1) / 0.5
	}
	return b
}

// sensTestWeights gives b's draws a fit's base log weights, draw s's
// step·(s mod period) less log S.
func sensTestWeights(b *sensBase, step float64, period int) {
	S := len(b.lprior)
	b.lwBase = make([]float64, S)
	for s := range b.lwBase {
		b.lwBase[s] = step*float64(s%period) - math.Log(float64(S))
	}
}

// TestSensPlotChoice: the figure's elements are the 6 of largest
// max(prior, likelihood), ties in table order, NaN rows left out.
func TestSensPlotChoice(t *testing.T) {
	rows := []sensRow{
		{prior: 0.1, lik: 0.2},        // 0: 0.2
		{prior: 0.5, lik: 0.01},       // 1: 0.5
		{prior: math.NaN(), lik: 0.9}, // 2: left out
		{prior: 0.2, lik: 0.1},        // 3: 0.2, after 0
		{prior: 0.01, lik: 0.02},      // 4: 0.02
		{prior: 0.3, lik: 0.3},        // 5: 0.3
		{prior: 0.05, lik: 0.04},      // 6: 0.05
		{prior: 0.2, lik: 0.2},        // 7: 0.2, after 3
		{prior: 0.001, lik: 0.001},    // 8: smallest
	}
	if got, want := sensPlotChoice(rows), []int{1, 5, 0, 3, 7, 6}; !slices.Equal(got, want) {
		t.Errorf("sensPlotChoice = %v, want %v", got, want)
	}
	if got := sensPlotChoice(rows[:2]); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("two rows: %v, want [1 0]", got)
	}
}

// TestSensPlotWeights: the figure's weights, the prior's and the
// likelihood's at α = 0.8 and 1.25 through powerScaleWeights as the
// table's, are exp((α − 1)·part) times the base weight, up to a constant,
// at every draw that Pareto smoothing leaves (all but the largest
// min(S/5, 3√S) ratios).
func TestSensPlotWeights(t *testing.T) {
	const S = 400
	b := sensTestBase(3, S, 5)
	rng := rand.New(rand.NewPCG(9, 9))
	b.lwBase = make([]float64, S)
	for s := range b.lwBase {
		b.lwBase[s] = 0.3*rng.NormFloat64() - math.Log(S)
	}
	curves := sensPlotCurves(b)
	tail := int(math.Min(S/5, 3*math.Sqrt(S)))
	for p, comp := range [][]float64{b.lprior, b.llik} {
		for j, alpha := range sensPlotAlphas {
			cv := curves[p][j]
			if cv.alpha != alpha {
				t.Fatalf("curve %d,%d has α %g, want %g", p, j, cv.alpha, alpha)
			}
			// the draws of the smallest (α − 1)·part: untouched by smoothing
			lr := make([]float64, S)
			for s, v := range comp {
				lr[s] = (alpha - 1) * v
			}
			order := make([]int, S)
			for s := range order {
				order[s] = s
			}
			slices.SortFunc(order, func(a, c int) int { return cmp.Compare(lr[a], lr[c]) })
			ref := order[0]
			for _, s := range order[:S-tail-1] {
				want := math.Exp(lr[s]-lr[ref]) * math.Exp(b.lwBase[s]-b.lwBase[ref])
				if got := cv.w[s] / cv.w[ref]; math.Abs(got-want) > 1e-12*want {
					t.Fatalf("part %d α %g draw %d: weight ratio %.15g, directly %.15g", p, alpha, s, got, want)
				}
			}
			if _, k := sgvb.PSIS(lr); k != cv.k && !(math.IsNaN(k) && math.IsNaN(cv.k)) {
				t.Errorf("part %d α %g: k̂ %g, PSIS's %g", p, alpha, cv.k, k)
			}
		}
	}
}

// TestSensitivityPlotsPanels: the figure has two rows (prior, likelihood)
// of a panel per chosen element, titled by it, and a decodable PNG as
// wide as its columns; it is drawn for a constant element, weights that
// are NaN at some draws (a part not finite there) and a single draw.
func TestSensitivityPlotsPanels(t *testing.T) {
	for _, c := range []struct {
		name  string
		n, S  int
		edit  func(b *sensBase)
		elems int
	}{
		{"nine elements", 9, 500, func(b *sensBase) {}, 6},
		{"two elements", 2, 500, func(b *sensBase) {}, 2},
		{"constant", 3, 200, func(b *sensBase) {
			for s := range b.ds.cols[1] {
				b.ds.cols[1][s] = 2.5
			}
		}, 3},
		{"NaN weights", 3, 200, func(b *sensBase) {
			for s := 0; s < 200; s += 7 {
				b.lprior[s], b.llik[s] = math.NaN(), math.Inf(-1)
			}
		}, 3},
		{"one draw", 2, 1, func(b *sensBase) {}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := sensTestBase(c.n, c.S, 3)
			c.edit(b)
			rows, _ := powerScale(b, 0.05, 1)
			cols := sensElemCols(b)
			plots, head, err := sensPanels(b, rows, cols)
			if err != nil {
				t.Fatal(err)
			}
			if len(plots) != 2 || len(plots[0]) != c.elems || len(plots[1]) != c.elems {
				t.Fatalf("panels %d rows; want 2 rows of %d", len(plots), c.elems)
			}
			for k, i := range sensPlotChoice(rows) {
				for p, part := range []string{"prior", "likelihood"} {
					if title := plots[p][k].Title.Text; !strings.HasPrefix(title, rows[i].name+": "+part+" ") {
						t.Errorf("panel %d,%d titled %q, want %s's %s", p, k, title, rows[i].name, part)
					}
				}
			}
			if !strings.Contains(head, "α = 0.8 and 1.25") {
				t.Errorf("title %q", head)
			}
			dir := t.TempDir()
			if err := writeSensitivityPlots(dir, b, rows); err != nil {
				t.Fatal(err)
			}
			img := decodePNG(t, filepath.Join(dir, sensPlotFile))
			// 7 cm a column at plotDPI
			if w, want := img.Bounds().Dx(), int(math.Round(float64(c.elems)*7/2.54*plotDPI)); math.Abs(float64(w-want)) > 1 {
				t.Errorf("width %d px, want %d for %d columns", w, want, c.elems)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("%d files in the directory, want sensitivity.png alone", len(ents))
			}
		})
	}
}

// TestSensitivityPlotsCommand: gpp sensitivity --plots DIR writes
// DIR/sensitivity.png (creating DIR) and says so; an unwritable DIR is an
// error, exit 1.
func TestSensitivityPlotsCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sample")
	if code, _, stderr := runGpp("sample", sensModel, "testdata/sensitivity/y100.csv", "--seed", "3", "--out", out, "--quiet",
		"--chains", "1", "--draws", "200", "--warmup", "200"); code != 0 {
		t.Fatalf("gpp sample: %s", stderr)
	}
	plots := filepath.Join(dir, "plots", "sub")
	code, stdout, stderr := runGpp("sensitivity", out, "--plots", plots)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := filepath.Join(plots, sensPlotFile)
	if !strings.Contains(stdout, "written      "+path+"\n") {
		t.Errorf("stdout does not name %s:\n%s", path, stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("%s: %v", path, err)
	}
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	if code, _, stderr := runGpp("sensitivity", out, "--plots", blocker); code != exitError || !strings.Contains(stderr, blocker) {
		t.Errorf("--plots on a file: exit %d, stderr %q", code, stderr)
	}
}

// TestPowerScaleWorkers: the sensitivities of 40 elements over 1000 draws
// are the same, bit for bit, on 1, 2 and 5 goroutines, with equal base
// weights and with a fit's.
func TestPowerScaleWorkers(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		b := sensTestBase(40, 1000, 11)
		if weighted {
			sensTestWeights(b, 0.01, 17)
		}
		one, ks1 := powerScale(b, 0.05, 1)
		for _, w := range []int{2, 5} {
			got, ks := powerScale(b, 0.05, w)
			if ks != ks1 {
				t.Errorf("k̂ on %d workers %v, on 1 %v", w, ks, ks1)
			}
			for i := range one {
				if got[i].name != one[i].name || math.Float64bits(got[i].prior) != math.Float64bits(one[i].prior) ||
					math.Float64bits(got[i].lik) != math.Float64bits(one[i].lik) || got[i].diagnosis != one[i].diagnosis {
					t.Errorf("weighted %v, row %d on %d workers %+v, on 1 %+v", weighted, i, w, got[i], one[i])
				}
			}
		}
		if one[0].prior == 0 || one[0].lik == 0 || math.IsNaN(one[39].prior) {
			t.Errorf("weighted %v: sensitivities %+v … %+v", weighted, one[0], one[39])
		}
	}
}

// BenchmarkPowerScale: the sensitivities of 100 elements over 4000 draws
// (a sample of 4 chains × 1000), on 1 and on 2 goroutines.
func BenchmarkPowerScale(b *testing.B) {
	base := sensTestBase(100, 4000, 1)
	for _, w := range []int{1, 2} {
		b.Run("workers="+string(rune('0'+w)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				powerScale(base, 0.05, w)
			}
		})
	}
}

// TestPowerScaleConstantPart: a part constant at every draw (flat priors,
// no data) gives sensitivities of exactly 0, with a base weighted or not,
// and its warning; the other part's are unchanged. Below 10 draws, which
// PSIS cannot smooth, a warning says the sensitivities are unreliable.
func TestPowerScaleConstantPart(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		b := sensTestBase(3, 500, 5)
		if weighted {
			sensTestWeights(b, 0.03, 7)
		}
		before, _ := powerScale(b, 0.05, 1)
		for s := range b.lprior {
			b.lprior[s] = -1.7 // a flat prior's constant
		}
		rows, _ := powerScale(b, 0.05, 1)
		for i, r := range rows {
			if r.prior != 0 || math.Float64bits(r.lik) != math.Float64bits(before[i].lik) || r.lik == 0 {
				t.Errorf("weighted %v, row %d: %+v (likelihood before %g)", weighted, i, r, before[i].lik)
			}
		}
		var ks [4]float64
		if w := strings.Join(sensWarnings(b, ks), "\n"); !strings.Contains(w, "prior is constant") {
			t.Errorf("weighted %v: warnings %q", weighted, w)
		}
		// Equal weights have no tail to fit: no k̂ (not PSIS's −Inf).
		_, ks = powerScale(b, 0.05, 1)
		var out strings.Builder
		printSensitivity(&out, &sensConfig{threshold: 0.05}, b, rows, ks)
		if !strings.Contains(out.String(), "Pareto k̂     prior none (equal weights); likelihood ") || strings.Contains(out.String(), "Inf") {
			t.Errorf("weighted %v: the k̂ line of a constant prior:\n%s", weighted, out.String())
		}
	}
	b := sensTestBase(2, 6, 5)
	_, ks := powerScale(b, 0.05, 1)
	if w := strings.Join(sensWarnings(b, ks), "\n"); !strings.Contains(w, "6 draws are too few to Pareto-smooth") {
		t.Errorf("6 draws: warnings %q", w)
	}
}

// TestSensWarningsFitK: whether a fit's q is reliable enough for a base is
// judged by the k̂ that gpp fit reported (of up to 10 000 draws), not by the
// noisier k̂ of the --draws weighted here, which is judged only when the
// fit's is unknown.
func TestSensWarningsFitK(t *testing.T) {
	for _, c := range []struct {
		kBase, kFit float64
		warn        bool
	}{{0.9, 0.4, false}, {0.4, 0.9, true}, {0.9, math.NaN(), true}, {0.4, math.NaN(), false}} {
		b := sensTestBase(2, 200, 3)
		sensTestWeights(b, 0.01, 5)
		b.kBase, b.kFit = c.kBase, c.kFit
		_, ks := powerScale(b, 0.05, 1)
		w := strings.Join(sensWarnings(b, ks), "\n")
		if got := strings.Contains(w, "importance weights p/q have Pareto"); got != c.warn {
			t.Errorf("k̂ %g here, %g the fit's: warned %v, want %v (%q)", c.kBase, c.kFit, got, c.warn, w)
		}
	}
}
