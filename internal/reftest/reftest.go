// Package reftest holds what the tests against high-precision references
// (mpmath values in testdata JSON files) share: reading the records and
// measuring a vector's error.
package reftest

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// ReadJSON reads the JSON array of records in path, failing t if it cannot.
func ReadJSON[T any](t testing.TB, path string) []T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []T
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// NormRelErr returns ‖got − want‖₂ / ‖want‖₂, or the absolute error
// ‖got − want‖₂ when want is 0.
func NormRelErr(got, want []float64) float64 {
	var e, w float64
	for i := range want {
		e += (got[i] - want[i]) * (got[i] - want[i])
		w += want[i] * want[i]
	}
	if w == 0 {
		return math.Sqrt(e)
	}
	return math.Sqrt(e / w)
}
