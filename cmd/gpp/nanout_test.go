package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// nanOutModel's w = log(mu - c) is finite in every draw at c = -10, NaN in
// every draw at c = 10 and NaN in about half at c = 0 (mu ≈ 0 ± 0.5); e
// overflows to +Inf where mu > 0.71.
const nanOutModel = "data y: real[N]\ndata c: real[M]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\noutput w = log(mu - c)\noutput e = exp(1000 * mu)\n"

// TestNonFiniteOutputSummary: an element not finite in some draws does not
// read as an ordinary summary in gpp fit, sample, predict and summary: its
// table row ends "(K of N draws finite)", or "(NaN in every draw)" with no
// numbers; summary.csv gains n_finite, each row's count of finite draws in
// draws.csv; and the warning names the elements NaN in some draws with
// their counts, not only the worst (lxu[3] NaN in 935 of 1000 draws hid
// behind lxu[2] NaN in all).
func TestNonFiniteOutputSummary(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", nanOutModel)
	data := writeFile(t, d, "d.json", `{"y": [0, 0, 0], "c": [-10, 10, 0, 10, 10]}`)
	fit := filepath.Join(d, "fit")
	runs := []struct {
		name  string
		args  []string
		draws string // the draws.csv the run summarises
		csv   string // its summary.csv
	}{
		{"fit", []string{"fit", model, data, "--quiet", "--out", fit}, fit, fit},
		{"predict", []string{"predict", fit, model, data, "--out", filepath.Join(d, "pred")}, filepath.Join(d, "pred"), filepath.Join(d, "pred")},
		{"summary", []string{"summary", fit, "--out", filepath.Join(d, "sum.csv")}, fit, filepath.Join(d, "sum.csv")},
		{"sample", []string{"sample", model, data, "--quiet", "--draws", "200", "--warmup", "200", "--out", filepath.Join(d, "smp")}, filepath.Join(d, "smp"), filepath.Join(d, "smp")},
	}
	for _, r := range runs {
		code, stdout, stderr := runSafe(t, r.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", r.name, code, stderr)
		}
		draws := drawCols(t, filepath.Join(r.draws, "draws.csv"))
		csvPath := r.csv
		if !strings.HasSuffix(csvPath, ".csv") {
			csvPath = filepath.Join(csvPath, "summary.csv")
		}
		rows := reftest.ReadCSV(t, csvPath)
		col := columns(rows[0])
		if last := rows[0][len(rows[0])-1]; last != "n_finite" {
			t.Errorf("%s: summary.csv's last column %q, want n_finite", r.name, last)
		}
		nan := map[string]int{}
		for _, row := range rows[1:] {
			name := row[0]
			xs, ok := draws[stanName(name)]
			if !ok {
				t.Fatalf("%s: no draws of %s", r.name, name)
			}
			finite := 0
			for _, x := range xs {
				if math.IsNaN(x) {
					nan[name]++
				} else if !math.IsInf(x, 0) {
					finite++
				}
			}
			if got := row[col["n_finite"]]; got != strconv.Itoa(finite) {
				t.Errorf("%s: %s n_finite %s, want %d", r.name, name, got, finite)
			}
			line := tableLine(stdout, name)
			if line == "" {
				t.Errorf("%s: no table row for %s:\n%s", r.name, name, stdout)
				continue
			}
			switch n := len(xs); {
			case finite == n:
				if strings.Contains(line, "(") {
					t.Errorf("%s: %s, finite in every draw, is marked: %q", r.name, name, line)
				}
			case nan[name] == n:
				if rest, ok := strings.CutSuffix(line, "(NaN in every draw)"); !ok || strings.Contains(rest, "NaN") {
					t.Errorf("%s: %s, NaN in every draw: row %q, want no numbers and (NaN in every draw)", r.name, name, line)
				}
			default:
				if want := fmt.Sprintf("(%d of %d draws finite)", finite, n); !strings.HasSuffix(line, want) {
					t.Errorf("%s: %s row %q, want it to end %s", r.name, name, line, want)
				}
			}
		}
		n := len(draws["w.3"])
		if nan["w[0]"] != 0 || nan["w[1]"] != n || nan["w[2]"] == 0 || nan["w[2]"] == n || nan["e"] != 0 || len(draws["e"]) == 0 {
			t.Fatalf("%s: the model's draws are not the case tested: NaN counts %v of %d", r.name, nan, n)
		}
		if inf := n - nan["e"] - countFinite(draws["e"]); inf == 0 || inf == n {
			t.Fatalf("%s: e is +Inf in %d of %d draws, want some", r.name, inf, n)
		}
		want := fmt.Sprintf("w is NaN in some draws of 4 of its 5 elements (w[1] in every draw, w[2] in %d of %d draws, w[3] in every draw, and 1 more: summary.csv's n_finite); their rows summarise the other draws", nan["w[2]"], n)
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("%s: no warning %q:\n%s%s", r.name, want, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, "e is NaN") || strings.Contains(stdout+stderr, "no problems detected") {
			t.Errorf("%s: a NaN warning for e, or none for w:\n%s%s", r.name, stdout, stderr)
		}
	}
}

