package reftest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadCSV checks that ReadCSV keeps the header and quoted fields, and
// that ReadCSVMaps keys each row's fields by the header.
func TestReadCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(path, []byte("name,mean\nmu,1.5\n\"a,b\",-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"name", "mean"}, {"mu", "1.5"}, {"a,b", "-2"}}
	if got := ReadCSV(t, path); !reflect.DeepEqual(got, want) {
		t.Errorf("ReadCSV: %q, want %q", got, want)
	}
	wantMaps := []map[string]string{{"name": "mu", "mean": "1.5"}, {"name": "a,b", "mean": "-2"}}
	if got := ReadCSVMaps(t, path); !reflect.DeepEqual(got, wantMaps) {
		t.Errorf("ReadCSVMaps: %v, want %v", got, wantMaps)
	}
}
