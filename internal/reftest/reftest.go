// Package reftest holds what the tests against high-precision references
// (mpmath values in testdata JSON files) share: reading the records and
// measuring a vector's error.
package reftest

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
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

// Row is a record of a reference CSV of elementary functions: the
// function's name, its arguments x and y, its value and its partial
// derivatives in x and y (NaN where not given).
type Row struct {
	Name              string
	X, Y, Val, DX, DY float64
}

// ReadRows reads a reference CSV of Rows (name,x,y,value,dx,dy; lines
// starting with # and blank lines skipped), failing t on a malformed line.
func ReadRows(t testing.TB, path string) []Row {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		fs := strings.Split(line, ",")
		if len(fs) != 6 {
			t.Fatalf("%s: %q has %d fields, want 6", path, line, len(fs))
		}
		var v [5]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(fs[i+1], 64); err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
		}
		rows = append(rows, Row{Name: fs[0], X: v[0], Y: v[1], Val: v[2], DX: v[3], DY: v[4]})
	}
	return rows
}
