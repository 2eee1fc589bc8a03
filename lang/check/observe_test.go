package check_test

import (
	"github.com/gpplang/gpp/lang/check"
	"strings"
	"testing"
)

// A survival likelihood written with target += observes its times as the
// value of logpdf and logccdf, through a let too; a censoring indicator
// and a covariate of the scale are read, not as values; a ~ on an
// expression observes what its left side reads.
func TestTargetReads(t *testing.T) {
	const src = `data x: real[N]
data t: positive[N]
data cens: int<lower=0, upper=1>[N]
data z: positive[N]
param k: positive ~ Gamma(2, 1)
param b: real ~ Normal(0, 3)
let s = exp(b * x)
let lp = (1 - cens) .* logpdf(t, Weibull(k, s)) + cens .* logccdf(t, Weibull(k, s))
target += sum(lp)
log(z) ~ Normal(b, 1)
if cens[0] == 1 {
  target += sum(x)
}
`
	f, info := checkSource(t, "m.gpp", src, nil)
	type read struct {
		name, at, fn, let string
		value, inIf       bool
	}
	var got []read
	for _, r := range info.TargetReads(f) {
		let := ""
		if r.Let != nil {
			let = r.Let.Name.Name
		}
		got = append(got, read{r.Symbol.Name, posText(r.At.Line, r.At.Col), r.Func, let, r.Value, r.InIf})
	}
	want := []read{
		{"cens", "8:15", "", "lp", false, false},
		{"t", "8:31", "logpdf", "lp", true, false},
		{"x", "7:17", "", "lp", false, false},
		{"z", "10:5", "", "", true, false},
		{"x", "12:17", "", "", false, true},
	}
	if len(got) != len(want) {
		t.Fatalf("TargetReads %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("read %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	// a datum read through a let and directly in one target += is two
	// reads: the direct one makes it observed (gpp predict's observations)
	f, info = checkSource(t, "m.gpp", "data x: real[N]\nparam b: real ~ Normal(0, 1)\nlet s = b * x\ntarget += sum(s) + sum(x)\n", nil)
	reads := info.TargetReads(f)
	if len(reads) != 2 || reads[0].Let == nil || posText(reads[0].At.Line, reads[0].At.Col) != "3:13" ||
		reads[1].Let != nil || posText(reads[1].At.Line, reads[1].At.Col) != "4:24" {
		t.Errorf("x through s and directly: %+v", reads)
	}
}

// A missing survival time observed through target += is said to be one,
// not a covariate, and told how it could be fitted; in an if's branch,
// that a cell its row never reads must still be given; a real covariate
// keeps the covariate wording.
func TestMissingTargetObserved(t *testing.T) {
	const head = "data x: real[N]\ndata t: positive[N]\ndata c: int<lower=0, upper=1>[N]\nparam k: positive ~ Gamma(2, 1)\nparam b: real ~ Normal(0, 3)\n"
	for _, c := range []struct {
		name, body, data string
		want, not        []string
	}{
		{"direct", "target += logpdf(t, Weibull(k, exp(b * x)))\n", "t",
			[]string{"`t` is observed through the target += at m.gpp:6:1, as the value of logpdf at m.gpp:6:18, and by no ~", "write it as a ~ (t ~ D(...))"},
			[]string{"covariate", "if's branch", "censoring bound"}},
		{"through a let", "let lp = logccdf(t, Weibull(k, exp(b * x)))\ntarget += sum(lp)\n", "t",
			[]string{"`t` is observed through the target += at m.gpp:7:1 through let lp (m.gpp:6:1), as the value of logccdf at m.gpp:6:18"},
			[]string{"covariate"}},
		{"in an if", "for i in 0:N {\n  if c[i] == 1 {\n    target += logcdf(t[i], Weibull(k, exp(b)))\n  }\n}\n", "t",
			[]string{"as the value of logcdf at m.gpp:8:22", "a censoring bound", check.IfMissingNote("t")},
			[]string{"covariate"}},
		{"covariate", "target += logpdf(t, Weibull(k, exp(b * x)))\n", "x",
			[]string{"(a covariate)", "needs a model of its own (x ~ D(...))"},
			[]string{"observed through the target +="}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, info := checkSource(t, "m.gpp", head+c.body, nil)
			why := info.DataVar(c.data).NoMissing
			for _, w := range c.want {
				if !strings.Contains(why, w) {
					t.Errorf("NoMissing %q, want it to contain %q", why, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(why, w) {
					t.Errorf("NoMissing %q, want it without %q", why, w)
				}
			}
		})
	}
}
