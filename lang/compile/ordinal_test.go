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
