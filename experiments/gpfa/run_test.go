package gpfa

import (
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/internal/shareddata"
)

// readCSV reads a result CSV and checks its header.
func readCSV(t *testing.T, path string, header []string) [][]string {
	t.Helper()
	recs := reftest.ReadCSV(t, path)
	if strings.Join(recs[0], ",") != strings.Join(header, ",") {
		t.Fatalf("%s: header %v, want %v", path, recs[0], header)
	}
	return recs[1:]
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s: %v", path, b)
	}
}

func checkFloat(t *testing.T, s, what string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s %q: %v", what, s, err)
	}
	return v
}

func TestQuickRunSynthetic(t *testing.T) {
	out := t.TempDir()
	var log strings.Builder
	rep, err := RunSynthetic(context.Background(), Options{Out: out, Ns: []int{100}, Seeds: 1, Quick: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "gpfa_synthetic.csv"), []string{"N", "seed", "method", "amari", "seconds", "elbo"})
	if len(rows) != len(AllMethods) || len(rep.Synthetic) != len(AllMethods) {
		t.Fatalf("%d CSV rows, %d report rows; want %d", len(rows), len(rep.Synthetic), len(AllMethods))
	}
	for i, r := range rows {
		if r[0] != "100" || r[1] != "1" || r[2] != AllMethods[i] {
			t.Errorf("row %d: %v", i, r)
		}
		if a := checkFloat(t, r[3], "amari"); !(a >= 0 && a <= 1) {
			t.Errorf("row %d: Amari %v outside [0, 1]", i, a)
		}
		checkFloat(t, r[4], "seconds")
		checkFloat(t, r[5], "elbo")
	}
	checkPNG(t, filepath.Join(out, "gpfa_synthetic.png"))
	checkPNG(t, filepath.Join(out, "gpfa_loadings.png"))
	md, err := os.ReadFile(filepath.Join(out, "gpfa_synthetic.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| 100 |") || !strings.Contains(string(md), "Run "+time.Now().UTC().Format(time.DateOnly)) {
		t.Errorf("Markdown lacks the table or the date:\n%s", md)
	}
	if strings.Count(log.String(), "\n") != len(AllMethods) {
		t.Errorf("log:\n%s", log.String())
	}
}

func TestQuickRunCyTOF(t *testing.T) {
	data := shareddata.Path(t, CyTOFFile)
	out := t.TempDir()
	rep, err := RunCyTOF(context.Background(), Options{Out: out, Ns: []int{100}, Quick: true, K: 5, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "gpfa_cytof.csv"), []string{"n", "method", "nll", "seconds", "var_ratio_median", "var_ratio_max", "understated", "active"})
	want := map[string]bool{BaselineEmpirical: true, BaselineLedoitWolf: true, BaselineNonnegML: true}
	for _, m := range CyTOFMethods {
		want[m] = true
	}
	if len(rows) != len(want) || len(rep.CyTOF) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(rows), len(want), rows)
	}
	for _, r := range rows {
		if r[0] != "100" || !want[r[1]] {
			t.Errorf("row %v", r)
		}
		nll := checkFloat(t, r[2], "nll")
		if r[1] == BaselineLedoitWolf && (nll < 42.52 || nll > 42.54) {
			t.Errorf("Ledoit–Wolf NLL at n=100 %v, want 42.53", nll)
		}
		checkFloat(t, r[3], "seconds")
		med, mx := checkFloat(t, r[4], "var_ratio_median"), checkFloat(t, r[5], "var_ratio_max")
		if finite := !math.IsNaN(nll) && !math.IsInf(nll, 0); finite && !(med > 0 && med <= mx) || !finite && med != 0 {
			t.Errorf("%s: variance ratios median %v, max %v", r[1], med, mx)
		}
		if u, err := strconv.Atoi(r[6]); err != nil || u < 0 || u > 42 || (u > 0) != (mx > UnderstatedRatio) {
			t.Errorf("%s: %q markers understated with largest ratio %v", r[1], r[6], mx)
		}
		a, err := strconv.Atoi(r[7])
		fitted := r[1] == MethodGamma || r[1] == MethodLognormal || r[1] == MethodGammaWS || r[1] == MethodGammaDiag || r[1] == MethodFA
		if err != nil || a < 0 || a > 5 || (fitted && a == 0) {
			t.Errorf("%s: %q active factors of K = 5", r[1], r[7])
		}
	}
	// gamma-diag fits examples/gpfa_diag.gpp with gamma's settings and
	// seed: the same model would give the same numbers.
	nll := map[string]float64{}
	for _, r := range rep.CyTOF {
		nll[r.Method] = r.NLL
	}
	if g, d := nll[MethodGamma], nll[MethodGammaDiag]; g == d || math.IsNaN(d) {
		t.Errorf("gamma NLL %v, gamma-diag %v: want a finite, different value (another model)", g, d)
	}
	// fa fits examples/fa.gpp, a third model (signed loadings).
	if f := nll[MethodFA]; f == nll[MethodGamma] || f == nll[MethodGammaDiag] || math.IsNaN(f) || math.IsInf(f, 0) {
		t.Errorf("fa NLL %v (gamma %v, gamma-diag %v): want a finite, different value", f, nll[MethodGamma], nll[MethodGammaDiag])
	}
	checkPNG(t, filepath.Join(out, "gpfa_cytof.png"))
	md, err := os.ReadFile(filepath.Join(out, "gpfa_cytof.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| 100 |") {
		t.Errorf("Markdown lacks the table:\n%s", md)
	}
	if !strings.Contains(string(md), "The other models against the same thresholds: `gamma-diag` ") || !strings.Contains(string(md), "; `fa` ") {
		t.Errorf("Markdown lacks the other models against the goals' thresholds:\n%s", md)
	}
}

