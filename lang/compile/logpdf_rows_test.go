package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// target += sum(logpdf(y, D(...))) is y ~ D(...), log joint and gradient,
// for the families logpdf takes a term per observation of: Categorical
// and CategoricalLogit (shared and per-row arguments), Multinomial and
// MultinomialLogit (with and without the number of trials), OrderedLogistic
// and OrderedProbit; logpdf of a single observation is a scalar.
func TestLogPDFPerObservationSumsToTilde(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 2, 1, 2], "x": [0.5, -1, 2, 0.1], "Y": [[1, 2, 3], [0, 0, 4]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const cat = "data y: int<lower=0, upper=2>[4]\ndata x: real[4]\ndata Y: int<lower=0>[2, 3]\n"
	// two points of the model's coordinates
	pts := func(m *Model) [][]float64 {
		z := [][]float64{make([]float64, m.Dim), make([]float64, m.Dim)}
		for i := range m.Dim {
			z[0][i], z[1][i] = 0.1+0.3*float64(i), 0.7-0.45*float64(i)
		}
		return z
	}
	for _, c := range []struct{ name, decls, lik string }{
		{"Categorical", cat + "param theta: simplex[3]\n", "Categorical(theta)"},
		{"CategoricalLogit shared", cat + "param eta: real[3]\n", "CategoricalLogit(eta)"},
		{"CategoricalLogit rows", cat + "param b: real[3]\n", "CategoricalLogit(x * b')"},
		{"Multinomial", cat + "param theta: simplex[3]\n", "Multinomial(theta)"},
		{"Multinomial n", cat + "param theta: simplex[3]\n", "Multinomial(theta, [6, 4])"},
		{"MultinomialLogit rows", cat + "param eta: real[3]\n", "MultinomialLogit(append_row(eta', eta' * 0.5))"},
		{"OrderedLogistic", cat + "param b: real\nparam c: ordered[2]\n", "OrderedLogistic(b * x, c)"},
		{"OrderedProbit", cat + "param b: real\nparam c: ordered[2]\n", "OrderedProbit(b * x, c)"},
	} {
		v := "y"
		if strings.HasPrefix(c.name, "Multinomial") {
			v = "Y"
		}
		a := compileSrc(t, "a.gpp", c.decls+"target += sum(logpdf("+v+", "+c.lik+"))\n", nil, in)
		b := compileSrc(t, "b.gpp", c.decls+v+" ~ "+c.lik+"\n", nil, in)
		wantSameLogJointAt(t, "logpdf "+c.name, a, b, pts(a))
		if strings.Contains(c.lik, "[6, 4]") || strings.Contains(c.lik, "eta' * 0.5") {
			continue // arguments of two rows
		}
		lik0 := strings.Replace(c.lik, "x", "x[0]", 1)
		one := compileSrc(t, "c.gpp", c.decls+"target += logpdf("+v+"[0], "+lik0+")\n", nil, in)
		ref := compileSrc(t, "d.gpp", c.decls+v+"[0] ~ "+lik0+"\n", nil, in)
		wantSameLogJointAt(t, "logpdf of one observation, "+c.name, one, ref, pts(one))
	}
}

// A number of trials other than a row's total is an error in logpdf as in
// ~, at the row's first cell in its data file.
func TestLogPDFMultinomialTrialsMismatch(t *testing.T) {
	tab := csvTable(t, "y.csv", "a,b,c", [][]float64{{1, 2, 3}, {0, 0, 4}, {2, 2, 2}})
	src := "data Y: int<lower=0>[N, 3]\nparam theta: simplex[3]\nY ~ Multinomial(theta)\noutput log_lik = logpdf(Y, Multinomial(theta, 6))\n"
	_, err := compileSrcErr(t, "m.gpp", src, nil, data.Input{File: "y.csv", Table: tab})
	want := "y.csv:3:1: Y: the counts of row 1 total 4 but n is 6, as Multinomial at m.gpp:4:28 needs"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q…", err, want)
	}
}
