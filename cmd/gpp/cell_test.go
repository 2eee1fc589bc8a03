package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestShiftedLogNormalCell: a shifted lognormal whose shift's upper bound
// is above one subject's least response time fails in gpp check (exit 1),
// and gpp sample's rejected points are reported, with an error that names
// the row's cell in the data file, the shift element its subject picks
// and the bound, not only the element of the value. (gpp fit fails or
// ends with warnings by its draws: at seed 1 it fails, at seed 6 it ends,
// its warning naming the same row.)
func TestShiftedLogNormalCell(t *testing.T) {
	const want = "testdata/check_sln_cell.gpp:10:20: log density is -Inf: value "
	const cell = " outside the support of LogNormal (element [17]); the value is computed from rt's at testdata/sln_cell.csv:19:3 and param shift[2]; shift's upper bound 0.4 is above this row's rt 0.11, which shift[2] must stay below\n"
	model, data := "testdata/check_sln_cell.gpp", "testdata/sln_cell.csv"
	for _, c := range []struct {
		args []string
		exit int
	}{
		{[]string{"check", model, data}, exitError},
		{[]string{"sample", model, data, "--quiet", "--seed", "1", "--out", filepath.Join(t.TempDir(), "nuts")}, 0}, // rejected points
	} {
		args := c.args
		code, _, stderr := runSafe(t, args...)
		if code != c.exit {
			t.Errorf("gpp %s: exit %d, want %d; stderr:\n%s", args[0], code, c.exit, stderr)
		}
		// the value is the run's where it failed: the line around it,
		// and a negative value
		i := strings.Index(stderr, want)
		line, _, _ := strings.Cut(stderr[max(i, 0):], "\n")
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(line+"\n", want), cell), 64)
		if i < 0 || !strings.HasSuffix(line+"\n", cell) || err != nil || !(v < 0) {
			t.Errorf("gpp %s: stderr\n%s\nwant the error %s<value below 0>%s", args[0], stderr, want, cell)
		}
	}
}
