package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitTSV fits the factor model to its data as a tab-separated file,
// whole and as the selection Y=FILE.tsv:c1,...,c8: the summary is the
// comma-separated file's byte for byte, and a bad cell is an error at its
// line and column of the .tsv file.
func TestFitTSV(t *testing.T) {
	d := t.TempDir()
	src, err := os.ReadFile(factorData)
	if err != nil {
		t.Fatal(err)
	}
	tsv := writeFile(t, d, "matrix.tsv", strings.ReplaceAll(string(src), ",", "\t"))
	header, _, _ := strings.Cut(string(src), "\n")
	summary := func(data string) string {
		t.Helper()
		out := filepath.Join(d, "out")
		if code, _, stderr := runSafe(t, "fit", factorModel, data, "--quiet", "--iter", "200", "--out", out); code != 0 {
			t.Fatalf("gpp fit %s: exit %d: %s", data, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := summary(factorData)
	if got := summary(tsv); got != want {
		t.Errorf("summary from the .tsv file differs from the .csv file's:\n%s\nwant\n%s", got, want)
	}
	if got := summary("Y=" + tsv + ":" + header); got != want {
		t.Errorf("summary from the .tsv file's column selection differs from the .csv file's:\n%s\nwant\n%s", got, want)
	}
	bad := writeFile(t, d, "bad.tsv", "c1\tc2\n1\t2\n3\tx\n")
	code, _, stderr := runSafe(t, "fit", factorModel, "Y="+bad+":c1,c2", "--quiet", "--iter", "100", "--out", filepath.Join(d, "bad"))
	if want := bad + `:3:3: column "c2": "x" is not a number`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("a bad cell: exit %d, %q; want 1 and %q", code, stderr, want)
	}
}
