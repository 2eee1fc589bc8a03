package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestDataElemBounds: a data declaration bounded per element by other data
// (real<lower=0, upper=u>[N], Stan's vector<lower=0, upper=u>[N]) is marked
// ElemBounds, and its support comes from its constant bounds and kind
// alone, as for a scalar bound of data: the elements' bounds claim nothing.
func TestDataElemBounds(t *testing.T) {
	_, info := checkSource(t, "m.gpp", `data u: positive[N]
data m: positive
data y: real<lower=0, upper=u>[N]
data z: real<lower=u>[N]
data k: int<lower=0, upper=m>[N]
data s: real<lower=m>
param mu: real
y ~ Normal(mu, 1)
`, nil)
	want := map[string]struct {
		elem    bool
		support dist.Support
	}{
		"u": {false, dist.Positive},
		"y": {true, dist.NonNegative},
		"z": {true, dist.Real},
		"k": {false, dist.Count},
		"s": {false, dist.Real},
	}
	seen := 0
	for _, d := range info.Data {
		w, ok := want[d.Name]
		if !ok {
			continue
		}
		seen++
		if d.ElemBounds != w.elem || d.Support != w.support {
			t.Errorf("%s: ElemBounds %v, support %v; want %v, %v", d.Name, d.ElemBounds, d.Support, w.elem, w.support)
		}
		if d.Name == "z" && d.Symbol.Type.Range.Known && d.Symbol.Type.Range.Lo > 0 {
			t.Errorf("z: range %v claims a lower bound from u's elements", d.Symbol.Type.Range)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d data declarations found", seen, len(want))
	}
}
