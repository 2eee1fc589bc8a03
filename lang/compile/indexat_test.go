package compile

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// Indices that change with the draws, in outputs: each form (an element,
// a row, a cell with either index per draw, a slice beside one, vectors of
// indices, a literal of them) against the elements picked here by the
// index values computed from the point, with the log joint's gradient
// untouched by them.
func TestIndexPerDrawInOutputs(t *testing.T) {
	const src = `param a: real[4] ~ Normal(0, 1)
let v = [10.5, 20.5, 30.5, 40.5]
let M = 10 * [0, 1, 2, 3] * rep(1, 4)' + rep(1, 4) * [0, 1, 2, 3]'
let up = sort_indices_asc(a)
let top = sort_indices_desc(a)[0]
let low = up[0]
output e1 = v[top]
output e2 = a[top]
output r = M[top]
output c1 = M[top, 2]
output c2 = M[1, low]
output c3 = M[top, 1:3]
output c4 = M[0:2, top]
output vv = v[up]
output mm = M[up]
output m2 = M[[0, 2], top]
output m3 = M[top, up]
output m4 = M[up, top]
output m5 = M[:, up]
output m6 = M[top, low]
output m7 = v[[top, low, 1]]
`
	m := compileSrc(t, "at.gpp", src, nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	v := []float64{10.5, 20.5, 30.5, 40.5}
	cell := func(i, j int) float64 { return float64(10*i + j) }
	for _, a := range randomPoints(11, 8, m.Dim) {
		_, outs, err := ev.Eval(a)
		if err == nil {
			err = ev.OutputErr()
		}
		if err != nil {
			t.Fatal(err)
		}
		up := []int{0, 1, 2, 3}
		sort.SliceStable(up, func(i, j int) bool { return a[up[i]] < a[up[j]] })
		top, low := up[3], up[0]
		rows := func(is []int, js []int) []float64 { // row-major
			var out []float64
			for _, i := range is {
				for _, j := range js {
					out = append(out, cell(i, j))
				}
			}
			return out
		}
		all := []int{0, 1, 2, 3}
		var vv []float64
		for _, i := range up {
			vv = append(vv, v[i])
		}
		want := [][]float64{{v[top]}, {a[top]}, rows([]int{top}, all), {cell(top, 2)}, {cell(1, low)},
			rows([]int{top}, []int{1, 2}), rows([]int{0, 1}, []int{top}), vv, rows(up, all),
			rows([]int{0, 2}, []int{top}), rows([]int{top}, up), rows(up, []int{top}), rows(all, up),
			{cell(top, low)}, {v[top], v[low], v[1]}}
		for i, o := range m.Outputs {
			if !slices.Equal(outs[i], want[i]) {
				t.Errorf("at %v: %s = %v, want %v", a, o.Name, outs[i], want[i])
			}
		}
	}
	checkGradient(t, m, 5, 0.5)
}

// An index out of range at a draw fails that output, naming it, the
// index's value and the range, at the index; the others keep their values.
func TestIndexPerDrawOutOfRange(t *testing.T) {
	const src = `param a: real[4] ~ Normal(0, 1)
let v = [10.5, 20.5, 30.5, 40.5]
let top = sort_indices_desc(a)[0]
output ok = v[top]
output past = v[top + 1]
output back = v[[0, top - 3]]
`
	m := compileSrc(t, "at.gpp", src, nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a    []float64
		want string
	}{
		{[]float64{0, 0, 0, 1}, "at.gpp:5:17: output `past`: `v[top + 1]`: index 4 out of range [0, 4) at this draw; indices are 0-based: the last is 3"},
		{[]float64{1, 0, 0, 0}, "at.gpp:6:17: output `back`: `v[[0, top - 3]]`: index -3 out of range [0, 4) at this draw (element 1 of the index vector); gpp has no negative indices"},
	} {
		lp, outs, err := ev.Eval(c.a)
		if err != nil {
			t.Fatalf("log joint: %v", err)
		}
		err = ev.OutputErr()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("at %v: error %v, want %q", c.a, err, c.want)
		}
		if top := slices.Index(c.a, 1); outs[0][0] != v4(top) || lp != lp {
			t.Errorf("at %v: ok = %v (log joint %v), want %v", c.a, outs[0], lp, v4(top))
		}
	}
}

func v4(i int) float64 { return []float64{10.5, 20.5, 30.5, 40.5}[i] }

// A paired gather (A[r, c], the elements A[r[k], c[k]]) with an index that
// changes with the draws is a positioned compile error, not a block.
func TestIndexPerDrawPairedRefused(t *testing.T) {
	const src = `param a: real[4] ~ Normal(0, 1)
let M = [0, 1, 2, 3] * rep(1, 4)'
output p = M[[0, 1, 2, 3], sort_indices_asc(a)]
`
	_, err := compileSrcErr(t, "at.gpp", src, nil)
	if want := "at.gpp:3:28: a paired gather"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q...", err, want)
	}
}
