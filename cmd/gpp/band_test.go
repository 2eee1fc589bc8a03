package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// bandModel is a centred local-level model for the --band tests.
const bandModel = `data y: real[T]
param sigma_lvl: positive ~ HalfNormal(1)
param sigma_obs: positive ~ HalfNormal(1)
param level: real[T]
level[0] ~ Normal(0, 10)
level[1:] ~ Normal(level[:T-1], sigma_lvl)
y ~ Normal(level, sigma_obs)
`

// TestFitBanded: `--fullrank level --band 1` fits the level with a banded
// factor, ends above mean-field's ELBO, writes it to fit.json (group band
// 1, params mean, band[0], band[1]; the member's factor banded), a
// second fit warm-started from that file at a step size of 10⁻⁹ starts
// at the first fit's final ELBO, gpp predict draws from it, a bad value
// in the file is a positioned error, and the flag combinations it refuses
// are errors.
func TestFitBanded(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "ll.gpp", bandModel)
	data := writeFile(t, d, "ll.csv", localLevelCSV())
	first, mf := filepath.Join(d, "first"), filepath.Join(d, "mf")
	base := []string{"fit", model, data, "--quiet", "--workers", "1"}
	args := append(slices.Clone(base), "--fullrank", "level", "--band", "1")
	if code, _, stderr := runSafe(t, append(args, "--out", first)...); code != 0 {
		t.Fatalf("banded fit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, append(base, "--out", mf)...); code != 0 {
		t.Fatalf("mean-field fit: exit %d: %s", code, stderr)
	}
	init := filepath.Join(first, "fit.json")
	ff := readJSONObject(t, init)
	bd, mfE := ff["elbo"].(float64), readJSONObject(t, filepath.Join(mf, "fit.json"))["elbo"].(float64)
	t.Logf("ELBO banded %.3f, mean-field %.3f", bd, mfE)
	if !(bd > mfE+3) {
		t.Errorf("banded ELBO %.3f, mean-field %.3f: want 3 nats better", bd, mfE)
	}
	groups, _ := ff["groups"].([]any)
	if len(groups) != 1 {
		t.Fatalf("fit.json has groups %v, want one", ff["groups"])
	}
	g := groups[0].(map[string]any)
	params := g["params"].(map[string]any)
	if names := fmt.Sprint(g["names"]); names != "[level]" || g["band"] != 1.0 || len(params) != 3 || len(params["band[1]"].([]any)) != 60 {
		t.Errorf("group names %s, band %v, %d params", names, g["band"], len(params))
	}
	for _, f := range ff["factors"].([]any) {
		f := f.(map[string]any)
		if want := map[bool]string{true: "banded", false: "gamma"}[f["name"] == "level"]; f["family"] != want {
			t.Errorf("factor %v has family %v, want %s", f["name"], f["family"], want)
		}
	}
	if r := ff["settings"].(map[string]any)["band"]; r != 1.0 {
		t.Errorf("fit.json settings.band = %v, want 1", r)
	}
	// the summary's sd of level[i] is the banded factor's marginal: between
	// 0 and the data's noise sd
	for _, row := range reftest.ReadCSV(t, filepath.Join(first, "summary.csv"))[1:] {
		if strings.HasPrefix(row[0], "level[") {
			if v, _ := strconv.ParseFloat(row[3], 64); !(v > 0.05 && v < 0.8) {
				t.Errorf("%s: sd %v", row[0], row[3])
			}
		}
	}
	_, final, _ := warmStart(t, first, first)
	second := filepath.Join(d, "second")
	if code, _, stderr := runSafe(t, append(args, "--iter", "100", "--tol", "0", "--step-size", "1e-9", "--init", init, "--out", second)...); code != 0 || strings.Contains(stderr, "warning: --init") {
		t.Fatalf("warm fit: exit %d: %s", code, stderr)
	}
	if _, _, w := warmStart(t, first, second); math.Abs(w-final) > 0.01 {
		t.Errorf("warm start at step size 10⁻⁹: ELBO %g, the first fit's final %g", w, final)
	}
	if code, _, stderr := runSafe(t, "predict", first, model, data, "--quiet", "--out", filepath.Join(d, "pred")); code != 0 {
		t.Errorf("predict: exit %d: %s", code, stderr)
	}
	params["band[0]"].([]any)[3] = -0.5
	b, err := json.MarshalIndent(ff, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, d, "bad.json", string(b))
	code, _, stderr := runSafe(t, append(args, "--init", bad, "--out", filepath.Join(d, "out"))...)
	if want := `group level: parameter "band[0]": bad value -0.5 at element 3`; code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "bad.json:") {
		t.Errorf("exit %d, want 1 and a positioned %q:\n%s", code, want, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--band", "1"}, "--band needs --fullrank"},
		{[]string{"--fullrank", "level", "--band", "-1"}, "--band -1: want 0 (none) or a bandwidth from 1 to"},
		{[]string{"--fullrank", "level", "--band", "1", "--rank", "2"}, "--band and --rank"},
		{[]string{"--fullrank", "all", "--band", "1"}, "a banded factor is over a chain of states, named first"},
		{[]string{"--fullrank", "sigma_obs+level", "--band", "1"}, "--fullrank sigma_obs+level --band 1: 60 elements after the chain sigma_obs; an arrowhead factor takes the chain first and at most 16"},
		{[]string{"--fullrank", "nope", "--band", "1"}, "the model has no param nope"},
	} {
		code, _, stderr := runSafe(t, append(append(slices.Clone(base), c.args...), "--out", filepath.Join(d, "out"))...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(d, "pred", "summary.csv")); err != nil {
		t.Errorf("predict wrote no summary: %v", err)
	}
}

// TestFitArrowhead: `--fullrank level+sigma_lvl+sigma_obs --band 1` fits
// one arrowhead factor (the level's chain, then the two sigmas' dense
// rows): fit.json has its group (params mean, band[0], band[1], arrow[0],
// arrow[1]; arrow[r] zero from element 60 + r on), the level's factor
// banded and the sigmas' full-rank (their marginals), the ELBO at least
// the band-1 factor's of the level alone less 1 nat, a warm start from the
// file at a step size of 10⁻⁹ starts at the first fit's final ELBO, gpp
// predict draws from it, and a nonzero arrow entry past its row's
// diagonal is a positioned error.
func TestFitArrowhead(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "ll.gpp", bandModel)
	data := writeFile(t, d, "ll.csv", localLevelCSV())
	first, alone := filepath.Join(d, "first"), filepath.Join(d, "alone")
	base := []string{"fit", model, data, "--quiet", "--workers", "1", "--band", "1"}
	args := append(slices.Clone(base), "--fullrank", "level+sigma_lvl+sigma_obs")
	if code, _, stderr := runSafe(t, append(args, "--out", first)...); code != 0 {
		t.Fatalf("arrowhead fit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, append(base, "--fullrank", "level", "--out", alone)...); code != 0 {
		t.Fatalf("banded fit: exit %d: %s", code, stderr)
	}
	init := filepath.Join(first, "fit.json")
	ff := readJSONObject(t, init)
	ar, bd := ff["elbo"].(float64), readJSONObject(t, filepath.Join(alone, "fit.json"))["elbo"].(float64)
	t.Logf("ELBO arrowhead %.3f, level alone banded %.3f", ar, bd)
	if !(ar > bd-1) {
		t.Errorf("arrowhead ELBO %.3f, banded level alone %.3f: want no more than 1 nat below", ar, bd)
	}
	groups, _ := ff["groups"].([]any)
	if len(groups) != 1 {
		t.Fatalf("fit.json has groups %v, want one", ff["groups"])
	}
	g := groups[0].(map[string]any)
	params := g["params"].(map[string]any)
	if names := fmt.Sprint(g["names"]); names != "[level sigma_lvl sigma_obs]" || g["band"] != 1.0 || len(params) != 5 {
		t.Fatalf("group names %s, band %v, %d params", names, g["band"], len(params))
	}
	for r := range 2 {
		row := params[fmt.Sprintf("arrow[%d]", r)].([]any)
		if len(row) != 62 || row[10] == 0.0 || row[60+r] != 0.0 {
			t.Errorf("arrow[%d]: %d values, [10] = %v, [%d] = %v", r, len(row), row[10], 60+r, row[60+r])
		}
	}
	for _, f := range ff["factors"].([]any) {
		f := f.(map[string]any)
		if want := map[bool]string{true: "banded", false: "fullrank"}[f["name"] == "level"]; f["family"] != want {
			t.Errorf("factor %v has family %v, want %s", f["name"], f["family"], want)
		}
	}
	_, final, _ := warmStart(t, first, first)
	second := filepath.Join(d, "second")
	if code, _, stderr := runSafe(t, append(args, "--iter", "100", "--tol", "0", "--step-size", "1e-9", "--init", init, "--out", second)...); code != 0 || strings.Contains(stderr, "warning: --init") {
		t.Fatalf("warm fit: exit %d: %s", code, stderr)
	}
	if _, _, w := warmStart(t, first, second); math.Abs(w-final) > 0.01 {
		t.Errorf("warm start at step size 10⁻⁹: ELBO %g, the first fit's final %g", w, final)
	}
	if code, _, stderr := runSafe(t, "predict", first, model, data, "--quiet", "--out", filepath.Join(d, "pred")); code != 0 {
		t.Errorf("predict: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(d, "pred", "summary.csv")); err != nil {
		t.Errorf("predict wrote no summary: %v", err)
	}
	params["arrow[0]"].([]any)[61] = 0.5
	b, err := json.MarshalIndent(ff, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, d, "bad.json", string(b))
	code, _, stderr := runSafe(t, append(args, "--init", bad, "--out", filepath.Join(d, "out"))...)
	if want := `group level+sigma_lvl+sigma_obs: parameter "arrow[0]": bad value 0.5 at element 61`; code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "bad.json:") {
		t.Errorf("exit %d, want 1 and a positioned %q:\n%s", code, want, stderr)
	}
}

// localLevelCSV is a local-level series of 60 values (a random walk of sd
// 0.3 observed with noise of sd 0.8), seeded.
func localLevelCSV() string {
	var sb strings.Builder
	sb.WriteString("y\n")
	for _, y := range walkSeries(7, 29, 60, 0, 0.3, 0.8) {
		fmt.Fprintf(&sb, "%.5f\n", y)
	}
	return sb.String()
}

// walkSeries simulates n values of a random walk from 0 (each step drift
// plus a normal of sd step) observed with normal noise of sd noise, from
// one PCG stream seeded (s1, s2): the data of the local-level and
// random-walk tests.
func walkSeries(s1, s2 uint64, n int, drift, step, noise float64) []float64 {
	rng := rand.New(rand.NewPCG(s1, s2))
	x, y := 0.0, make([]float64, n)
	for i := range y {
		if i > 0 {
			x += drift + step*rng.NormFloat64()
		}
		y[i] = x + noise*rng.NormFloat64()
	}
	return y
}

// writeJSON writes v as JSON to dir/name and returns its path.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, string(b))
}
