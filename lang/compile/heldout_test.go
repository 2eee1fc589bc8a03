package compile

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestHeldOutLogLik: the data that log_lik scores and that no ~ or
// target += observes are held out (a calibration's y_new at new inputs;
// a covariate in the value, y_new - b * x_new, is named too);
// data observed by a ~, a ~ on a let of it, a target += logpdf, are not,
// nor an index of an observed datum, nor a covariate of log_lik's
// distribution, nor any datum without a log_lik.
func TestHeldOutLogLik(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": [0.5, 1, 2, 3], "y": [1.2, 0.7, 0.1, -0.4], "x_new": [1.5, 4], "y_new": [0.4, -0.9], "idx": [1, 3]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real[N]\ndata y: real[N]\ndata x_new: real[M]\ndata y_new: real[M]\ndata idx: int<lower=0, upper=N-1>[M]\n" +
		"param b: real ~ Normal(0, 1)\nparam s: positive ~ HalfNormal(1)\n"
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"held-out y_new", "y ~ Normal(b * x, s)\noutput log_lik = logpdf(y_new, Normal(b * x_new, s))\n", []string{"y_new"}},
		{"through a let", "y ~ Normal(b * x, s)\nlet r = y_new - b * x_new\noutput log_lik = logpdf(r, Normal(0, s))\n", []string{"y_new", "x_new"}},
		{"observed y", "y ~ Normal(b * x, s)\noutput log_lik = logpdf(y, Normal(b * x, s))\n", nil},
		{"observed by target +=", "target += logpdf(y, Normal(b * x, s))\noutput log_lik = logpdf(y, Normal(b * x, s))\n", nil},
		{"observed through a ~ on a let", "let z = (y - b * x) / s\nz ~ Normal(0, 1)\ntarget += -N * log(s)\noutput log_lik = logpdf(y, Normal(b * x, s))\n", nil},
		{"an index of observed data", "y ~ Normal(b * x, s)\noutput log_lik = logpdf(y[idx], Normal(b * x[idx], s))\n", nil},
		{"no log_lik", "y ~ Normal(b * x, s)\noutput lp = logpdf(y_new, Normal(b * x_new, s))\n", nil},
	} {
		m := compileSrc(t, "m.gpp", decls+c.src, nil, in)
		if got := m.HeldOutLogLik(); !slices.Equal(got, c.want) {
			t.Errorf("%s: HeldOutLogLik = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestObserved: the data a ~ or a target += observes, sorted, and not
// the covariates, indexes or held-out data that only the arguments of a
// density, an index or an output read.
func TestObserved(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": [0.5, 1, 2, 3], "y": [1.2, 0.7, 0.1, -0.4], "w": [1, 2, 3, 4], "x_new": [1.5, 4], "y_new": [0.4, -0.9], "idx": [1, 3]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real[N]\ndata y: real[N]\ndata w: real[N]\ndata x_new: real[M]\ndata y_new: real[M]\ndata idx: int<lower=0, upper=N-1>[M]\n" +
		"param b: real ~ Normal(0, 1)\nparam s: positive ~ HalfNormal(1)\n"
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"y by a ~", "y ~ Normal(b * x, s)\noutput log_lik = logpdf(y_new, Normal(b * x_new, s))\n", []string{"y"}},
		{"y by an indexed ~", "y[idx] ~ Normal(b * x[idx], s)\n", []string{"y"}},
		{"y by target +=, w by a ~", "target += logpdf(y, Normal(b * x, s))\nw ~ Normal(b, s)\n", []string{"w", "y"}},
		{"a likelihood written out", "target += -square(y - b * x) / 2\n", []string{"x", "y"}},
		{"none", "output yr = b * x\n", nil},
	} {
		m := compileSrc(t, "m.gpp", decls+c.src, nil, in)
		if got := m.Observed(); !slices.Equal(got, c.want) {
			t.Errorf("%s: Observed = %q, want %q", c.name, got, c.want)
		}
	}
}
