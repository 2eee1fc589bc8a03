package fitfile

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestObservedHashes: an observed datum's hash is of its shape and values
// alone: a missing cell's NaN of any payload and -0 hash as NaN and 0, but
// another value, another shape or another length does not hash alike; a
// name not bound gives no hashes.
func TestObservedHashes(t *testing.T) {
	hash := func(shape []int, v ...float64) string {
		h := ObservedHashes([]string{"y"}, map[string]*data.Array{"y": {Shape: shape, Values: v}})
		if len(h) != 1 {
			t.Fatalf("ObservedHashes = %v, want one hash", h)
		}
		return h["y"]
	}
	nan := math.Float64frombits(math.Float64bits(math.NaN()) ^ 1) // another NaN payload
	base := hash([]int{4}, 1, 0, math.NaN(), 2)
	if got := hash([]int{4}, 1, math.Copysign(0, -1), nan, 2); got != base {
		t.Errorf("-0 and another NaN: hash %s, want %s", got, base)
	}
	for name, other := range map[string]string{
		"another value":  hash([]int{4}, 1, 0, math.NaN(), 3),
		"another shape":  hash([]int{2, 2}, 1, 0, math.NaN(), 2),
		"another length": hash([]int{5}, 1, 0, math.NaN(), 2, 0),
	} {
		if other == base {
			t.Errorf("%s: the same hash", name)
		}
	}
	if hash([]int{1, 4}, 1, 0, math.NaN(), 2) == hash([]int{2, 2}, 1, 0, math.NaN(), 2) {
		t.Errorf("shapes 1×4 and 2×2: the same hash")
	}
	if h := ObservedHashes([]string{"y", "z"}, map[string]*data.Array{"y": {Shape: []int{1}, Values: []float64{1}}}); h != nil {
		t.Errorf("z not bound: hashes %v, want none", h)
	}
}
