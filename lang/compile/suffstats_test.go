package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// suffTol is how far the log joint summed by groups may be from the sum
// over rows, relative: the two differ only in the order of rounding.
const suffTol = 1e-12

// suffRows returns n rows of g (groups 0, 1, 2, 4, 5 of 6: group 3
// empty), y (0/1), c (counts), t (trials), k (successes, k ≤ t), x
// (reals about off + g: far from 0, a sum of squares about 0 would lose
// digits) and h (another index into 6).
func suffRows(t testing.TB, n int, seed uint64, off float64) *data.Table {
	rng := rand.New(rand.NewPCG(seed, 5))
	rows := make([][]float64, n)
	for i := range rows {
		g := float64([]int{0, 1, 2, 4, 5}[rng.IntN(5)])
		tr := float64(1 + rng.IntN(30))
		rows[i] = []float64{g, float64(rng.IntN(2)), float64(rng.IntN(20)), tr, float64(rng.IntN(int(tr) + 1)),
			off + g + rng.NormFloat64(), float64(rng.IntN(6))}
	}
	return csvTable(t, "d.csv", "g,y,c,t,k,x,h", rows)
}

const suffDecls = `data g: int<lower=0, upper=5>[N]
data y: int<lower=0, upper=1>[N]
data c: int<lower=0>[N]
data t: int<lower=0>[N]
data k: int<lower=0>[N]
data x: real[N]
data h: int<lower=0, upper=5>[N]
param p: unit[6] ~ Beta(2, 2)
param a: real[6] ~ Normal(0, 1)
param r: positive[6] ~ Gamma(2, 0.2)
param q: unit ~ Beta(2, 2)
param mu: real[6] ~ Normal(0, 10)
param s: positive ~ Exponential(1)
param sd: positive[6] ~ Exponential(1)
`

// perRow returns m compiled again with every ~ a density per row.
func perRow(t *testing.T, m *Model) *Model {
	t.Helper()
	c := m.Clone()
	c.perRow = true
	prog, _, err := c.build(buildJoint)
	if err != nil {
		t.Fatal(err)
	}
	c.prog = prog
	return c
}

// TestSuffStatsExact: a ~ whose arguments are params picked by one int
// index (or scalars) is lowered by groups, and its log joint and gradient
// are the per-row form's to rounding at random points (positive latents
// included, an empty group, data far from 0 for Normal); the gradient
// matches finite differences.
func TestSuffStatsExact(t *testing.T) {
	in := data.Input{File: "d.csv", Table: suffRows(t, 400, 1, 1000)}
	small := data.Input{File: "d.csv", Table: suffRows(t, 12, 2, 0)}
	for _, tilde := range []string{
		"y ~ Bernoulli(p[g])",
		"y ~ BernoulliLogit(a[g])",
		"c ~ Poisson(r[g])",
		"c ~ PoissonLog(a[g])",
		"k ~ Binomial(t, p[g])",
		"k ~ BinomialLogit(t, a[g])",
		"k ~ Binomial(30, p[g])",
		"x ~ Normal(mu[g], s)",
		"x ~ Normal(mu[g], sd[g])",
		"x ~ Normal(mu[g], 2.5)",
	} {
		t.Run(tilde, func(t *testing.T) {
			decls, far := suffDecls, strings.HasPrefix(tilde, "x ~")
			if far { // mu about the data's 1000
				decls = strings.Replace(decls, "mu: real[6] ~ Normal(0, 10)", "mu: real[6] ~ Normal(1000, 10)", 1)
			}
			m := compileSrc(t, "m.gpp", decls+tilde+"\n", nil, in)
			if len(m.suffAt) != 1 {
				t.Fatalf("lowered by groups at %v, want the ~", m.suffAt)
			}
			rows := perRow(t, m)
			if len(rows.suffAt) != 0 {
				t.Fatalf("perRow lowered by groups at %v", rows.suffAt)
			}
			rng := rand.New(rand.NewPCG(2, 7))
			x := make([]float64, m.Dim)
			g1, g2 := make([]float64, m.Dim), make([]float64, m.Dim)
			for trial := range 5 {
				fillNormal(x, rng, 0, 0.7)
				for _, lat := range m.Latents {
					if lat.Name == "mu" && far { // near the data's means
						for j := range lat.Size {
							x[lat.Offset+j] += 1000 + float64(j)
						}
					}
				}
				v1, err1 := m.LogJoint(x, g1)
				v2, err2 := rows.LogJoint(x, g2)
				if err1 != nil || err2 != nil {
					t.Fatalf("trial %d: errors %v, %v", trial, err1, err2)
				}
				if trial == 0 {
					t.Logf("log joint %.17g", v1)
				}
				if d := math.Abs(v1-v2) / math.Abs(v2); !(d <= suffTol) {
					t.Errorf("trial %d: log joint %.17g by groups, %.17g by rows (rel. %.2g)", trial, v1, v2, d)
				}
				for i := range g1 {
					if d := math.Abs(g1[i]-g2[i]) / math.Max(1, math.Abs(g2[i])); !(d <= 1e-9) {
						t.Errorf("trial %d: d/dx[%d] (%s) %.17g by groups, %.17g by rows", trial, i, m.LatentOf(i), g1[i], g2[i])
					}
				}
			}
			// few rows, for a log joint small enough that central
			// differences resolve its gradient
			checkGradient(t, compileSrc(t, "m.gpp", suffDecls+tilde+"\n", nil, small), 3, 0.7)
		})
	}
}

