package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// censModel is a right-censored Weibull fit (cens = 1: censored), as the
// reliability trial wrote it; %s is cens's type.
const censModel = `data t: positive[N]
data cens: %s[N]
param k: positive ~ Gamma(2, 1)
param s: positive ~ HalfNormal(50)
target += sum((1 - cens) .* logpdf(t, Weibull(k, s)) + cens .* logccdf(t, Weibull(k, s)))
`

// TestIndicatorLabelsCLI: the trial's Minitab life table, cens F
// (failure) or C (censored), which sorted order codes C 0, F 1: with cens
// declared int, gpp check and fit warn, naming the coding, the use and the
// --levels that swaps it, and --levels cens=F,C fits as the 0/1 codes do;
// declared int<lower=0, upper=1>, the indicator's own warning says so
// (a warning, not a refusal: sorted order is often the meaning, control 0
// and treated 1), and --levels fits as the 0/1 codes do.
func TestIndicatorLabelsCLI(t *testing.T) {
	d := t.TempDir()
	var named, coded strings.Builder
	named.WriteString("t,cens\n")
	coded.WriteString("t,cens\n")
	for i := range 40 {
		t := 20 + 15*math.Abs(math.Sin(float64(i)*1.3))
		fc, c := "F", 0
		if i%4 == 3 {
			fc, c = "C", 1
		}
		fmt.Fprintf(&named, "%.2f,%s\n", t, fc)
		fmt.Fprintf(&coded, "%.2f,%d\n", t, c)
	}
	fcFile := writeFile(t, d, "life_fc.csv", named.String())
	codeFile := writeFile(t, d, "life.csv", coded.String())
	plain := writeFile(t, d, "weib.gpp", fmt.Sprintf(censModel, "int"))
	warn := `warning: ` + fcFile + `: column "cens": its 2 labels are coded in sorted (byte) order, C 0, F 1, and ` + plain + `:5:20 reads the codes as numbers, where which label is 1 is their meaning: if 1 means C, say so with --levels cens=F,C`
	if code, _, stderr := runSafe(t, "check", plain, fcFile); code != 0 || !strings.Contains(stderr, warn) {
		t.Errorf("gpp check: exit %d, stderr:\n%s\nwant the warning %q", code, stderr, warn)
	}
	fit := func(out string, args ...string) string {
		t.Helper()
		code, _, stderr := runSafe(t, append([]string{"fit", "--quiet", "--iter", "300", "--output-draws", "50", "--out", filepath.Join(d, out)}, args...)...)
		if code != 0 {
			t.Fatalf("gpp fit %s: exit %d: %s", args, code, stderr)
		}
		return readFile(t, filepath.Join(d, out, "summary.csv"))
	}
	if got, want := fit("fc", "--levels", "cens=F,C", plain, fcFile), fit("01", plain, codeFile); got != want {
		t.Errorf("--levels cens=F,C: summary.csv\n%s\nwant the 0/1 codes'\n%s", got, want)
	}

	bounded := writeFile(t, d, "weib01.gpp", fmt.Sprintf(censModel, "int<lower=0, upper=1>"))
	indicator := "warning: " + fcFile + ": column \"cens\": `cens` is declared int<lower=0, upper=1>[N], an indicator, and its labels are coded in sorted (byte) order: C is 0 and F is 1"
	if code, _, stderr := runSafe(t, "check", bounded, fcFile); code != 0 || !strings.Contains(stderr, indicator) {
		t.Errorf("gpp check, declared an indicator: exit %d, stderr:\n%s\nwant 0 and %q", code, stderr, indicator)
	}
	if got, want := fit("fc01", "--levels", "cens=F,C", bounded, fcFile), fit("01b", bounded, codeFile); got != want {
		t.Errorf("declared an indicator, --levels cens=F,C: summary.csv\n%s\nwant the 0/1 codes'\n%s", got, want)
	}
}
