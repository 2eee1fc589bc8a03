package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestOneBasedIndexNote: int data indexing a param whose size is given as
// data, with ids 1..J−1 and no 0 (Stan's 1-based ids under a J one too
// many), get a note that element 0 is fitted from its prior alone; 0-based
// ids, ids that stop short of J − 1 and a size written in the model get none.
func TestOneBasedIndexNote(t *testing.T) {
	const model = "data g: int<lower=0>[N]\ndata y: real[N]\ndata J: int\nparam z: real[J] ~ Normal(0, 1)\ny ~ Normal(z[g], 1)\n"
	const edges = "data g: int<lower=0>[N]\ndata h: int<lower=0>[N]\ndata y: real[N]\ndata J: int\nparam z: real[J] ~ Normal(0, 1)\ny ~ Normal(z[g] - z[h], 1)\n"
	const inModel = "data g: int<lower=0>[N]\ndata y: real[N]\nparam z: real[5] ~ Normal(0, 1)\ny ~ Normal(z[g], 1)\n"
	for _, tc := range []struct {
		name, src string
		g         []float64
		want      string // a substring of the one note; "": no note
	}{
		{"one-based", model, []float64{1, 2, 3, 4, 2, 1}, "m.gpp:5:14: `g` never takes the value 0 as the index of z (J = 5): these run from 1 to 4, as Stan's 1-based ids do, so element 0 of z is read by no row and fitted from its prior alone; if they are, index z[g - 1] and give J = 4, or give 0-based ids"},
		{"zero-based", model, []float64{0, 1, 2, 3, 4, 1}, ""},
		{"short of J-1", model, []float64{1, 2, 3, 3, 2, 1}, ""},
		{"another column holds 0", edges, []float64{1, 2, 3, 4, 2, 1}, ""},
		{"size in the model", inModel, []float64{1, 2, 3, 4, 2, 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := make([][]float64, len(tc.g))
			for i, g := range tc.g {
				rows[i] = []float64{g, float64(i) / 3, g - 1}
			}
			in := []data.Input{{File: "d.csv", Table: csvTable(t, "d.csv", "g,y,h", rows)}}
			if strings.Contains(tc.src, "data J") {
				in = append(in, data.Input{File: "j.json", JSON: map[string]*data.Array{"J": {Name: "J", Values: []float64{5}, Int: true}}})
			}
			m := compileSrc(t, "m.gpp", tc.src, nil, in...)
			var notes []string
			for _, n := range m.Notes {
				if strings.Contains(n, "never takes the value 0") {
					notes = append(notes, n)
				}
			}
			if tc.want == "" {
				if len(notes) > 0 {
					t.Errorf("notes %q, want none", notes)
				}
				return
			}
			if len(notes) != 1 || !strings.Contains(notes[0], tc.want) {
				t.Errorf("notes %q, want one containing %q", notes, tc.want)
			}
		})
	}
}
