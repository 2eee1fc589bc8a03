package check_test

import (
	"strings"
	"testing"
)

// TestUnreadWarnings: data read nowhere and lets read nowhere are warned
// of at their names; a model of params that observes no data, while some
// are read nowhere or are log_lik's outcome, is warned of at that data's
// line (Info.NoDataObserved). Data read by a ~, a target +=, an output,
// a prior or a dimension are read; a model whose data are only sizes,
// hyperparameters or an output's covariates, or that has no params or no
// data, is not warned of as unobserved.
func TestUnreadWarnings(t *testing.T) {
	// the trial's bad/m4.gpp: lobs and lsub read nowhere, z read only by an
	// unused let, s read nowhere (the param warning, unchanged)
	m4 := "data lobs: real[N]\ndata lsub: real[M]\nconst K = 4\nparam m: real ~ Normal(0, 5)\n" +
		"param s: positive ~ HalfNormal(3)\nparam z: real[K] ~ Normal(m, 1)\nlet unused = z * 2\n"
	_, info := checkSource(t, "m.gpp", m4, nil)
	got := warningLines(info)
	want := []string{
		"m.gpp:1:1 the model observes no data: no ~ and no target += reads any of its data, so its fit is of the prior; a ~ on `lobs` (lobs ~ D(...)) is likely missing",
		"m.gpp:1:6 data `lobs` is read nowhere",
		"m.gpp:2:6 data `lsub` is read nowhere",
		"m.gpp:5:7 param `s` is read nowhere but in its declaration",
		"m.gpp:7:5 let `unused` is read nowhere",
	}
	if len(got) != len(want) {
		t.Fatalf("warnings\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d: %s\nwant one starting %s", i, got[i], want[i])
		}
	}
	if info.NoDataObserved == nil || info.NoDataObserved != info.Warnings[0] || info.UnreadData["lsub"] != info.Warnings[2] {
		t.Errorf("NoDataObserved %v, UnreadData %v: not the warnings", info.NoDataObserved, info.UnreadData)
	}
	if strings.Contains(got[2], "shape") {
		t.Errorf("lsub, whose size M nothing else reads: %s", got[2])
	}

	// the multilevel trial's: w's length gives J, which z's shape reads,
	// so leaving w out needs J declared
	sized := "data g: int[N]\ndata y: real[N]\ndata w: real[J]\nparam z: real[J] ~ Normal(0, 1)\ny ~ Normal(z[g], 1)\n"
	wantWarnings(t, sized, []string{"m.gpp:3:6 data `w` is read nowhere but for its shape, which gives J: neither the log density nor an output reads its values, so the fit ignores them; to leave it out, declare J as data (`data J: int`, given by --set or a data file), or observe it (w ~ D(...))"})

	// the trial's t2_hom_ll.gpp less its ~ lines: y is log_lik's outcome
	lost := "data x: real[N]\ndata y: real[N]\nparam a: real ~ Normal(0, 1)\nparam s: positive ~ HalfNormal(1)\n" +
		"let mu = a * x\noutput log_lik = logpdf(y, Normal(mu, s))\n"
	wantWarnings(t, lost, []string{"m.gpp:2:1 the model observes no data: no ~ and no target += reads any of its data, so its fit is of the prior; a ~ on `y` (y ~ D(...)) is likely missing, or, to draw from the priors on purpose, use gpp fit --prior"})
	// through a let of the logpdf
	wantWarnings(t, strings.Replace(lost, "output log_lik = logpdf(y, Normal(mu, s))", "let ll = logpdf(y, Normal(mu, s))\noutput log_lik = ll", 1),
		[]string{"m.gpp:2:1 the model observes no data: no ~ and no target += reads any of its data, so its fit is of the prior; a ~ on `y` (y ~ D(...)) is likely missing, or, to draw from the priors on purpose, use gpp fit --prior"})

	for _, src := range []string{
		lost + "y ~ Normal(mu, s)\n",                                    // observed by a ~
		lost + "target += sum(logpdf(y, Normal(mu, s)))\n",              // by a target +=
		lost + "let lp = logpdf(y, Normal(mu, s))\ntarget += sum(lp)\n", // through a let
		lost + "log(y) ~ Normal(mu, s)\n",                               // a ~ on an expression of data
		lost + "0 ~ Normal(sum(y - mu), s)\n",                           // a ~ on a constant whose distribution reads data
		// hyperparameters, sizes and covariates of outputs only: a prior simulation
		"data n: int\ndata s: positive\nparam w: real[n] ~ Normal(0, s)\noutput w2 = w * 2\n",
		"data x: real[N]\nparam mu: real ~ Normal(0, 1)\noutput shifted = x + mu\n",
		// no params: nothing to fit
		"data x: real[N]\nlet b = 0.5\noutput y_sim ~ Normal(b * x, 1)\n",
		"data y: real[N]\nconst mu = 1\noutput ll = logpdf(y, Normal(mu, 1))\n",
		// no data: a density of params (a funnel)
		"param v: real ~ Normal(0, 3)\nparam x: real ~ Normal(0, exp(v / 2))\noutput x2 = x * 2\n",
		// data read by a dimension, a for's bound and an if's condition
		"data K: int\ndata y: real[N]\ndata lo: int\ndata c: real\nparam b: real[K] ~ Normal(0, 1)\nfor i in lo:N {\n  if c > 0 {\n    y[i] ~ Normal(b[0], 1)\n  }\n}\n",
		// a local let read by a ~ in its for body
		"data y: real[N]\nparam mu: real ~ Normal(0, 1)\nfor i in 0:N {\n  let m = mu * 2\n  y[i] ~ Normal(m, 1)\n}\n",
		// a user function's local let, read or not, is the function's own
		"fn f(x) {\n  let u = 1\n  return x * 2\n}\ndata y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(f(mu), 1)\n",
		// a let of the short output form
		"data y: real[N]\nparam mu: real ~ Normal(0, 1)\nlet m = mu * 2\ny ~ Normal(mu, 1)\noutput m\n",
	} {
		_, info := checkSource(t, "m.gpp", src, nil)
		if got := warningLines(info); len(got) > 0 {
			t.Errorf("%s: warnings %q", src, got)
		}
	}
}
