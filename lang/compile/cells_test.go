package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestComputedCellErrors: a density's value or a function's argument
// computed from a datum and params that falls outside its support names
// the datum's cell, the param elements an index by data picks (through a
// let of params too), and a
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
		// through a let of params that a data index reads: both named
		{"let c = shift + mu\ntarget += sum(log(rt - c[subj]))\n", "a.gpp:9:15: log: argument -0.09 < 0 (element [1]); the argument is computed from rt's at d.json:1:15 and params shift[2], mu[2]"},
		// two data along the axis: no one datum
		{"rt - w .* shift[subj] ~ LogNormal(0, sigma)\n", "a.gpp:8:25: log density is -Inf: value -0.29000000000000004 outside the support of LogNormal (element [1])"},
	})
}

// TestComputedRowErrors: a value computed from data cells of one CSV row
// and params (a GEV's t = 1 + xi .* (y - mu) / sigma with mu = a[g] + b *
// ts, y and ts of one line) that falls outside a function's domain names
// the row, its cells' values (the index g's among them) and the params,
// in a user function's body as
// at the top level; data of two rows (a lagged column) name none. The
// params are at the origin (a and b 0), xi at its middle, -1: t = 1 - y.
func TestComputedRowErrors(t *testing.T) {
	tab, err := data.ReadCSV("d.csv", strings.NewReader("g,ts,y\n0,0.5,0.2\n1,0.5,2.5\n0,1,0.3\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.csv", Table: tab}
	const decls = "data g: int<lower=0, upper=1>[3]\ndata ts: real[3]\ndata y: real[3]\n" +
		"param a: real[2]\nparam b: real\nparam xi: real<lower=-2, upper=0>[2]\n" +
		"fn gev_t(y, mu, xi) {\n  return log(1 + xi .* (y - mu))\n}\n"
	const bad = "log: argument -1.5 < 0 (element [1]); the argument is computed from the row at d.csv:3 (y = 2.5, ts = 0.5, g = 1) and params xi[1], a[1], b"
	wantFitErrors(t, "a.gpp", decls, in, []srcWant{
		{"target += sum(log(1 + xi[g] .* (y - (a[g] + b * ts))))\n", "a.gpp:10:15: " + bad},
		{"target += sum(gev_t(y, a[g] + b * ts, xi[g]))\n", "a.gpp:8:10: " + bad + " (in the call of gev_t at a.gpp:10:15)"},
		// in a loop, the iteration (the loop's gathers name no index)
		{"for i in 0:3 {\n  target += log(1 + xi[g[i]] * (y[i] - (a[g[i]] + b * ts[i])))\n}\n", "a.gpp:11:13: log: argument -1.5 < 0 at i = 1; the argument is computed from the row at d.csv:3 (y = 2.5, ts = 0.5) and params xi[1], a[1], b"},
		// y of one row, ts of the one before: no one row
		{"target += sum(log(1 + xi[g[1:3]] .* (y[1:3] - ts[0:2])))\n", "a.gpp:10:15: log: argument -1 < 0 (element [0])"},
	})
	// g of labels (m 0, n 1): the row holds n, not the code 1, so the
	// note gives the row's other cells alone
	lab, err := data.ReadCSV("d.csv", strings.NewReader("g,ts,y\nm,0.5,0.2\nn,0.5,2.5\nm,1,0.3\n"))
	if err != nil {
		t.Fatal(err)
	}
	wantFitErrors(t, "a.gpp", decls, data.Input{File: "d.csv", Table: lab}, []srcWant{
		{"target += sum(log(1 + xi[g] .* (y - (a[g] + b * ts))))\n", "a.gpp:10:15: log: argument -1.5 < 0 (element [1]); the argument is computed from the row at d.csv:3 (y = 2.5, ts = 0.5) and params xi[1], a[1], b"},
	})
}
