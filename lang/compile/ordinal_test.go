package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestOrdinalEmptyNote: an ordinal ~ on data whose values leave a category
// without rows gets a note naming it, with Stan's 1-based categories named
// where the values run 1..C against C cutpoints; data that fill every
// category, a row at a time in a loop, get none.
func TestOrdinalEmptyNote(t *testing.T) {
	model := "data y: int[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\nparam c: ordered[3] ~ Normal(0, 5)\ny ~ OrderedLogistic(b * x, c)\n"
	loop := "data y: int[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\nparam c: ordered[3] ~ Normal(0, 5)\nfor i in 0:N {\n  y[i] ~ OrderedLogistic(b * x[i], c)\n}\n"
	for _, tc := range []struct {
		name, src string
		ys        []float64
		want      []string // substrings of the one note; nil: no note
	}{
		{"full", model, []float64{0, 1, 2, 3, 1, 2}, nil},
		{"one-based", model, []float64{1, 2, 3, 3, 1, 2}, []string{"m.gpp:5:5: y has no rows in category 0 of the 4 (0 to 3) that c's 3 cutpoints make: its values run 1 to 3", "write y - 1 and give c 2 cutpoints"}},
		{"end", model, []float64{0, 1, 2, 2, 1, 2}, []string{"no rows in category 3 of the 4", "bounded by the data on one side only"}},
		{"inner", model, []float64{0, 1, 3, 3, 1, 0}, []string{"no rows in category 2 of the 4", "do not tell apart the two cutpoints"}},
		{"two", model, []float64{1, 1, 2, 2, 1, 2}, []string{"no rows in categories 0, 3 of the 4"}},
		{"loop", loop, []float64{1, 2, 3, 3, 1, 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := make([][]float64, len(tc.ys))
			for i, y := range tc.ys {
				rows[i] = []float64{y, float64(i) / 3}
			}
			m := compileSrc(t, "m.gpp", tc.src, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "y,x", rows)})
			var notes []string
			for _, n := range m.Notes {
				if strings.Contains(n, "has no rows in categor") {
					notes = append(notes, n)
				}
			}
			if tc.want == nil {
				if len(notes) > 0 {
					t.Errorf("notes %q, want none", notes)
				}
				return
			}
			if len(notes) != 1 {
				t.Fatalf("notes %q, want one", notes)
			}
			for _, w := range tc.want {
				if !strings.Contains(notes[0], w) {
					t.Errorf("note %q lacks %q", notes[0], w)
				}
			}
		})
	}
}

// TestOrdinalGroupEmptyNote: cutpoints per group (c[g], c ordered[G, C])
// get the empty-category note counted per group, with the groups whose end
// category is empty counted apart; groups that each fill every category
// get none.
func TestOrdinalGroupEmptyNote(t *testing.T) {
	model := "data G: int\ndata g: int<lower=0, upper=G-1>[N]\ndata y: int[N]\nparam c: ordered[G, 2] ~ Normal(0, 3)\ny ~ OrderedLogistic(0 * y, c[g])\n"
	for _, tc := range []struct {
		name   string
		gs, ys []float64
		want   []string // substrings of the one note; nil: no note
	}{
		{"full", []float64{0, 0, 0, 1, 1, 1, 2, 2, 2}, []float64{0, 1, 2, 2, 1, 0, 1, 0, 2}, nil},
		{"end", []float64{0, 0, 0, 1, 1, 1, 2, 2, 2}, []float64{0, 1, 2, 1, 1, 0, 1, 0, 2}, []string{
			"m.gpp:5:5: y leaves some of the 3 categories (0 to 2) without rows in 1 of the 3 groups of g, each of which has its own row of c's cutpoints: 1 (category 2)",
			"in 1 of them an end category", "identified by the prior only"}},
		{"inner", []float64{0, 0, 0, 1, 1, 1, 2, 2, 2}, []float64{0, 2, 2, 2, 1, 0, 1, 0, 0}, []string{
			"without rows in 2 of the 3 groups of g", "0 (category 1), 2 (category 2)", "in 1 of them an end category"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := make([][]float64, len(tc.ys))
			for i, y := range tc.ys {
				rows[i] = []float64{tc.gs[i], y}
			}
			m := compileSrc(t, "m.gpp", model, map[string]string{"G": "3"}, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "g,y", rows)})
			var notes []string
			for _, n := range m.Notes {
				if strings.Contains(n, "without rows") {
					notes = append(notes, n)
				}
			}
			if tc.want == nil {
				if len(notes) > 0 {
					t.Errorf("notes %q, want none", notes)
				}
				return
			}
			if len(notes) != 1 {
				t.Fatalf("notes %q, want one", notes)
			}
			for _, w := range tc.want {
				if !strings.Contains(notes[0], w) {
					t.Errorf("note %q lacks %q", notes[0], w)
				}
			}
		})
	}
}

// TestOrdinalCutCount: a data outcome declared upper=8 against fewer
// cutpoints than 8 (a vector, or rows of a matrix) is an error at the bound,
// saying how many cutpoints to declare, before any value is read; enough
// cutpoints, or a bound given by data, bind as before. A value past the
// rows' last category, with no declared bound, is an error at its cell.
func TestOrdinalCutCount(t *testing.T) {
	vec := "data y: int<lower=0, upper=U>[N]\nparam c: ordered[3] ~ Normal(0, 3)\ny ~ OrderedLogistic(0 * y, c)\n"
	rows := "data y: int<lower=0, upper=U>[N]\nparam c: ordered[3] ~ Normal(0, 3)\nparam d: positive[N] ~ Gamma(2, 2)\ny ~ OrderedLogistic(0 * y, d * c')\n"
	free := "data y: int<lower=0>[N]\nparam c: ordered[3] ~ Normal(0, 3)\nparam d: positive[N] ~ Gamma(2, 2)\ny ~ OrderedLogistic(0 * y, d * c')\n"
	for _, tc := range []struct {
		name, src, upper string
		ys               []float64
		want             string // the error; "": none
	}{
		{"vector", vec, "4", []float64{0, 1, 2, 3}, "m.gpp:1:28: y is declared upper=4 (categories 0..4), but c at m.gpp:3:5 has 3 cutpoints, which give categories 0..3: K cutpoints give K+1 categories 0..K; declare the cutpoints ordered[4]"},
		{"rows", rows, "4", []float64{0, 1, 2, 3}, "but d * c' at m.gpp:4:5 has 3 cutpoints a row, which give categories 0..3"},
		{"data bound", strings.Replace(vec, "upper=U", "upper=M", 1), "", []float64{0, 1, 2, 3}, "m.gpp:2:28: y is declared upper=M (categories 0..5)"},
		{"enough", vec, "3", []float64{0, 1, 2, 3}, ""},
		{"cell", free, "", []float64{0, 1, 4, 3}, "d.csv:4:1: y: value 4 is not a category 0..3, as OrderedLogistic at m.gpp:4:5 needs; K cutpoints give K+1 categories 0..K, so these 3 give 0..3: declare the cutpoints ordered[4] for categories 0..4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(tc.src, "upper=U", "upper="+tc.upper, 1)
			var sets map[string]string
			if strings.Contains(src, "upper=M") {
				src, sets = "data M: int\n"+src, map[string]string{"M": "5"}
			}
			rs := make([][]float64, len(tc.ys))
			for i, y := range tc.ys {
				rs[i] = []float64{y}
			}
			_, err := compileSrcErr(t, "m.gpp", src, sets, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "y", rs)})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