// TestSuffStatsNotApplied: the ~ stays per row where groups would be
// wrong or lose what reads rows: a loop over the rows, an index other
// than one int datum, arguments computed per row, missing cells, data a
// row's density rejects (whose error must name its cell), and logpdf.
func TestSuffStatsNotApplied(t *testing.T) {
	in := data.Input{File: "d.csv", Table: suffRows(t, 50, 4, 0)}
	for _, tilde := range []string{
		"for i in 0:N { y[i] ~ Bernoulli(p[g[i]]) }",
		"y ~ Bernoulli(p[5 - g])",
		"y ~ Bernoulli(q)",         // iid: no groups
		"x ~ Normal(mu[g], sd[h])", // two indices
		"y ~ BernoulliLogit(a[g] + 0.5 * x)",
		"y ~ Bernoulli(inv_logit(a[g]))",
		"c ~ Poisson(r[g] + q)",
		"k ~ Binomial(t, p[g]) T[, 40]",
		"x ~ Normal(mu[g] + a[g], s)",
		"target += sum(logpdf(y, Bernoulli(p[g])))",
	} {
		m := compileSrc(t, "m.gpp", suffDecls+tilde+"\n", nil, in)
		if len(m.suffAt) != 0 {
			t.Errorf("%s: lowered by groups at %v", tilde, m.suffAt)
		}
	}

	// a y of 2 where the declaration does not bound it: the row's
	// Bernoulli reports it at its cell, by groups or not
	tab := suffRows(t, 50, 4, 0)
	src := strings.Replace(suffDecls, "data y: int<lower=0, upper=1>[N]", "data y: int[N]", 1) + "y ~ Bernoulli(p[g])\n"
	csv := tableCSV(tab, func(row, col int, v float64) float64 {
		if row == 7 && col == 1 {
			return 2
		}
		return v
	})
	m, err := compileSrcErr(t, "m.gpp", src, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "g,y,c,t,k,x,h", csv)})
	if err == nil {
		if len(m.suffAt) != 0 {
			t.Errorf("y of 2: lowered by groups at %v", m.suffAt)
		}
		_, err = m.LogJoint(make([]float64, m.Dim), make([]float64, m.Dim))
	}
	t.Logf("y of 2: %v", err)
	if err == nil || !strings.Contains(err.Error(), "d.csv:9") {
		t.Errorf("y of 2 in row 7: error %v, want one at its cell d.csv:9", err)
	}

	// a missing y: its cells left out or fitted, never summed by groups
	csv = tableCSV(tab, func(row, col int, v float64) float64 {
		if row == 3 && col == 5 {
			return math.NaN()
		}
		return v
	})
	m = compileSrc(t, "m.gpp", suffDecls+"x ~ Normal(mu[g], s)\n", nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "g,y,c,t,k,x,h", csv)})
	if len(m.suffAt) != 0 {
		t.Errorf("x with a missing cell: lowered by groups at %v", m.suffAt)
	}
}