func TestOptionsRejectUnknownMethod(t *testing.T) {
	_, err := RunSynthetic(context.Background(), Options{Out: t.TempDir(), Ns: []int{10}, Seeds: 1, Quick: true, Methods: []string{"nuts"}})
	if err == nil || !strings.Contains(err.Error(), "nuts") {
		t.Errorf("err = %v, want unknown method", err)
	}
	_, err = RunSynthetic(context.Background(), Options{Out: t.TempDir(), Ns: []int{10}, Seeds: 1, Quick: true, Methods: []string{MethodGammaDiag}})
	if err == nil || !strings.Contains(err.Error(), "CyTOF method") {
		t.Errorf("err = %v, want gamma-diag refused by the synthetic runner", err)
	}
	_, err = RunSynthetic(context.Background(), Options{Out: t.TempDir(), Ns: []int{10}, Seeds: 1, Quick: true, Methods: []string{MethodFA}})
	if err == nil || !strings.Contains(err.Error(), "CyTOF method") {
		t.Errorf("err = %v, want fa refused by the synthetic runner", err)
	}
}

// Fits run in parallel use one worker each (their own helpers would only
// contend with the other fits); a lone fit keeps the engine's default.
func TestFitWorkers(t *testing.T) {
	for _, c := range []struct{ parallel, want int }{{1, 0}, {2, 1}} {
		o := Options{Parallel: c.parallel}
		for _, m := range CyTOFMethods {
			s, err := settingsFor(m, o.fitConfig(1))
			if err != nil {
				t.Fatal(err)
			}
			if s.Workers != c.want {
				t.Errorf("Parallel %d, %s: Workers %d, want %d", c.parallel, m, s.Workers, c.want)
			}
		}
	}
}

// The model is found relative to the working directory, so that reports
// name it without this machine's absolute paths.
func TestModelPathRelative(t *testing.T) {
	p, err := ModelPath("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "..", "examples", "gpfa.gpp"); p != want {
		t.Errorf("ModelPath = %q, want %q", p, want)
	}
	p, err = DiagModelPath("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "..", "examples", "gpfa_diag.gpp"); p != want {
		t.Errorf("DiagModelPath = %q, want %q", p, want)
	}
	p, err = FAModelPath("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "..", "examples", "fa.gpp"); p != want {
		t.Errorf("FAModelPath = %q, want %q", p, want)
	}
}
