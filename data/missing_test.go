package data

import (
	"github.com/gpplang/gpp/lang/check"
	"math"
	"slices"
	"strings"
	"testing"
)

// Missing cells of data that the model only observes are kept, NaN, in
// Array.Missing (row-major): empty cells, NA and NaN, a blank line of a
// one-column file (a row of its own), JSON null, "NaN" and the "NA" of R's
// jsonlite (a user trial read `expected a number, found the string "NA"`
// there); the observed
// cells are checked as before, and MissingNotes says where the missing
// ones are, in the latent's order.
func TestMissingBound(t *testing.T) {
	const model = "data y: real[N]\ndata Y: positive[M, 2]\nparam mu: real\nparam r: positive\ny ~ Normal(mu, 1)\nY ~ Gamma(2, r)\noutput y2 = y\noutput Y2 = Y\n" // the outputs keep them fitted, not summed out
	info := checked(t, model)
	bound, err := Bind(info, []Input{
		csvInput(t, "y", "y.csv", "v\n1.5\n\nNA\n2\nnan\n\n"),
		jsonInput(t, "d.json", `{"Y": [[1, null], ["NaN", 2], [3, "NA"]]}`),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	y, Y := bound["y"], bound["Y"]
	if !slices.Equal(y.Shape, []int{6}) || !slices.Equal(y.Missing, []int{1, 2, 4, 5}) || y.Values[0] != 1.5 || y.Values[3] != 2 || !math.IsNaN(y.Values[1]) {
		t.Errorf("y: shape %v, values %v, missing %v; want 6 rows, 1 to 5 missing but 3", y.Shape, y.Values, y.Missing)
	}
	if bound["N"].Values[0] != 6 {
		t.Errorf("N = %v, want 6 (the blank lines are rows)", bound["N"].Values)
	}
	if !slices.Equal(Y.Missing, []int{1, 2, 5}) {
		t.Errorf("Y: missing %v, want [1 2 5]", Y.Missing)
	}
	notes := MissingNotes(info, bound, nil)
	want := []string{
		"y: 4 missing values (y.csv lines 3, 4, 6, 7) are fitted as the latent y_missing; the last is a blank line at the end of y.csv: delete it if it is not a missing value",
		"Y: 3 missing values (d.json 1:12, 1:20, 1:35) are fitted as the latent Y_missing",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
	// An observed cell outside the declared support is still an error.
	_, err = Bind(info, []Input{csvInput(t, "y", "y.csv", "v\n1\n"), jsonInput(t, "d.json", `{"Y": [[1, null], [-2, 2]]}`)}, nil)
	if err == nil || !strings.Contains(err.Error(), "d.json:1:20: Y: value -2 is not > 0") {
		t.Errorf("a negative observed cell of positive data: error %v", err)
	}
}

// A count column as pandas writes one with a missing value (3.0 for the
// int 3, beside NaN or an empty cell; JSON's 2.0 beside null) binds as
// ints with the missing cell left out, as an all-integer column does: a
// user trial read "y: NaN is not an integer" at the missing cell. A
// missing index written so is still the index's error, and 2.5 is no int.
func TestMissingIntWrittenAsFloat(t *testing.T) {
	const model = "data y: int<lower=0>[N]\nparam l: positive\ny ~ Poisson(l)\n"
	info := checked(t, model)
	for _, in := range []Input{
		csvInput(t, "", "d.csv", "y\n2\nNA\n3.0\n"),
		csvInput(t, "", "d.csv", "y\n2\n\n3e0\n1\n"),
		jsonInput(t, "d.json", `{"y": [2.0, null, 3]}`),
	} {
		bound, err := Bind(info, []Input{in}, nil)
		if err != nil {
			t.Errorf("%s: %v", in.File, err)
			continue
		}
		if y := bound["y"]; !slices.Equal(y.Missing, []int{1}) || y.Values[0] != 2 || y.Values[2] != 3 {
			t.Errorf("%s: y values %v, missing %v; want 2, missing, 3", in.File, y.Values, y.Missing)
		}
	}
	_, err := Bind(info, []Input{csvInput(t, "", "d.csv", "y\n2.5\nNA\n")}, nil)
	if err == nil || !strings.Contains(err.Error(), "d.csv:2:1: y: 2.5 is not an integer") {
		t.Errorf("2.5 beside NA: error %v, want 2.5 is not an integer", err)
	}
	idx := checked(t, "data g: int[N]\ndata y: real[N]\nparam mu: real[3] ~ Normal(0, 1)\ny ~ Normal(mu[g], 1)\n")
	_, err = Bind(idx, []Input{csvInput(t, "", "d.csv", "g,y\n1.0,1\nNA,2\n")}, nil)
	if err == nil || !strings.Contains(err.Error(), "d.csv:3:1: column \"g\": \"NA\" is read as a missing value: `g` is int data read only as an index") {
		t.Errorf("a missing index beside 1.0: error %v", err)
	}
}

// A missing cell of data whose missing values are not fitted is an error
// at the cell, saying why and what to do.
func TestMissingErrors(t *testing.T) {
	const what = "; drop or fill in the rows with missing `x`\x00"
	for _, c := range []struct{ name, model, csv, want string }{
		{"covariate", "data x: real[N]\ndata y: real[N]\nparam b: real\ny ~ Normal(b * x, 1)\n", "x,y\n1,2\n,3\n",
			"d.csv:3:1: column \"x\": empty cell: `x` is read in an expression at m.gpp:4:16 (a covariate) and observed by no ~, so its missing values would have no distribution: a missing covariate needs a model of its own (x ~ D(...)), whose ~ is then their prior" + what},
		{"observed and read in an if", "data x: real[N]\nparam b: real\nx ~ Normal(b, 1)\nif x[0] > 0 {\n  target += b\n}\n", "x\n1\nNA\nNA\n",
			"d.csv:3:1: column \"x\": \"NA\" is read as a missing value (the first of 2): `x` is a covariate (read at m.gpp:4:4) with a model of its own, but fitted missing values of it would change with the draws, and it is read where a value must be known before the fit, which a model of its own does not change: m.gpp:4:9: a comparison needs operands known before the fit, and `x[0]` reads `x`, whose missing values would be fitted"},
		{"int read by an output", "data x: int[N]\nparam l: positive\nx ~ Poisson(l)\noutput s = sum(x)\n", "x\n1\nNA\n",
			"d.csv:3:1: column \"x\": \"NA\" is read as a missing value: `x` is int data: a missing count or class would be a discrete latent, which neither gpp fit (SGVB) nor gpp sample (NUTS) can infer: both follow gradients, which a discrete value has none of (fit or sample the other rows; gpp predict, given the rows with missing `x`, then draws them); its missing cells would be left out of the likelihood if `x` were only observed by ~ of built-in count families, but an output reads `x`" + what},
		{"int read in an expression", "data x: int[N]\nparam l: positive\nx ~ Poisson(l)\ntarget += -l * x[0]\n", "x\n1\nNA\n",
			"but `x` is also read in an expression at m.gpp:4:16" + what},
		{"int read by log_lik otherwise", "data x: int<lower=0>[N]\nparam l: positive\nx ~ Poisson(l)\noutput log_lik = logpdf(x, Poisson(l + x))\n", "x\n1\nNA\n",
			"but an output reads `x`" + what},
		{"int truncated", "data x: int[N]\nparam l: positive\nx ~ Poisson(l) T[, 10]\n", "x\n1\nNA\n",
			"but a ~ on `x` is truncated or not of a built-in count family with one term per cell and 0 in its support (Poisson, NegBinomial, Binomial, Bernoulli, ...)" + what},
		{"int geometric", "data x: int[N]\nparam p: unit\nx ~ Geometric(p)\n", "x\n1\nNA\n",
			"but a ~ on `x` is truncated or not of a built-in count family with one term per cell and 0 in its support"},
		{"int multinomial", "data x: int[N, 3]\nparam th: simplex[3]\nx ~ Multinomial(th)\n", "x.1,x.2,x.3\n1,0,2\nNA,1,1\n",
			"but a ~ on `x` is truncated or not of a built-in count family"},
		{"int covariate", "data x: int[N]\ndata y: real[N]\nparam l: positive\ny ~ Normal(l * x, 1)\n", "x,y\n1,2\nNA,3\n",
			"d.csv:3:1: column \"x\": \"NA\" is read as a missing value: `x` is int data: a missing count or class would be a discrete latent, which neither gpp fit (SGVB) nor gpp sample (NUTS) can infer: both follow gradients, which a discrete value has none of (fit or sample the other rows)" + what},
		// Int data read only as the value of logpdf (a latent class
		// model's tests in log_mix): a mask, not dropping the rows.
		{"int only in logpdf", "data x: int[N]\ndata z: int[N]\nparam p: unit[2]\nlet l = logpdf(x, Bernoulli(p[0])) + logpdf(z, Bernoulli(p[0]))\ntarget += sum(log_mix(0.5, l, logpdf(x, Bernoulli(p[1]))))\n", "x,z\n1,0\nNA,1\n",
			"d.csv:3:1: column \"x\": \"NA\" is read as a missing value: `x` is int data read only as the value of logpdf (m.gpp:4:9, m.gpp:5:31), and a missing cell there would be a discrete latent, which neither gpp fit (SGVB) nor gpp sample (NUTS) can infer; gpp leaves the missing cells of int data out by itself only under a ~ (x ~ D(...)); to leave out only the missing cells' terms, not the rows (whose other values still inform the fit), mask them: add a 0/1 column o_x (1 where `x` is observed, 0 where it is missing), fill the missing cells of `x` with any value of its support (0), declare `data o_x: int[N]` and weight each term by it, `o_x .* logpdf(x, Bernoulli(p[0]))`; where each logpdf of `x` is a term of the log likelihood (summed into target +=, or into a mixture component's log density in log_mix), that is the posterior given the observed cells, as a ~ gives (docs/language.md, Missing data)\x00"},
		{"int only in logpdf, mask name taken", "data x: int[N]\ndata o_x: real[N]\nparam p: unit\ntarget += sum(o_x .* logpdf(x, Bernoulli(p)))\n", "x,o_x\n1,0\nNA,1\n",
			"add a 0/1 column oo_x (1 where `x` is observed"},
		{"int in logpdf and an expression", "data x: int[N]\nparam p: unit\ntarget += sum(logpdf(x, Bernoulli(p))) + p * x[0]\n", "x\n1\nNA\n",
			"`x` is int data: a missing count or class would be a discrete latent, which neither gpp fit (SGVB) nor gpp sample (NUTS) can infer: both follow gradients, which a discrete value has none of (fit or sample the other rows)" + what},
		{"int in logpdf of a family without 0", "data x: int[N]\nparam p: unit\ntarget += sum(logpdf(x, Geometric(p)))\n", "x\n1\nNA\n",
			"`x` is int data: a missing count or class would be a discrete latent, which neither gpp fit (SGVB) nor gpp sample (NUTS) can infer: both follow gradients, which a discrete value has none of (fit or sample the other rows)" + what},
		// Int data read only as an index (an edge list's node ids): a
		// missing index, not a count or class.
		{"int only an index", "data node1: int[E]\ndata node2: int[E]\nparam phi: real[4] ~ Normal(0, 1)\ntarget += -0.5 * dot_self(phi[node1] - phi[node2])\n", "node1,node2\n0,1\n1,\n",
			"d.csv:3:3: column \"node2\": empty cell: `node2` is int data read only as an index (node2 at m.gpp:4:44): a missing cell is a missing index (an edge's node id, an observation's group), which names no element and is no count or class to infer: the row is incomplete; drop or fill in the rows with missing `node2`\x00"},
		{"int an index in a loop", "data g: int[N]\ndata y: real[N]\nparam mu: real[3] ~ Normal(0, 1)\nfor i in 0:N {\n  y[i] ~ Normal(mu[g[i]], 1)\n}\n", "g,y\n0,1\nNA,2\n",
			"`g` is int data read only as an index (g at m.gpp:5:20)"},
		{"int an index and a covariate", "data g: int[N]\ndata y: real[N]\nparam mu: real[3] ~ Normal(0, 1)\ny ~ Normal(mu[g] + g, 1)\n", "g,y\n0,1\nNA,2\n",
			"`g` is int data: a missing count or class would be a discrete latent"},
		{"truncated by a param", "data x: real[N]\nparam m: real\nparam L: real\nx ~ Normal(m, 1) T[L, ]\n", "x\n1\nNA\n",
			"\"NA\" is read as a missing value: `x` is observed by a ~ truncated at m.gpp:4:18 by `L`, which is not a constant, and missing values are fitted only under built-in families on real, positive or unit values, truncated by constants if at all" + what},
		{"truncated by data", "data x: real[N]\ndata L: real\nparam m: real\nx ~ Normal(m, 1) T[, L]\n", "x,L\n1,3\nNA,3\n",
			"`x` is observed by a ~ truncated at m.gpp:4:18 by `L`, which is not a constant"},
		{"bounded family", "data x: real[N]\nparam m: real\nx ~ Uniform(m, 1)\n", "x\n0.5\nNA\n",
			"`x` is observed by Uniform at m.gpp:3:5, bounded by its arguments, and missing values"},
		{"not observed", "data x: real[N]\n", "x\n1\nNA\n",
			"`x` is not observed by any ~, so its missing values would have no distribution" + what},
		{"simplex", "data x: simplex[N]\nparam a: positive\nx ~ Dirichlet(a)\n", "x\n1\nNA\n",
			"`x` is simplex data, whose missing values are not fitted" + what},
		{"bounds of data", "data L: real\ndata x: real<lower=L>[N]\nparam m: real\nx ~ Normal(m, 1)\n", "L,x\n0,1\n0,NA\n",
			"the bounds of `x` depend on other data" + what},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, c.model)
			_, err := Bind(info, []Input{csvInput(t, "", "d.csv", c.csv)}, nil)
			if err == nil || !strings.Contains(err.Error()+"\x00", c.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}

// TestMissingLevelTable: a missing cell of a table of levels read by
// position (a teacher's school, row k teacher k) is to be filled in, not
// its row dropped, which would shift every later teacher's school; a
// missing cell of a per-observation column (a student's teacher) still
// may be dropped with its row.
func TestMissingLevelTable(t *testing.T) {
	const model = "data tschool: int[J]\ndata teacher: int[N]\ndata y: real[N]\nparam u: real[3] ~ Normal(0, 1)\nlet v = u[tschool]\ny ~ Normal(v[teacher], 1)\n"
	const fill = "; fill in the cell; do not drop its row: "
	for _, c := range []struct{ name, model, students, teachers, want string }{
		{"a table of another size", model, "teacher,y\n0,1\n1,2\n2,0\n", "tschool\n0\nNA\n",
			"teachers.csv:3:1: column \"tschool\": \"NA\" is read as a missing value: `tschool` is int data read only as an index (tschool at m.gpp:5:11): a missing cell is a missing index (an edge's node id, an observation's group), which names no element and is no count or class to infer: the row is incomplete" + fill + "`tschool` is a table of one row per level of J (not one per observation: the data a ~ observes have N rows), read by position: its row k is level k, so dropping a row would shift every later level's value to the level before\x00"},
		{"the rows of the observations", model, "teacher,y\n0,1\nNA,2\n2,0\n", "tschool\n0\n1\n",
			"the row is incomplete; drop or fill in the rows with missing `teacher`\x00"},
		{"read by an index of data", "data x: real[N]\ndata g: int[N]\ndata y: real[N]\ny ~ Normal(x[g], 1)\n", "g,y,x\n0,1,0.5\n1,2,NA\n", "t\n1\n",
			fill + "`x` is read by position (x[g] at m.gpp:4:12): its row k is level k, so dropping a row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, c.model)
			_, err := Bind(info, []Input{csvInput(t, "", "students.csv", c.students), csvInput(t, "", "teachers.csv", c.teachers)}, nil)
			if err == nil || !strings.Contains(err.Error()+"\x00", c.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}

// TestMissingBlankTail: blank lines at the end of a one-column file are
// missing values, as pandas writes a missing last value, but an editor
// leaves them too: the note that fits them and the error that refuses
// them say which are at the end, and to delete them if they are no
// missing values; a blank line before the last value is not.
func TestMissingBlankTail(t *testing.T) {
	info := checked(t, "data y: real[N]\nparam mu: real\ny ~ Normal(mu, 1)\noutput y2 = y\n")
	for _, c := range []struct{ src, want string }{
		{"y\n1\n\n2\n", "y: 1 missing value (y.csv line 3) is fitted as the latent y_missing"},
		{"y\r\n1\r\n2\r\n\r\n", "y: 1 missing value (y.csv line 4) is fitted as the latent y_missing; the last is a blank line at the end of y.csv: delete it if it is not a missing value"},
		{"y\n1\n\n2\n\n \n", "y: 3 missing values (y.csv lines 3, 5, 6) are fitted as the latent y_missing; the last 2 are blank lines at the end of y.csv: delete them if they are not missing values"},
	} {
		bound, err := Bind(info, []Input{csvInput(t, "", "y.csv", c.src)}, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if notes := MissingNotes(info, bound, nil); len(notes) != 1 || notes[0] != c.want {
			t.Errorf("%q: notes %q, want %q", c.src, notes, c.want)
		}
	}
	// int data observed only by ~: the missing cells are left out of the
	// likelihood and drawn as k_missing, and the note says so, and which
	// are blank lines at the end; read by an output, they are refused, saying so too
	info = checked(t, "data k: int[N]\nparam p: unit\nk ~ Bernoulli(p)\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "k.csv", "k\n1\n0\n\n")}, nil)
	want := "k: 1 missing value (k.csv line 4) is left out of the likelihood (int data observed only by ~) and drawn from its ~ at each draw as the output k_missing; the last is a blank line at the end of k.csv: delete it if it is not a missing value"
	if notes := LeftOutNotes(info, bound, nil, nil); err != nil || len(notes) != 1 || notes[0] != want {
		t.Errorf("int data: notes %q (error %v), want %q", notes, err, want)
	}
	// not drawn (compile.Model.LeafUndrawn, whose note says why): not said to be
	want = "k: 1 missing value (k.csv line 4) is left out of the likelihood (int data observed only by ~); the last is a blank line at the end of k.csv: delete it if it is not a missing value"
	if notes := LeftOutNotes(info, bound, nil, map[string]bool{"k": true}); len(notes) != 1 || notes[0] != want {
		t.Errorf("int data undrawn: notes %q, want %q", notes, want)
	}
	info = checked(t, "data k: int[N]\nparam p: unit\nk ~ Bernoulli(p)\noutput m = mean(k)\n")
	_, err = Bind(info, []Input{csvInput(t, "", "k.csv", "k\n1\n0\n\n")}, nil)
	if want := `k.csv:4:1: column "k": line 4 is blank, an empty cell in a one-column file (a blank line at the end: delete it if it is not a missing value): ` + "`k` is int data"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v\nwant %s...", err, want)
	}
}

// The missing cells of real data that are leaves are summed out, no
// latent's (MissingCells lists none), unless the compiler found them no
// leaves after all (notLeaves): then y_missing fits them, and fit.json
// must record its cells.
func TestMissingCellsNotLeaves(t *testing.T) {
	info := checked(t, "data y: real[N]\nparam mu: real\ny ~ Normal(mu, 1)\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "y.csv", "y\n1\nNA\n2\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := MissingCells(info, bound, nil); len(got) != 0 {
		t.Errorf("leaves: MissingCells %v, want none", got)
	}
	got := MissingCells(info, bound, map[string]bool{"y": true})
	if len(got) != 1 || got[0].Latent != "y_missing" || len(got[0].Cells) != 1 || got[0].Cells[0].Line != 3 {
		t.Errorf("no leaves: MissingCells %+v, want y_missing's cell at y.csv line 3", got)
	}
}

// TestMissingRowBranch: a missing detection limit is needed where its
// row's branch of the if on data reads it (the error at that row, with the
// condition's value, and the count of the others, which may be filled),
// and may be filled where no row's branch does; a condition column with a
// missing cell leaves the rows unknown (the general advice).
func TestMissingRowBranch(t *testing.T) {
	const model = "data dl: positive[N]\ndata conc: positive[N]\ndata cens: int<lower=0, upper=1>[N]\nparam mu: real ~ Normal(0, 3)\nfor i in 0:N {\n  if cens[i] == 1 {\n    target += logcdf(dl[i], LogNormal(mu, 1))\n  } else {\n    conc[i] ~ LogNormal(mu, 1)\n  }\n}\n"
	const needed = "the branch of the if that this row takes reads `dl`: the cell is needed, a data error to mend at this row (a fill would change the likelihood)"
	for _, c := range []struct{ name, csv, want string }{
		{"read", "dl,conc,cens\n1,1,1\n,2,1\n", `d.csv:3:1: column "dl": empty cell: ` + "`dl`" + ` is observed through the target += at m.gpp:7:5, as the value of logcdf at m.gpp:7:22, and by no ~, so its missing values cannot be fitted: no ~ gives them a distribution (the value of a logcdf is a censoring bound, which a ~ would not model); on this row ` + "`cens` is 1, and " + needed + "; mend that row's `dl` or drop the row\x00"},
		{"read after unread", "dl,conc,cens\n,3,0\n1,1,1\n,2,0\n,2,1\n", `d.csv:5:1: column "dl": the cell of row 4 is missing: ` + "`dl`" + ` is observed through the target += at m.gpp:7:5, as the value of logcdf at m.gpp:7:22, and by no ~, so its missing values cannot be fitted: no ~ gives them a distribution (the value of a logcdf is a censoring bound, which a ~ would not model); on this row ` + "`cens` is 1, and " + needed + "; 2 other missing cells of `dl` are on rows whose branch never reads it, which may be filled with any value of its type; mend that row's `dl` or drop the row\x00"},
		{"unread", "dl,conc,cens\n,3,0\n1,1,1\n,2,0\n", `d.csv:2:1: column "dl": empty cell (the first of 2): ` + "`dl`" + ` is observed through the target += at m.gpp:7:5, as the value of logcdf at m.gpp:7:22, and by no ~, so its missing values cannot be fitted: no ~ gives them a distribution (the value of a logcdf is a censoring bound, which a ~ would not model); but no row with a missing ` + "`dl` takes a branch of the if that reads it (as `cens` decides): gpp binds the whole column first and refuses a missing value anywhere in it, so fill those cells with any value of `dl`'s type, which no branch taken reads; drop"},
		{"condition missing", "dl,conc,cens\n1,1,1\n,2,\n", "d.csv:3:1: column \"dl\": empty cell: `dl` is observed through the target += at m.gpp:7:5, as the value of logcdf at m.gpp:7:22, and by no ~, so its missing values cannot be fitted: no ~ gives them a distribution (the value of a logcdf is a censoring bound, which a ~ would not model)" + check.IfMissingNote("dl")},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := checked(t, model)
			_, err := Bind(info, []Input{csvInput(t, "", "d.csv", c.csv)}, nil)
			if err == nil || !strings.Contains(err.Error()+"\x00", c.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}
