package data

import (
	"slices"
	"strings"
	"testing"
)

// btModel is a Bradley-Terry model's data: two columns of teams, one axis.
const btModel = "data J: int\ndata home: int<lower=0, upper=J-1>[N]\ndata away: int<lower=0, upper=J-1>[N]\ndata y: int[N]\n"

// TestBindLabelGroup: the columns of labels of declarations bounded by one
// size are coded together, from the union of their labels (R's
// factor(levels = union(...))), J counting the union; --levels for one
// orders all; codes beside labels are an error at the first label.
func TestBindLabelGroup(t *testing.T) {
	info := checked(t, btModel)
	// Wolves never plays away, Leeds never at home, Man City once: none
	// is an error, each label has one code in both columns
	src := "home,away,y\nWolves,Arsenal,1\nArsenal,Leeds,0\nMan City,Wolves,1\n"
	bound, err := Bind(info, []Input{csvInput(t, "", "m.csv", src)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Arsenal", "Leeds", "Man City", "Wolves"}
	for _, name := range []string{"home", "away"} {
		if lv := bound[name].Levels; !slices.Equal(lv.Labels, want) {
			t.Errorf("%s coded %q, want %q", name, lv.Labels, want)
		}
	}
	if h, a := bound["home"].Values, bound["away"].Values; !slices.Equal(h, []float64{3, 0, 2}) || !slices.Equal(a, []float64{0, 1, 3}) {
		t.Errorf("home %v, away %v", h, a)
	}
	if j := bound["J"].Values[0]; j != 4 {
		t.Errorf("J = %g, want 4 (the union's count)", j)
	}
	notes := LevelNotes(info, bound, false)
	if len(notes) != 2 || !strings.Contains(notes[0], `in sorted order, shared with column "away"`) {
		t.Errorf("notes %q", notes)
	}

	// --levels for home codes away too
	order := map[string][]string{"home": {"Wolves", "Man City", "Leeds", "Arsenal"}}
	bound, err = BindOrdered(info, []Input{csvInput(t, "", "m.csv", src)}, nil, order)
	if err != nil {
		t.Fatal(err)
	}
	if a := bound["away"]; !a.Levels.Given || !slices.Equal(a.Values, []float64{3, 2, 0}) {
		t.Errorf("away under home's order: %v (given %v)", a.Values, a.Levels.Given)
	}
	// a label of away that home's order does not list is an error at its
	// cell, naming the order's declaration
	order = map[string][]string{"home": {"Wolves", "Man City", "Arsenal"}}
	_, err = BindOrdered(info, []Input{csvInput(t, "", "m.csv", src)}, nil, order)
	if err == nil || !strings.Contains(err.Error(), "m.csv:3:9: column \"away\": label \"Leeds\" is not in the order --levels gives `home`, which codes `away` too (both are bounded by J)") {
		t.Errorf("a label home's order leaves out: %v", err)
	}
	// two different orders for one axis
	order = map[string][]string{"home": want, "away": {"Wolves", "Man City", "Leeds", "Arsenal"}}
	_, err = BindOrdered(info, []Input{csvInput(t, "", "m.csv", src)}, nil, order)
	if err == nil || !strings.Contains(err.Error(), "--levels: `home` and `away` are given different orders") {
		t.Errorf("two orders: %v", err)
	}

	// codes beside labels: no shared coding, the error names the label
	mixed := "home,away,y\nArsenal,1,1\nLeeds,0,0\n"
	_, err = Bind(info, []Input{csvInput(t, "", "m.csv", mixed)}, nil)
	if err == nil || !strings.Contains(err.Error(), "m.csv:2:1: column \"home\": label \"Arsenal\" cannot be coded to index the axis that `away` indexes too (both are bounded by J): `away` is given as numbers (m.csv:2:9)") || !strings.Contains(err.Error(), "--levels home=") {
		t.Errorf("labels beside codes: %v", err)
	}
}

// TestBindCodedGroupGrow: gpp predict --new-levels codes the new labels of
// every column of a group after the fit's, once each, in one order: a new
// team at home and another away get two codes, and a new team only in the
// second column still grows J.
func TestBindCodedGroupGrow(t *testing.T) {
	info := checked(t, btModel)
	fit := func() map[string]Levels {
		lv := Levels{First: 0, Labels: []string{"Arsenal", "Leeds", "Wolves"}, Grow: true}
		return map[string]Levels{"home": lv, "away": lv}
	}
	opt := map[string]bool{"y": true}
	bound, err := BindCoded(info, []Input{csvInput(t, "", "new.csv", "home,away\nIpswich,Leeds\nLeeds,Leicester\n")}, nil, opt, fit(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if h, a := bound["home"].Values, bound["away"].Values; !slices.Equal(h, []float64{3, 1}) || !slices.Equal(a, []float64{1, 4}) {
		t.Errorf("home %v, away %v: want Ipswich 3, Leicester 4", h, a)
	}
	if j := bound["J"].Values[0]; j != 5 {
		t.Errorf("J = %g, want 5", j)
	}
	bound, err = BindCoded(info, []Input{csvInput(t, "", "new.csv", "home,away\nLeeds,Ipswich\n")}, nil, opt, fit(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, j := bound["away"].Values, bound["J"].Values[0]; !slices.Equal(a, []float64{3}) || j != 4 {
		t.Errorf("a new team only away: away %v, J %g", a, j)
	}
}

// TestBindCodedSuggest: a label the fit did not see is an error that
// suggests the fit's label it most likely misspells.
func TestBindCodedSuggest(t *testing.T) {
	info := checked(t, btModel)
	lv := Levels{First: 0, Labels: []string{"Arsenal", "Man City", "Wolves"}}
	for _, c := range []struct{ cell, want string }{
		{"mancity", `did you mean "Man City"?`},                           // case and space
		{"Man-City", `did you mean "Man City"?`},                          // punctuation
		{"Arsneal", `did you mean "Arsenal"?`},                            // a transposition
		{"Ipswich", `not one the fit coded ` + "`away`" + ` from (its 3`}, // none
	} {
		_, err := BindCoded(info, []Input{csvInput(t, "", "new.csv", "home,away\nWolves,"+c.cell+"\n")}, nil, map[string]bool{"y": true}, map[string]Levels{"home": lv, "away": lv}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || c.cell == "Ipswich" && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%q: %v, want %s", c.cell, err, c.want)
		}
	}
}

// TestLabelWarnings: an indicator coded from two labels in byte order is
// warned of, with its codes and the --levels that says them, unless
// --levels gave them; two labels that differ only in case, spaces or
// punctuation are warned of once.
func TestLabelWarnings(t *testing.T) {
	for _, decl := range []string{"int<lower=0, upper=1>", "int<lower=1, upper=2>"} {
		f, info := checkedFile(t, "data cens: "+decl+"[N]\ndata t: real[N]\n")
		in := []Input{csvInput(t, "", "s.csv", "cens,t\nright,1\nevent,2\n")}
		bound, err := Bind(info, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := LevelOrderWarnings(f, info, bound)
		first := decl[len("int<lower=")]
		want := "s.csv: column \"cens\": `cens` is declared " + decl + "[N], an indicator, and its labels are coded in sorted (byte) order: event is " + string(first) + " and right is " + string(first+1)
		if len(w) != 1 || !strings.HasPrefix(w[0], want) || !strings.HasSuffix(w[0], "--levels cens=event,right (the label coded "+string(first)+" first)") {
			t.Errorf("%s: warnings %q", decl, w)
		}
		bound, err = BindOrdered(info, in, nil, map[string][]string{"cens": {"right", "event"}})
		if err != nil {
			t.Fatal(err)
		}
		if w := LevelOrderWarnings(f, info, bound); len(w) != 0 {
			t.Errorf("%s with --levels: warnings %q", decl, w)
		}
	}
	// not an indicator: no warning
	f, info := checkedFile(t, "data g: int<lower=0, upper=2>[N]\ndata t: real[N]\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "s.csv", "g,t\nright,1\nevent,2\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := LevelOrderWarnings(f, info, bound); len(w) != 0 {
		t.Errorf("bounds [0, 2]: warnings %q", w)
	}

	f, info = checkedFile(t, btModel)
	bound, err = Bind(info, []Input{csvInput(t, "", "m.csv", "home,away,y\nManCity,Arsenal,1\nArsenal,ManCity,0\nMan City,Arsenal,1\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := LevelOrderWarnings(f, info, bound)
	if len(w) != 1 || !strings.HasPrefix(w[0], `m.csv: column "home" (coded with column "away"): labels "Man City" and "ManCity" differ only in case, spaces or punctuation, yet are coded as two groups (Man City 1, ManCity 2)`) {
		t.Errorf("near labels: warnings %q", w)
	}
	// two columns coded apart that hold one pair: each is warned of
	f, info = checkedFile(t, "data team: int[N]\ndata city: int[N]\n")
	bound, err = Bind(info, []Input{csvInput(t, "", "m.csv", "team,city\nManCity,Leeds\nMan City,ManCity\nLeeds,Man City\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w = LevelOrderWarnings(f, info, bound)
	if len(w) != 2 || !strings.HasPrefix(w[0], `m.csv: column "team": labels "Man City" and "ManCity"`) || !strings.HasPrefix(w[1], `m.csv: column "city": labels "Man City" and "ManCity"`) {
		t.Errorf("near labels of two codings: warnings %q", w)
	}
}

// TestBindLabelGroupForms: a label of one column that is another column's
// label in another Unicode form is an error at its cell, once.
func TestBindLabelGroupForms(t *testing.T) {
	info := checked(t, btModel)
	nfc, nfd := "Bar\u00e7a", "Barc\u0327a"
	src := "home,away,y\n" + nfc + ",Leeds,1\nLeeds," + nfd + ",0\n"
	_, err := Bind(info, []Input{csvInput(t, "", "m.csv", src)}, nil)
	if err == nil || strings.Count(err.Error(), "two Unicode forms") != 1 || !strings.Contains(err.Error(), "a label of a column coded with it") {
		t.Errorf("two forms in two columns: %v", err)
	}
}

// TestBindLabelAxisGroup: columns of labels that index one axis of one
// value (d[t] and d[base], bounds or none) are coded together, as columns
// bounded by one size are: through a let, in a loop, through a column
// that indexes two values, and from two files; columns that index two
// values of one size are coded apart. --levels for one orders all.
func TestBindLabelAxisGroup(t *testing.T) {
	nma := "data t: int[N]\ndata base: int[N]\ndata y: real[N]\nparam d: real[4]\n"
	src := "t,base,y\nPlacebo,Placebo,1\nDrugA,Placebo,2\nDrugC,DrugA,3\nDrugB,DrugA,4\n"
	all := []string{"DrugA", "DrugB", "DrugC", "Placebo"}
	for _, c := range []struct {
		name, model string
		shared      []string // the declarations coded with all four labels
		apart       []string // coded from their own labels
	}{
		{"one vector", nma + "y ~ Normal(d[t] - d[base], 1)\n", []string{"t", "base"}, nil},
		{"through a let", nma + "let dd = d[t]\ny ~ Normal(dd - d[base], 1)\n", []string{"t", "base"}, nil},
		{"in a loop", nma + "for i in 0:N-1 {\n  y[i] ~ Normal(d[t[i]] - d[base[i]], 1)\n}\n", []string{"t", "base"}, nil},
		{"two vectors of one size", nma + "param e: real[4]\ny ~ Normal(d[t] - e[base], 1)\n", nil, []string{"t", "base"}},
		{"through a third column", nma + "data c: int[N]\nparam e: real[4]\ny ~ Normal(d[t] + d[c] - e[c] + e[base], 1)\n", []string{"t", "base", "c"}, nil},
	} {
		info := checked(t, c.model)
		in := src
		if strings.Contains(c.model, "data c:") {
			in = "t,base,y,c\nPlacebo,Placebo,1,DrugA\nDrugA,Placebo,2,DrugA\nDrugC,DrugA,3,DrugA\nDrugB,DrugA,4,DrugA\n"
		}
		bound, err := Bind(info, []Input{csvInput(t, "", "m.csv", in)}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, name := range c.shared {
			lv := bound[name].Levels
			if !slices.Equal(lv.Labels, all) || len(lv.With) != len(c.shared)-1 {
				t.Errorf("%s: %s coded %q with %q, want %q with the others", c.name, name, lv.Labels, lv.With, all)
			}
		}
		if len(c.shared) > 0 {
			if b := bound["base"].Values; !slices.Equal(b, []float64{3, 3, 0, 0}) {
				t.Errorf("%s: base %v, want Placebo 3 as in t", c.name, b)
			}
			notes := LevelNotes(info, bound, false)
			if !strings.Contains(notes[1], `column "base": 4 labels coded 0 to 3 in sorted order, shared with column`) {
				t.Errorf("%s: notes %q", c.name, notes)
			}
		}
		for _, name := range c.apart {
			if lv := bound[name].Levels; len(lv.With) != 0 || len(lv.Labels) == 4 && name == "base" {
				t.Errorf("%s: %s coded %q with %q, want apart", c.name, name, lv.Labels, lv.With)
			}
		}
	}

	// two files: t in one, base (of its own rows) in another
	info := checked(t, "data t: int[N]\ndata base: int[M]\ndata y: real[N]\nparam d: real[4]\ny ~ Normal(d[t], 1)\nparam z: real[M] ~ Normal(d[base], 1)\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "a.csv", "t,y\nPlacebo,1\nDrugA,2\nDrugC,3\nDrugB,4\n"), csvInput(t, "", "b.csv", "base\nPlacebo\nDrugA\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lv := bound["base"].Levels; !slices.Equal(lv.Labels, all) || lv.File != "b.csv" || !slices.Equal(bound["base"].Values, []float64{3, 0}) {
		t.Errorf("two files: base coded %q in %s: %v", lv.Labels, lv.File, bound["base"].Values)
	}

	// --levels for base orders t too; a label of t it leaves out is an
	// error that says why the order codes t
	info = checked(t, nma+"y ~ Normal(d[t] - d[base], 1)\n")
	order := map[string][]string{"base": {"Placebo", "DrugA", "DrugB", "DrugC"}}
	bound, err = BindOrdered(info, []Input{csvInput(t, "", "m.csv", src)}, nil, order)
	if err != nil {
		t.Fatal(err)
	}
	if tv := bound["t"]; !tv.Levels.Given || !slices.Equal(tv.Values, []float64{0, 1, 3, 2}) {
		t.Errorf("t under base's order: %v", tv.Values)
	}
	order = map[string][]string{"base": {"Placebo", "DrugA", "DrugB"}}
	_, err = BindOrdered(info, []Input{csvInput(t, "", "m.csv", src)}, nil, order)
	if err == nil || !strings.Contains(err.Error(), "m.csv:4:1: column \"t\": label \"DrugC\" is not in the order --levels gives `base`, which codes `t` too (both index `d`)") {
		t.Errorf("a label base's order leaves out: %v", err)
	}
	// one lower bound codes both from it: their codes name one element
	info1 := checked(t, "data t: int<lower=1>[N]\ndata base: int[N]\ndata y: real[N]\nparam d: real[5]\ny ~ Normal(d[t] - d[base], 1)\n")
	bound, err = Bind(info1, []Input{csvInput(t, "", "m.csv", src)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tl, bl := bound["t"].Levels, bound["base"].Levels; tl.First != 1 || bl.First != 1 || !slices.Equal(bound["base"].Values, []float64{4, 4, 1, 1}) {
		t.Errorf("lower bound 1 on t: t from %d, base from %d: %v", tl.First, bl.First, bound["base"].Values)
	}
	// labels beside codes on one axis
	_, err = Bind(info, []Input{csvInput(t, "", "m.csv", "t,base,y\nPlacebo,0,1\n")}, nil)
	if err == nil || !strings.Contains(err.Error(), "m.csv:2:1: column \"t\": label \"Placebo\" cannot be coded to index the axis that `base` indexes too (both index `d`)") {
		t.Errorf("labels beside codes: %v", err)
	}
}
