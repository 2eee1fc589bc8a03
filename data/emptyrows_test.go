package data

import "testing"

// TestEmptyFileLabels: a poll of no rows (a header alone) beside a census
// whose columns of labels share its groups: the empty columns are neither
// labels nor numbers, so the census's labels are coded alone and give
// the size, and an order given for an empty column is no error. The
// empty columns were read as numbers ("no coding makes labels and codes
// name the same elements"), and S as unbound ("holds no value").
func TestEmptyFileLabels(t *testing.T) {
	info := checked(t, "data S: int\ndata state: int<lower=0, upper=S-1>[N]\ndata y: int<lower=0, upper=1>[N]\ndata cstate: int<lower=0, upper=S-1>[M]\n")
	inputs := []Input{csvInput(t, "", "poll.csv", "state,y\n"), csvInput(t, "", "census.csv", "cstate\nB\nA\nC\n")}
	for _, order := range []map[string][]string{nil, {"state": {"C", "B", "A"}}} {
		out, err := BindOrdered(info, inputs, nil, order)
		if err != nil {
			t.Fatalf("order %v: %v", order, err)
		}
		if s := out["S"]; s == nil || s.Values[0] != 3 {
			t.Errorf("order %v: S %v, want 3 from the census's labels", order, s)
		}
		if n := len(out["state"].Values); n != 0 {
			t.Errorf("order %v: state has %d values, want 0", order, n)
		}
		want := []float64{1, 0, 2} // B A C sorted
		if order != nil {
			want = []float64{1, 2, 0} // C B A given
		}
		for i, v := range out["cstate"].Values {
			if v != want[i] {
				t.Errorf("order %v: cstate %v, want %v", order, out["cstate"].Values, want)
				break
			}
		}
	}
}