// TestSuffStatsMinibatch: a minibatch's log joint follows its rows (the
// per-row terms, scaled), though the full model's is by groups.
func TestSuffStatsMinibatch(t *testing.T) {
	in := data.Input{File: "d.csv", Table: suffRows(t, 60, 6, 0)}
	m := compileSrc(t, "m.gpp", suffDecls+"y ~ Bernoulli(p[g])\n", nil, in)
	if len(m.suffAt) != 1 {
		t.Fatalf("full model lowered by groups at %v, want the ~", m.suffAt)
	}
	bt, err := m.Minibatch("N", 10)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, m.Dim)
	for i := range x {
		x[i] = 0.3 * float64(i%5-2)
	}
	seen := map[float64]bool{}
	for s := range uint64(4) {
		bt.SetBatch(s, 9)
		v, err := bt.LogJointValue(x)
		if err != nil {
			t.Fatal(err)
		}
		seen[v] = true
	}
	if len(seen) < 2 {
		t.Errorf("four batches gave one log joint %v: the batch's terms do not follow its rows", seen)
	}
}

// tableCSV returns tab's rows with f applied to each cell.
func tableCSV(tab *data.Table, f func(row, col int, v float64) float64) [][]float64 {
	var out [][]float64
	for r := range tab.Rows {
		row := make([]float64, len(tab.Columns))
		for c, col := range tab.Columns {
			row[c] = f(r, c, col.Values[r])
		}
		out = append(out, row)
	}
	return out
}

