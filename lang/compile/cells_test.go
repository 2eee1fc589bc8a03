package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestComputedCellErrors: a density's value or a function's argument
// computed from a datum and params that falls outside its support names
// the datum's cell, the param element an index by data picks, and a
// bounded param's upper bound above the datum (a shifted lognormal whose
// shift may pass a subject's least response time); in a loop, with its
// iteration. The params are at the origin: shift at 0.2, mu 0, sigma 1.
func TestComputedCellErrors(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"rt": [0.52, 0.11, 0.83, 0.45], "subj": [0, 2, 1, 2], "w": [1, 2, 3, 4]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "const S = 3\ndata rt: positive[4]\ndata subj: int<lower=0, upper=S-1>[4]\ndata w: real[4]\n" +
		"param mu: real[S]\nparam sigma: positive\nparam shift: real<lower=0, upper=0.4>[S]\n"
	const bad = "log density is -Inf: value -0.09000000000000001 outside the support of LogNormal"
	const cell = "; the value is computed from rt's at d.json:1:15 and param shift[2]"
	const bound = "; shift's upper bound 0.4 is above this row's rt 0.11, which shift[2] must stay below"
	wantFitErrors(t, "a.gpp", decls, in, []srcWant{
		{"rt - shift[subj] ~ LogNormal(mu[subj], sigma)\n", "a.gpp:8:20: " + bad + " (element [1])" + cell + bound},
		{"for i in 0:4 {\n  rt[i] - shift[subj[i]] ~ LogNormal(mu[subj[i]], sigma)\n}\n", "a.gpp:9:28: " + bad + " at i = 1" + cell + bound},
		{"rt - 2 * shift[subj] ~ LogNormal(0, sigma)\n", "a.gpp:8:24: log density is -Inf: value -0.29000000000000004 outside the support of LogNormal (element [1])" + cell},
		{"(rt - mu[subj]) / sigma - 0.2 ~ LogNormal(0, 1)\n", "a.gpp:8:33: " + bad + " (element [1]); the value is computed from rt's at d.json:1:15 and params mu[2], sigma"},
		{"target += sum(log(rt - shift[subj]))\n", "a.gpp:8:15: log: argument -0.09 < 0 (element [1]); the argument is computed from rt's at d.json:1:15 and param shift[2]"},
		// two data along the axis: no one datum
		{"rt - w .* shift[subj] ~ LogNormal(0, sigma)\n", "a.gpp:8:25: log density is -Inf: value -0.29000000000000004 outside the support of LogNormal (element [1])"},
	})
}
