package stdlib

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestDistKernels ties the language's distribution table to package dist:
// every elementwise distribution has a kernel of the same name whose
// parameters have the same names, order and required supports, and whose
// value support agrees (a kernel finite at 0 — NonNegative — serves a
// Positive value: 0 has measure zero for a continuous latent).
func TestDistKernels(t *testing.T) {
	for _, d := range Dists() {
		if d.Shape != DistElementwise {
			continue
		}
		u, ok := dist.LookupUnivariate(d.Name)
		if !ok {
			t.Errorf("%s: no kernel in package dist", d.Name)
			continue
		}
		if len(u.Params) != len(d.Params) {
			t.Errorf("%s: %d parameters in stdlib, %d in dist", d.Name, len(d.Params), len(u.Params))
			continue
		}
		for i, p := range d.Params {
			if p.Name != u.Params[i].Name {
				t.Errorf("%s: parameter %d is %q in stdlib, %q in dist", d.Name, i+1, p.Name, u.Params[i].Name)
			}
			if p.Support != u.Params[i].Support {
				t.Errorf("%s: parameter %s needs %v in stdlib, %v in dist", d.Name, p.Name, p.Support, u.Params[i].Support)
			}
		}
		same := d.Support == u.Support || (d.Support == dist.Positive && u.Support == dist.NonNegative)
		if !same {
			t.Errorf("%s: value support %v in stdlib, %v in dist", d.Name, d.Support, u.Support)
		}
		if d.Int != u.Support.Discrete() {
			t.Errorf("%s: int value %v in stdlib, discrete %v in dist", d.Name, d.Int, u.Support.Discrete())
		}
	}
}
