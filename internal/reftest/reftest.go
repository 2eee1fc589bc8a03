// Package reftest holds what tests share: reading the records of
// high-precision references (mpmath values in testdata JSON and CSV
// files) and of the CSV files gpp and the experiments write, and
// measuring a vector's error.
package reftest

import (
	"encoding/csv"
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

// ReadCSV reads all the records of the CSV file at path, its header the
// first, failing t if the file cannot be opened or parsed.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// ReadCSVMaps reads the CSV file at path, whose first record is a header,
// into one map a row from column name to field, failing t as ReadCSV
// does and for an empty file.
func ReadCSVMaps(t testing.TB, path string) []map[string]string {
	t.Helper()
	recs := ReadCSV(t, path)
	if len(recs) == 0 {
		t.Fatalf("%s: no header", path)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for j, h := range recs[0] {
			m[h] = r[j]
		}
		out = append(out, m)
	}
	return out
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
