package data

import (
	"testing"
)

// TestBindElemBoundsNoAxis: int vectors bounded per element by one int
// vector of data (int<lower=1, upper=k>[N], each below its own k[i]) index
// no common axis, as two bounded by a size J do: a column of labels for one
// is coded alone, with the other given as numbers, and Bind leaves the
// per-element bounds to the compiler (compile.Compile checks them).
func TestBindElemBoundsNoAxis(t *testing.T) {
	info := checked(t, `data k: int<lower=1>[N]
data a: int<lower=1, upper=k>[N]
data b: int<lower=1, upper=k>[N]
param p: positive
a ~ Poisson(p)
b ~ Poisson(p)
`)
	for _, d := range info.Data {
		if (d.Name == "a" || d.Name == "b") != d.ElemBounds {
			t.Errorf("%s: ElemBounds %v", d.Name, d.ElemBounds)
		}
	}
	out, err := Bind(info, []Input{csvInput(t, "", "d.csv", "k,a,b\n3,x,1\n3,y,9\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := out["a"]; a.Levels == nil || a.Levels.First != 1 || len(a.Levels.With) != 0 {
		t.Errorf("a: coded %+v, want its labels coded alone", a.Levels)
	}
	if got := out["b"].Values; got[1] != 9 {
		t.Errorf("b: %v, want its values as given (9 above k[1] = 3 is the compiler's to report)", got)
	}
}
