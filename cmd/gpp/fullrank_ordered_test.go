package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
)

// fullRankNUTSTol is how far, in NUTS posterior sds, a --fullrank all
// fit's means may be from a short gpp sample run's on examples/ordinal,
// whose posterior is near normal in the unconstrained coordinates, and
// fullRankNUTSSDTol the relative difference of its sds: the fit's own
// error there (a normal on skewed coordinates, O(skewness/√n) on 200 rows)
// about 0.05 sd, plus the Monte Carlo error of both summaries (500 × 4
// NUTS draws, mcse about 0.03 sd; 1000 draws of q, 0.03 sd of a mean and
// 2 % of an sd). Measured: means within 0.06 sd, sds within 4 % (full
// and low rank). A
// mean-field fit's cutpoint sds are 26 % too small (c[0]) and 23 % too
// large (c[2]): it misses the correlations of x_0 and the increments.
const (
	fullRankNUTSTol   = 0.25
	fullRankNUTSSDTol = 0.15
)

// TestFitFullRankOrdered: --fullrank all (and all --rank 2, low-rank) on
// an ordered-logistic model puts its cutpoints (ordered[3]) in the joint
// factor by their coordinates (c_0 and the log increments) with beta; its
// means and sds are NUTS's within fullRankNUTSTol and fullRankNUTSSDTol,
// where the mean-field fit's sds are not. Its fit.json holds the one
// group, starts another fit (--init) and gpp predict, and read back
// (fitfile.InitResult) gives the cutpoints' moments of the fit's draws: those of
// the correlated coordinates, not of the parts apart.
func TestFitFullRankOrdered(t *testing.T) {
	const model, data = "../../examples/ordinal.gpp", "../../examples/ordinal.csv"
	d := t.TempDir()
	mf, nuts := filepath.Join(d, "meanfield"), filepath.Join(d, "nuts")
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", mf); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "sample", model, data, "--quiet", "--draws", "500", "--warmup", "300", "--out", nuts); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	flat, want := summaryStats(t, mf), summaryStats(t, nuts)
	farMF := false
	for _, name := range []string{"beta", "c[0]", "c[1]", "c[2]"} {
		farMF = farMF || math.Abs(flat[name][1]/want[name][1]-1) > fullRankNUTSSDTol
	}
	if !farMF {
		t.Error("the mean-field fit's sds are NUTS's within the tolerance: it does not tell a joint factor from mean-field")
	}
	l, err := pipeline.Load(model, []string{data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		fam  sgvb.Family
		rank int
	}{{[]string{"--fullrank", "all"}, sgvb.FamilyFullRank, 0}, {[]string{"--fullrank", "all", "--rank", "2"}, sgvb.FamilyLowRank, 2}} {
		what := strings.Join(c.args, " ")
		fr := filepath.Join(d, c.fam.String())
		args := append([]string{"fit", model, data, "--quiet", "--out", fr}, c.args...)
		if code, _, stderr := runSafe(t, args...); code != 0 || strings.Contains(stderr, "warning") || strings.Contains(stderr, "note") {
			t.Fatalf("fit %s: exit %d: %s", what, code, stderr)
		}
		got := summaryStats(t, fr)
		for _, name := range []string{"beta", "c[0]", "c[1]", "c[2]"} {
			g, f, w := got[name], flat[name], want[name]
			t.Logf("%s: %s %.4g (%.4g), mean-field %.4g (%.4g), NUTS %.4g (%.4g)", name, what, g[0], g[1], f[0], f[1], w[0], w[1])
			if math.Abs(g[0]-w[0]) > fullRankNUTSTol*w[1] || math.Abs(g[1]/w[1]-1) > fullRankNUTSSDTol {
				t.Errorf("%s: %s mean %.4g sd %.4g, NUTS %.4g %.4g", name, what, g[0], g[1], w[0], w[1])
			}
		}
		ff := readFit(t, filepath.Join(fr, "fit.json"))
		if len(ff.Groups) != 1 || !slices.Equal(ff.Groups[0].Names, []string{"beta", "c"}) || ff.Groups[0].Rank != c.rank || !fitfile.JointOrdered(ff.Factors, "c", c.fam) {
			t.Fatalf("%s: fit.json: groups %v, want beta+c of rank %d with c's %v parts", what, ff.Groups, c.rank, c.fam)
		}
		r, warns := fitfile.InitResult(ff, ff.Factors, ff.Groups, l.Model)
		if len(warns) > 0 {
			t.Fatalf("%s: fitfile.InitResult: %v", what, warns)
		}
		// the draws' sds: 1000 draws, 2 % Monte Carlo error; the parts'
		// variances summed instead are 20–60 % larger
		for k, sd := range r.Factor("c").SD() {
			w := got["c["+string(rune('0'+k))+"]"][1]
			if math.Abs(sd/w-1) > 0.1 {
				t.Errorf("%s: read back: c[%d] sd %.4g, the fit's draws' %.4g", what, k, sd, w)
			}
		}
		args = append([]string{"fit", model, data, "--init", fr, "--out", filepath.Join(d, "again")}, c.args...)
		if code, stdout, stderr := runSafe(t, args...); code != 0 || strings.Contains(stderr, "warning") || !strings.Contains(stderr, "(beta+c joint") {
			t.Errorf("%s --init: exit %d: %s%s", what, code, stdout, stderr)
		}
		pred := filepath.Join(d, "pred-"+c.fam.String())
		if code, stdout, stderr := runSafe(t, "predict", fr, model, data, "--quiet", "--out", pred); code != 0 || !strings.Contains(stdout, "c[2]  ") {
			t.Errorf("%s: predict: exit %d: %s%s", what, code, stdout, stderr)
		}
		if p := summaryStats(t, pred); math.Abs(p["c[2]"][1]/got["c[2]"][1]-1) > 0.1 {
			t.Errorf("%s: predict: c[2] sd %.4g, the fit's %.4g", what, p["c[2]"][1], got["c[2]"][1])
		}
	}
}

// TestFitFileOrderedGroupErrors: a hand-edited fit.json whose group holds
// an ordered latent with a part missing, with mean-field parts, or alone
// with mean-field parts is an error at the factor or the group (file,
// line and column), exit 1, not a panic.
func TestFitFileOrderedGroupErrors(t *testing.T) {
	const model, data = "../../examples/ordinal.gpp", "../../examples/ordinal.csv"
	d := t.TempDir()
	fr := filepath.Join(d, "fr")
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "all", "--iter", "300", "--plots=false", "--out", fr); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile(filepath.Join(fr, "fit.json"))
	if err != nil {
		t.Fatal(err)
	}
	meanField := []any{
		map[string]any{"name": "c", "family": "normal", "support": "real", "shape": []int{1}, "params": map[string]any{"mean": []float64{-1}, "sd": []float64{0.2}}},
		map[string]any{"name": "c", "family": "gamma", "support": "positive", "shape": []int{2}, "params": map[string]any{"shape": []float64{3, 3}, "rate": []float64{2, 2}}},
	}
	for _, c := range []struct {
		name string
		edit func(ff map[string]any, c map[string]any)
		want string
	}{
		{"a part missing", func(_, c map[string]any) { c["parts"] = c["parts"].([]any)[:1] }, `:\d+:\d+: factor c: an ordered factor of 3 elements has 1 parts, want 2`},
		{"mean-field parts", func(_, c map[string]any) { c["parts"] = meanField }, `:\d+:\d+: group beta\+c: c is not a fullrank factor of the fit`},
		{"alone, mean-field", func(ff, c map[string]any) {
			c["parts"] = meanField
			g := ff["groups"].([]any)[0].(map[string]any)
			g["names"] = []string{"c"}
		}, `:\d+:\d+: group c: a group has two or more factors`},
	} {
		var ff map[string]any
		if err := json.Unmarshal(src, &ff); err != nil {
			t.Fatal(err)
		}
		for _, f := range ff["factors"].([]any) {
			if f := f.(map[string]any); f["name"] == "c" {
				c.edit(ff, f)
			}
		}
		out, err := json.MarshalIndent(ff, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(d, strings.ReplaceAll(c.name, " ", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "fit.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"fit", model, data, "--quiet", "--fullrank", "all", "--iter", "10", "--init", filepath.Join(dir, "fit.json"), "--out", filepath.Join(d, "again")},
			{"predict", dir, model, data, "--quiet", "--out", filepath.Join(d, "pred")},
		} {
			code, _, stderr := runSafe(t, args...)
			if re := regexp.MustCompile(regexp.QuoteMeta(filepath.Join(dir, "fit.json")) + c.want); code != 1 || !re.MatchString(stderr) {
				t.Errorf("%s: gpp %s: exit %d: %s; want %s", c.name, args[0], code, stderr, re)
			}
		}
	}
}