// tableLine returns the console table's row of the element name, its
// trailing spaces trimmed ("" if none).
func tableLine(stdout, name string) string {
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return strings.TrimRight(l, " ")
		}
	}
	return ""
}

// stanName is draws.csv's name of a summary's element: w.3 for w[2].
func stanName(name string) string {
	base, idx, ok := strings.Cut(strings.TrimSuffix(name, "]"), "[")
	if !ok {
		return name
	}
	k, _ := strconv.Atoi(idx)
	return fmt.Sprintf("%s.%d", base, k+1)
}

// countFinite counts the finite values of xs.
func countFinite(xs []float64) int {
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			n++
		}
	}
	return n
}

// TestMarkFinite: a row's note by its draws (summarise): none where all
// are finite, the count where some are, "no finite draw" where none is
// but not all are NaN (infinities), and blank numbers only where every
// draw is NaN.
func TestMarkFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		draws []float64
		want  []string
	}{
		{[]float64{1, 2, 3}, []string{"x", "2"}},
		{[]float64{1, nan, 3}, []string{"x", "2", "(2 of 3 draws finite)"}},
		{[]float64{1, inf, 3}, []string{"x", "+Inf", "(2 of 3 draws finite)"}},
		{[]float64{inf, nan, -inf}, []string{"x", "NaN", "(no finite draw of 3)"}},
		{[]float64{nan, nan}, []string{"x", "", "(NaN in every draw)"}},
	} {
		s := summarise(c.draws, 0)
		got := markFinite([]string{"x", fmt.Sprint(s.mean)}, 1, s)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("draws %v: row %q, want %q", c.draws, got, c.want)
		}
	}
}

// TestZeroLengthOutput: an output with no elements (head(y, 0), or a
// log_lik over data with no rows) has no column, and gpp fit, fit --prior
// and sample write the others; counting its NaN draws, last in the model,
// indexed past the columns and panicked.
func TestZeroLengthOutput(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1)\noutput m2 = 2 * mu\noutput h = head(y, 0)\n")
	data := writeFile(t, d, "d.json", `{"y": [0.1, 0.5, -0.3]}`)
	for _, args := range [][]string{
		{"fit", model, data, "--quiet"},
		{"fit", "--prior", model, data, "--quiet"},
		{"sample", model, data, "--quiet", "--chains", "1", "--draws", "100", "--warmup", "100"},
	} {
		out := filepath.Join(d, args[0]+strconv.Itoa(len(args)))
		code, stdout, stderr := runGpp(append(args, "--out", out)...)
		if code != 0 || !strings.Contains(stdout, "m2") {
			t.Errorf("gpp %s: exit %d, want 0 and m2's row:\n%s%s", strings.Join(args[:2], " "), code, stdout, stderr)
		}
	}
}
