package data

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// likertCSV is a column of Likert answers as SPSS exports value labels:
// sorted in byte order they are Agree, Disagree, Neutral, Strongly agree,
// Strongly disagree, no order of their meaning.
const likertCSV = "q,g,x\nStrongly agree,b,0.5\nDisagree,a,-1\nNeutral,c,0\nAgree,a,1\nStrongly disagree,b,-2\nAgree,c,0.3\n"

// likertOrder is the answers' order of meaning, lowest first.
var likertOrder = []string{"Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"}

// checkedFile is checked, with the file LevelOrderWarnings walks.
func checkedFile(t *testing.T, src string) (*ast.File, *check.Info) {
	t.Helper()
	f := mustParse(t, src)
	info, err := check.Check(f, &check.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return f, info
}

// TestLevelOrderWarnings: a column of labels coded in byte order whose
// codes the model reads in order (an ordered family's outcome, through a
// let too; a count family's value; arithmetic) is warned of, naming the
// column, the coding, the use's position and --levels (a user density's
// value as well); indexing by the
// codes, group_sum's group codes (in the likelihood and outputs, through
// a let too) and a categorical outcome, which are order-free, are not, nor is a
// column whose order --levels gave, nor one of two labels.
func TestLevelOrderWarnings(t *testing.T) {
	const head = "data q: int<lower=1, upper=5>[N]\ndata g: int[N]\ndata x: real[N]\nparam c: ordered[4] ~ Normal(0, 5)\nparam b: real ~ Normal(0, 1)\nparam a: real[3] ~ Normal(0, 1)\n"
	for _, c := range []struct {
		name, body string
		want       string // "" for no warning
	}{
		{"ordered logistic", "q - 1 ~ OrderedLogistic(b * x, c)\n", "m.gpp:7:1 reads the codes as the ordered outcome of OrderedLogistic"},
		{"ordered probit through a let", "let y = q - 1\ny ~ OrderedProbit(a[g], c)\n", "m.gpp:8:1 reads the codes as the ordered outcome of OrderedProbit"},
		{"logpdf", "x ~ Normal(0, 1)\noutput ll = logpdf(q - 1, OrderedLogistic(b * x, c))\n", "m.gpp:8:20 reads the codes as the ordered outcome of OrderedLogistic"},
		{"poisson count", "q ~ Poisson(exp(b))\n", "m.gpp:7:1 reads the codes as the value of Poisson"},
		{"arithmetic", "x ~ Normal(b * q, 1)\n", "m.gpp:7:16 reads the codes as numbers"},
		{"user density", "fn distance_lpmf(y, eta) = -abs(y - eta)\nq ~ distance(b)\n", "m.gpp:8:1 reads the codes as the value of the user density distance"},
		{"index", "x ~ Normal(a[g] + c[q - 1], 1)\n", ""},
		{"categorical", "q - 1 ~ CategoricalLogit(rep(b, 5))\n", ""},
		{"group codes", "output s = group_sum(x, q - 1, 5)\n", ""},
		{"group sums of the codes", "output s = group_sum(q, g, 3)\n", "m.gpp:7:22 reads the codes as numbers"},
		{"group codes in the likelihood, through a let", "let n = group_sum(x, q - 1, 5)\ntarget += b * sum(n)\n", ""},
		{"group codes in an output, through a let", "let n = group_sum(x, q - 1, 5)\noutput s = n\n", ""},
		{"group sums of the codes in the likelihood, through a let", "let n = group_sum(q, g, 3)\ntarget += b * sum(n)\n", "m.gpp:8:19 reads the codes as numbers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, info := checkedFile(t, head+c.body)
			in := []Input{csvInput(t, "", "likert.csv", likertCSV)}
			bound, err := Bind(info, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			warns := LevelOrderWarnings(f, info, bound)
			if c.want == "" {
				if len(warns) > 0 {
					t.Errorf("warnings %q, want none", warns)
				}
				return
			}
			want := `likert.csv: column "q": its 5 labels are coded in sorted (byte) order, Agree 1, Disagree 2, Neutral 3, Strongly agree 4, Strongly disagree 5, and ` + c.want + `, where their order is their meaning: give the order with --levels q=LABEL,LABEL,... (lowest first), or give the column as numbers`
			if len(warns) != 1 || warns[0] != want {
				t.Errorf("warnings %q,\nwant [%q]", warns, want)
			}
			// With the order given, no warning: the codes are in order.
			bound, err = BindOrdered(info, in, nil, map[string][]string{"q": likertOrder})
			if err != nil {
				t.Fatal(err)
			}
			if warns := LevelOrderWarnings(f, info, bound); len(warns) > 0 {
				t.Errorf("with the order given: warnings %q", warns)
			}
		})
	}
	// Two labels: any order is the other reversed, a sign, not a warning.
	f, info := checkedFile(t, "data s: int[N]\nparam c: ordered[1] ~ Normal(0, 5)\ns ~ OrderedLogistic(0, c)\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "s.csv", "s\nyes\nno\nyes\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if warns := LevelOrderWarnings(f, info, bound); len(warns) > 0 {
		t.Errorf("two labels: warnings %q", warns)
	}
}

// TestBindOrdered: an order given codes the labels by it from the lower
// bound (labels it lists that the column lacks keep their codes, and
// count in the size it bounds), says so in the note, and is an error for a
// label it does not list (at the cell), for data given as numbers and for
// a name the model does not declare.
func TestBindOrdered(t *testing.T) {
	info := checked(t, "data J: int\ndata q: int<lower=1, upper=J>[N]\ndata x: real[N]\n")
	in := []Input{csvInput(t, "", "likert.csv", "q,x\nStrongly agree,1\nDisagree,2\nAgree,3\nDisagree,4\n")}
	bound, err := BindOrdered(info, in, nil, map[string][]string{"q": likertOrder})
	if err != nil {
		t.Fatal(err)
	}
	a := bound["q"]
	if want := []float64{5, 2, 4, 2}; !slices.Equal(a.Values, want) || !a.Levels.Given || !slices.Equal(a.Levels.Labels, likertOrder) {
		t.Errorf("codes %v, levels %+v; want %v in the order given", a.Values, a.Levels, want)
	}
	if j := bound["J"]; j == nil || j.Values[0] != 5 {
		t.Errorf("J = %v, want 5, the labels listed", j)
	}
	notes := LevelNotes(info, bound, false)
	want := `likert.csv: column "q": 5 labels coded 1 to 5 in the order --levels gives (Strongly disagree 1, Disagree 2, Neutral 3, Agree 4, Strongly agree 5); J = 5 from their count`
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q,\nwant %q", notes, want)
	}
	for _, c := range []struct {
		name  string
		src   string
		order map[string][]string
		want  string
	}{
		{"unlisted label", "q,x\nAgree,1\nNeutral,2\n", map[string][]string{"q": {"Disagree", "Agree"}},
			`likert.csv:3:1: column "q": label "Neutral" is not in the order --levels gives ` + "`q`" + ` (its 2 labels: Disagree, Agree)`},
		{"numbers", "q,x\n1,1\n2,2\n", map[string][]string{"q": likertOrder},
			"likert.csv:2:1: --levels q: `q` is given as numbers, not labels: its codes are the numbers, so no order of labels applies"},
		{"no such data", "q,x\nAgree,1\n", map[string][]string{"qq": likertOrder},
			`--levels: the model has no data named "qq" (it declares J, q, x)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := BindOrdered(info, []Input{csvInput(t, "", "likert.csv", c.src)}, nil, c.order)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v,\nwant %q", err, c.want)
			}
		})
	}
}

// TestLabelAxisWarning: a column of labels coded in sorted order that
// indexes an axis longer than its codes reach (words "w0", "w1", "w10"
// into V = 5) is warned of once, at the index, with how many entries get
// no label; an axis the codes fill, or an order given by --levels, is
// not.
func TestLabelAxisWarning(t *testing.T) {
	const src = "data w: int[M]\ndata V: int\nparam b: positive[V] ~ Gamma(1, 1)\ntarget += sum(log(b[w])) + sum(b[w])\n"
	f, info := checkedFile(t, src)
	in := []Input{csvInput(t, "", "words.csv", "w\nw0\nw1\nw10\nw1\n")}
	bound, err := Bind(info, in, map[string]string{"V": "5"})
	if err != nil {
		t.Fatal(err)
	}
	w := LevelOrderWarnings(f, info, bound)
	want := `words.csv: column "w": its 3 labels are coded 0 to 2 in sorted (byte) order, w0 0, w1 1, w10 2, but ` + "`w`" + ` indexes an axis of 5 (V) at m.gpp:4:21: the codes are the labels' places in that order, not numbers the labels may spell, and 2 entries of the axis get no label`
	if len(w) != 1 || !strings.HasPrefix(w[0], want) {
		t.Errorf("warnings %q, want one beginning %q", w, want)
	}
	if bound, err = Bind(info, in, map[string]string{"V": "3"}); err != nil {
		t.Fatal(err)
	}
	if w := LevelOrderWarnings(f, info, bound); len(w) != 0 {
		t.Errorf("V = 3, the codes fill the axis: warnings %q", w)
	}
	if bound, err = BindOrdered(info, in, map[string]string{"V": "5"}, map[string][]string{"w": {"w0", "w1", "w10"}}); err != nil {
		t.Fatal(err)
	}
	if w := LevelOrderWarnings(f, info, bound); len(w) != 0 {
		t.Errorf("with --levels: warnings %q", w)
	}
}

// TestCategoryDataWarning: a column of labels coded in sorted order that
// is a categorical outcome whose log-odds read data with an axis of the
// categories' count (a mode choice beside per-alternative prices, through
// a let too), or that indexes such data, is warned of once, at the use,
// with its coding and --levels; log-odds of params alone (an A/B test's
// p[variant]), or an order --levels gave, are not.
func TestCategoryDataWarning(t *testing.T) {
	const mnl = "data choice: int<lower=0, upper=2>[N]\ndata price: real[N, 3]\nparam a: real[2] ~ Normal(0, 5)\nparam bp: real ~ Normal(0, 5)\n"
	const csv = "choice,price.1,price.2,price.3\nwalk,1,2,3\ncar,2,1,3\nbus,3,2,1\nwalk,1,3,2\n"
	const coding = `mnl.csv: column "choice": its 3 labels are coded 0 to 2 in sorted (byte) order, bus 0, car 1, walk 2, and `
	for _, c := range []struct {
		name, body string
		want       string // "" for none
	}{
		{"categorical logit", "choice ~ CategoricalLogit(append_row(0, a)' + bp * price)\n",
			"they are the categories of CategoricalLogit at m.gpp:5:1, which reads `price` (real[N, 3]): its entries along the axis of 3 are matched to the codes by position, the first to bus, the last to walk; if they are in another order (the file's columns price.1, price.2, ..., say), give it with --levels choice=LABEL,LABEL,... (the label of `price`'s first entry first)"},
		{"through a let, logpdf", "let eta = bp * price\nchoice ~ Normal(0, 1)\noutput ll = logpdf(choice, CategoricalLogit(eta))\n",
			"they are the categories of CategoricalLogit at m.gpp:7:20, which reads `price` (real[N, 3])"},
		{"an index", "let u = bp * price\ntarget += sum(u[:, choice])\n",
			"they index the axis of 3 of `u` at m.gpp:6:20, which reads `price` (real[N, 3])"},
		{"params only", "param p: unit[3] ~ Beta(1, 1)\nchoice ~ CategoricalLogit(append_row(0, a))\nprice ~ Normal(p[choice] * bp, 1)\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, info := checkedFile(t, mnl+c.body)
			in := []Input{csvInput(t, "", "mnl.csv", csv)}
			bound, err := Bind(info, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := containing(LevelOrderWarnings(f, info, bound), "matched to the codes by position")
			if c.want == "" {
				if len(got) > 0 {
					t.Errorf("warnings %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], coding+c.want) {
				t.Errorf("warnings %q,\nwant one beginning %q", got, coding+c.want)
			}
			bound, err = BindOrdered(info, in, nil, map[string][]string{"choice": {"walk", "car", "bus"}})
			if err != nil {
				t.Fatal(err)
			}
			if w := LevelOrderWarnings(f, info, bound); len(w) > 0 {
				t.Errorf("with --levels: warnings %q", w)
			}
		})
	}
}

// TestRareLabelWarning: a label in one row (or in at most 1 % of the
// other's rows) one character from a label in at least five times as
// many rows is warned of at its first cell, in the column that holds it,
// once; ids and codes that differ so by design (a digit: w1 beside w10;
// a replaced letter of a short code: E beside D; a letter added to a
// short code that does not double its neighbour: AB beside A), a label
// not rare enough, and an order --levels gave are not.
func TestRareLabelWarning(t *testing.T) {
	rows := func(label string, n int) string { return strings.Repeat(label+"\n", n) }
	for _, c := range []struct {
		name, csv string
		want      string // "" for none
	}{
		{"doubled letter", rows("A", 7) + rows("D", 5) + "Dd\n" + rows("D", 1),
			`g.csv:14:1: column "g": label "Dd", in 1 row, is one character from "D", in 6, yet is coded as a group of its own (D 1, Dd 2): if it is a typo, write it as "D"; if it is a group, give the labels with --levels g=LABEL,LABEL,...`},
		{"a letter dropped", rows("Arsenal", 9) + "Arsenl\n" + rows("Wolves", 9),
			`g.csv:11:1: column "g": label "Arsenl", in 1 row, is one character from "Arsenal", in 9`},
		{"2 of 200 rows", rows("Chelsea", 200) + rows("Chelsey", 2), `g.csv:202:1: column "g": label "Chelsey", in 2 rows, is one character from "Chelsea", in 200`},
		{"2 of 100 rows", rows("Chelsea", 100) + rows("Chelsey", 2), ""},
		{"word ids", rows("word10", 10) + "word1\n" + rows("word2", 10), ""},
		{"numbered ids", rows("firm_01", 10) + "firm_011\n" + rows("firm_02", 10), ""},
		{"short codes", rows("D", 10) + "E\n" + rows("A", 10), ""},
		{"a code added to", rows("A", 10) + "AB\n", ""},
		{"no frequent label", "Arsenal\nArsenl\nWolves\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, info := checkedFile(t, "data g: int[N]\n")
			in := []Input{csvInput(t, "", "g.csv", "g\n"+c.csv)}
			bound, err := Bind(info, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			w := LevelOrderWarnings(f, info, bound)
			if c.want == "" {
				if len(w) > 0 {
					t.Errorf("warnings %q, want none", w)
				}
				return
			}
			if len(w) != 1 || !strings.HasPrefix(w[0], c.want) {
				t.Errorf("warnings %q,\nwant one beginning %q", w, c.want)
			}
			bound, err = BindOrdered(info, in, nil, map[string][]string{"g": bound["g"].Levels.Labels})
			if err != nil {
				t.Fatal(err)
			}
			if w := LevelOrderWarnings(f, info, bound); len(w) > 0 {
				t.Errorf("with --levels: warnings %q", w)
			}
		})
	}
	// coded together: at the cell of the column that holds it, once; in
	// both columns, at the first cell in the file, though its column
	// (away) is coded after the other (home)
	f, info := checkedFile(t, btModel)
	for _, c := range []struct{ name, csv, want string }{
		{"coded together", strings.Repeat("Wolves,Arsenal,1\nArsenal,Wolves,0\n", 3) + "Arsenal,Wolvess,1\n",
			`m.csv:8:9: column "away" (coded with column "home"): label "Wolvess", in 1 row, is one character from "Wolves", in 6`},
		{"in both columns", "Arsenal,Wolvess,1\n" + strings.Repeat("Wolves,Arsenal,1\nArsenal,Wolves,0\n", 100) + "Wolvess,Arsenal,0\n",
			`m.csv:2:9: column "away" (coded with column "home"): label "Wolvess", in 2 rows, is one character from "Wolves", in 200`},
	} {
		bound, err := Bind(info, []Input{csvInput(t, "", "m.csv", "home,away,y\n"+c.csv)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := LevelOrderWarnings(f, info, bound); len(w) != 1 || !strings.HasPrefix(w[0], c.want) {
			t.Errorf("%s: warnings %q,\nwant one beginning %q", c.name, w, c.want)
		}
	}
}

// TestKeyedGroupSumNoOrderWarning: a state-level predictor read through
// group_sum(prev, sname, S), sname its labels coded with the poll's
// states, is matched by label (the same fit from a shuffled file): no
// order warning; read by position it is warned of, the warning giving
// that idiom besides --levels, and read both ways it still is, as it is
// through the labels of another coding (sname bounded by another size).
func TestKeyedGroupSumNoOrderWarning(t *testing.T) {
	const decls = "data S: int\ndata state: int<lower=0, upper=S-1>[N]\ndata y: real[N]\ndata prev: real[S]\ndata sname: int<lower=0, upper=S-1>[S]\nparam b: real ~ Normal(0, 1)\n"
	for _, c := range []struct {
		name, body, want string
	}{
		{"keyed", "let prev_c = group_sum(prev, sname, S)\nlet u = b * prev_c\ny ~ Normal(u[state], 1)\noutput s = sname\n", ""},
		{"by position", "let u = b * prev\ny ~ Normal(u[state], 1)\noutput s = sname\n",
			`poll.csv: column "state": its 3 labels are coded 0 to 2 in sorted (byte) order, AK 0, AL 1, AZ 2, and they index the axis of S of ` + "`u`" + ` at m.gpp:8:14, which reads ` + "`prev`" + ` (real[S]): its entries along the axis of 3 are matched to the codes by position, the first to AK, the last to AZ; if they are in another order (the file's columns prev.1, prev.2, ..., say), give it with --levels state=LABEL,LABEL,... (the label of ` + "`prev`" + `'s first entry first), or match it by label: beside ` + "`prev`" + `, a column of the label of each entry (` + "`data prev_label: int<lower=0, upper=S - 1>[S]`" + `, coded with ` + "`state`" + `), and group_sum(prev, prev_label, S) in place of ` + "`prev`"},
		{"both", "let u = b * (group_sum(prev, sname, S) + prev)\ny ~ Normal(u[state], 1)\n", "they index the axis of S of `u` at m.gpp:8:14, which reads `prev` (real[S])"},
		{"another coding", "data T: int\ndata tname: int<lower=0, upper=T-1>[S]\nlet u = b * group_sum(prev, tname, T)\ny ~ Normal(u[state], 1)\noutput s = sname\n",
			"they index the axis of T of `u` at m.gpp:10:14, which reads `prev` (real[S])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, info := checkedFile(t, decls+c.body)
			in := []Input{csvInput(t, "", "poll.csv", "state,y\nAZ,1\nAK,0.5\nAL,2\nAZ,1.5\n"),
				csvInput(t, "", "states.csv", "sname,tname,prev\nAL,AL,0.3\nAZ,CA,0.6\nAK,AK,0.4\n")}
			bound, err := Bind(info, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := containing(LevelOrderWarnings(f, info, bound), "matched to the codes by position")
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("warnings %q, want none", got)
			case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
				t.Errorf("warnings %q,\nwant one with %q", got, c.want)
			}
		})
	}
}

// containing returns the warnings of ws that contain sub.
func containing(ws []string, sub string) []string {
	var got []string
	for _, w := range ws {
		if strings.Contains(w, sub) {
			got = append(got, w)
		}
	}
	return got
}
