package data

import (
	"strings"
	"testing"
)

// weibHead is a right-censored Weibull model's data and params; a case's
// body reads cens (cens = 1: censored).
const weibHead = "data t: positive[N]\ndata cens: %s[N]\nparam k: positive ~ Gamma(2, 1)\nparam s: positive ~ HalfNormal(50)\nparam a: real[2] ~ Normal(0, 1)\n"

// weibBody reads cens as numbers at m.gpp:6:20, as the trial's model did.
const weibBody = "target += sum((1 - cens) .* logpdf(t, Weibull(k, s)) + cens .* logccdf(t, Weibull(k, s)))\n"

// failCensored is a Minitab life table: F (failure) and C (censored),
// sorted C 0, F 1, the other way round from what the model means.
const failCensored = "t,cens\n4.1,F\n5.2,F\n10.7,C\n7.1,F\n"

// TestTwoLabelWarnings: a column of two labels coded in sorted order that
// the model reads as numbers or as a family's value is warned of, naming
// the column, the coding, the use and the --levels that swaps or keeps
// it; indexing, an ordered outcome (either way round a mirror), labels
// that say which is which (no, yes), an order --levels gave, and an
// indicator declaration (indicatorWarnings's) are not.
func TestTwoLabelWarnings(t *testing.T) {
	for _, c := range []struct {
		name, decl, body, csv string
		want                  string // "" for none
	}{
		{"censoring", "int", weibBody, failCensored, `s.csv: column "cens": its 2 labels are coded in sorted (byte) order, C 0, F 1, and m.gpp:6:20 reads the codes as numbers, where which label is 1 is their meaning: if 1 means C, say so with --levels cens=F,C (the label coded 0 first); --levels cens=C,F keeps this coding and silences this warning; or give the column as numbers`},
		{"Bernoulli outcome", "int", "cens ~ Bernoulli(0.3)\n", failCensored, "m.gpp:6:1 reads the codes as the value of Bernoulli"},
		{"from 1", "int<lower=1>", "t ~ Normal(k * (cens - 1), s)\n", failCensored, "C 1, F 2, and m.gpp:6:17 reads the codes as numbers, where which label is 2 is their meaning: if 2 means C, say so with --levels cens=F,C (the label coded 1 first)"},
		{"case makes Yes 0", "int", weibBody, "t,cens\n4.1,no\n5.2,Yes\n", "Yes 0, no 1"},
		{"index", "int", "t ~ Weibull(k, exp(a[cens]))\n", failCensored, ""},
		{"ordered outcome", "int", "param c: ordered[1] ~ Normal(0, 5)\ncens ~ OrderedLogistic(0, c)\n", failCensored, ""},
		{"group codes", "int", "output g = group_sum(t, cens, 2)\n", failCensored, ""},
		{"no and yes", "int", weibBody, "t,cens\n4.1,no\n5.2,yes\n", ""},
		{"N and Y", "int", weibBody, "t,cens\n4.1,N\n5.2,Y\n", ""},
		{"three labels", "int", weibBody, "t,cens\n4.1,F\n5.2,C\n1,X\n", "its 3 labels"}, // the ordered-codes warning
	} {
		t.Run(c.name, func(t *testing.T) {
			f, info := checkedFile(t, strings.Replace(weibHead, "%s", c.decl, 1)+c.body)
			in := []Input{csvInput(t, "", "s.csv", c.csv)}
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
			if len(warns) != 1 || !strings.Contains(warns[0], c.want) {
				t.Fatalf("warnings %q,\nwant one holding %q", warns, c.want)
			}
			lv := bound["cens"].Levels.Labels
			bound, err = BindOrdered(info, in, nil, map[string][]string{"cens": lv})
			if err != nil {
				t.Fatal(err)
			}
			if warns := LevelOrderWarnings(f, info, bound); len(warns) > 0 && len(lv) == 2 {
				t.Errorf("with --levels: warnings %q", warns)
			}
		})
	}
}