// BenchmarkSuffStats times the log joint and its gradient of y ~
// Bernoulli(p[g]) and y ~ BernoulliLogit(a[g]) over 20 000 rows in 4
// groups, summed by groups and by rows.
func BenchmarkSuffStats(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	rows := make([][]float64, 20000)
	for i := range rows {
		rows[i] = []float64{float64(rng.IntN(4)), float64(rng.IntN(2))}
	}
	in := data.Input{File: "d.csv", Table: csvTable(b, "d.csv", "g,y", rows)}
	for _, c := range []struct{ name, src string }{
		{"Bernoulli", "param p: unit[4] ~ Beta(1, 1)\ny ~ Bernoulli(p[g])\n"},
		{"BernoulliLogit", "param a: real[4] ~ Normal(-2, 2)\ny ~ BernoulliLogit(a[g])\n"},
	} {
		m := compileSrc(b, "m.gpp", "data g: int<lower=0, upper=3>[N]\ndata y: int<lower=0, upper=1>[N]\n"+c.src, nil, in)
		rowsM := m.Clone()
		rowsM.perRow = true
		prog, _, err := rowsM.build(buildJoint)
		if err != nil {
			b.Fatal(err)
		}
		rowsM.prog = prog
		for _, f := range []struct {
			name string
			m    *Model
		}{{"groups", m}, {"rows", rowsM}} {
			b.Run(c.name+"/"+f.name, func(b *testing.B) {
				x, g := make([]float64, m.Dim), make([]float64, m.Dim)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := f.m.LogJoint(x, g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestSuffStatsErrorAsWritten: an evaluation that fails in a ~ lowered by
// groups reports what the per-row form reports at the same point (the
// family as written, the row's cell), not the per-group density's
// failure, from LogJoint, LogJointValue and an Evaluator alike, and in a
// clone.
func TestSuffStatsErrorAsWritten(t *testing.T) {
	in := data.Input{File: "d.csv", Table: suffRows(t, 50, 3, 0)}
	for _, tilde := range []string{
		"y ~ Bernoulli(p[g])",
		"c ~ Poisson(r[g])",
		"x ~ Normal(mu[g], s)",
	} {
		t.Run(tilde, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", suffDecls+tilde+"\n", nil, in)
			if len(m.suffAt) != 1 {
				t.Fatalf("lowered by groups at %v, want the ~", m.suffAt)
			}
			rows := perRow(t, m)
			x := make([]float64, m.Dim)
			for i := range x {
				x[i] = -800
			}
			g := make([]float64, m.Dim)
			_, want := rows.LogJoint(x, g)
			if want == nil {
				t.Fatal("the per-row log joint at −800 did not fail")
			}
			for _, mm := range []*Model{m, m.Clone()} {
				if _, err := mm.LogJoint(x, g); err == nil || err.Error() != want.Error() {
					t.Errorf("LogJoint: error %v, want the per-row form's %v", err, want)
				}
			}
			_, wantV := rows.LogJointValue(x)
			if _, err := m.Clone().LogJointValue(x); fmt.Sprint(err) != fmt.Sprint(wantV) {
				t.Errorf("LogJointValue: error %v, want the per-row form's %v", err, wantV)
			}
			ev, err := m.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.m.suffAt) != 1 {
				t.Fatalf("the evaluator lowered by groups at %v, want the ~", ev.m.suffAt)
			}
			if _, _, err := ev.Eval(x); fmt.Sprint(err) != fmt.Sprint(wantV) {
				t.Errorf("Evaluator: error %v, want the per-row form's %v", err, wantV)
			}
			t.Logf("%v", want)
		})
	}
}

// TestSuffStatsEvaluator: the evaluator that writes a fit's draws lowers
// a ~ by groups as the log joint does (a trial's 200 000 Bernoulli rows
// took 26 ms a draw per row), with the per-row form's log p to rounding,
// the same outputs, and, for a watched Bernoulli ~ (Observed, read for
// separation), each row's observation and argument as the per-row form
// reports them.
func TestSuffStatsEvaluator(t *testing.T) {
	in := data.Input{File: "d.csv", Table: suffRows(t, 300, 4, 0)}
	for _, tilde := range []string{
		"y ~ Bernoulli(p[g])",
		"y ~ BernoulliLogit(a[g])",
		"c ~ Poisson(r[g])",
	} {
		t.Run(tilde, func(t *testing.T) {
			src := suffDecls + tilde + "\noutput d = p[1] - p[0]\noutput e = exp(a[2])\n"
			m := compileSrc(t, "m.gpp", src, nil, in)
			ev, err := m.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.m.suffAt) != 1 {
				t.Fatalf("the evaluator lowered by groups at %v, want the ~", ev.m.suffAt)
			}
			evRows, err := perRow(t, m).NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			if len(evRows.m.suffAt) != 0 {
				t.Fatalf("the per-row evaluator lowered by groups at %v", evRows.m.suffAt)
			}
			rng := rand.New(rand.NewPCG(4, 7))
			x := make([]float64, m.Dim)
			for trial := range 3 {
				fillNormal(x, rng, 0, 0.7)
				lp, outs, err := ev.Eval(x)
				want, wantOuts, werr := evRows.Eval(x)
				if err != nil || werr != nil {
					t.Fatalf("trial %d: errors %v, %v", trial, err, werr)
				}
				if d := math.Abs(lp-want) / math.Abs(want); !(d <= suffTol) {
					t.Errorf("trial %d: log p %.17g by groups, %.17g by rows", trial, lp, want)
				}
				if fmt.Sprint(outs) != fmt.Sprint(wantOuts) {
					t.Errorf("trial %d: outputs %v, want %v", trial, outs, wantOuts)
				}
				obs, wantObs := ev.Observed(), evRows.Observed()
				if len(obs) != len(wantObs) {
					t.Fatalf("trial %d: %d watched statements, want %d", trial, len(obs), len(wantObs))
				}
				for i := range obs {
					if len(obs[i].Y) != 300 || fmt.Sprint(obs[i]) != fmt.Sprint(wantObs[i]) {
						t.Errorf("trial %d: watched %s: %d rows, Y and Arg differ from the per-row form's", trial, tilde, len(obs[i].Y))
					}
				}
			}
		})
	}
}
