package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFitOrdinalReplicates fits examples/ordinal.gpp, whose y_rep is an
// OrderedLogistic replicate, and reads draws.csv: every replicate is an
// int category 0..3 written as an int, top_rep is its share of 3 in the
// same row, and the replicates' share of each category over the draws is
// near the data's (the model fits: 200 observations, 400 draws).
func TestFitOrdinalReplicates(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runSafe(t, "fit", "../../examples/ordinal.gpp", "../../examples/ordinal.csv", "--quiet", "--seed", "1",
		"--output-draws", "400", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr %q, want no warning", stderr)
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	const n, k = 200, 3
	var share [k + 1]float64
	for d, r := range rows {
		top := 0.0
		for i := 1; i <= n; i++ {
			c, ok := col["y_rep."+strconv.Itoa(i)]
			if !ok {
				t.Fatalf("draws.csv has no column y_rep.%d: %v", i, header[:8])
			}
			v := r[c]
			if v != math.Trunc(v) || v < 0 || v > k {
				t.Fatalf("draw %d: y_rep.%d = %v, not a category 0..%d", d, i, v, k)
			}
			if v == k {
				top++
			}
			share[int(v)]++
		}
		if got := r[col["top_rep"]]; math.Abs(got-top/n) > 1e-12 {
			t.Errorf("draw %d: top_rep = %v, the row's replicates give %v", d, got, top/n)
		}
	}
	// The data: 0..3 in shares read from the file.
	raw, err := os.ReadFile("../../examples/ordinal.csv")
	if err != nil {
		t.Fatal(err)
	}
	var data [k + 1]float64
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		y, _ := strconv.Atoi(line[strings.IndexByte(line, ',')+1:])
		data[y]++
	}
	for c := range share {
		got, want := share[c]/float64(n*len(rows)), data[c]/n
		if math.Abs(got-want) > 0.03 {
			t.Errorf("category %d: share %.3f among the replicates, %.3f in the data", c, got, want)
		}
	}
	// Written as ints: no decimal point in a replicate's cells.
	b, err := os.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && line[0] != '#' && !strings.HasPrefix(line, "lp__") {
			body = append(body, line)
		}
	}
	first := col["y_rep.1"]
	for _, line := range body {
		cells := strings.Split(line, ",")
		for _, cell := range cells[first : first+n] {
			if !regexp.MustCompile(`^[0-3]$`).MatchString(cell) {
				t.Fatalf("a replicate cell %q is not an int 0..3", cell)
			}
		}
	}
}

// TestReplicateStreamIndependence: the replicates draw from a stream of
// their own. Adding a CategoricalLogit and an OrderedProbit replicate (and
// an output that reads one) to examples/cultivar.gpp, which has an
// elementwise replicate, changes no draw of q, no log density and no
// output that is not a replicate. (The elementwise replicate's draws do
// change: the replicates share their stream, draw after draw.)
func TestReplicateStreamIndependence(t *testing.T) {
	src, err := os.ReadFile("../../examples/cultivar.gpp")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := string(src) + "output a_rep ~ Normal(alpha, 1)\n"
	more := base + "output y_rep ~ CategoricalLogit(eta)\noutput acc = mean(y_rep == cultivar)\n" +
		"output o_rep ~ OrderedProbit(alpha[0], [-1, 0, 1])\n"
	fit := func(name, model string) ([]string, [][]float64) {
		path := filepath.Join(dir, name+".gpp")
		if err := os.WriteFile(path, []byte(model), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		code, _, stderr := runSafe(t, "fit", path, "../../examples/wine_std.csv", "../../examples/wine_cultivar.csv",
			"--quiet", "--seed", "3", "--iter", "300", "--output-draws", "200", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
		return header, rows
	}
	h0, r0 := fit("base", base)
	h1, r1 := fit("more", more)
	col1 := map[string]int{}
	for i, h := range h1 {
		col1[h] = i
	}
	if len(h1) != len(h0)+178+2 {
		t.Fatalf("%d columns with the replicates, %d without", len(h1), len(h0))
	}
	if len(r0) != len(r1) {
		t.Fatalf("%d rows, then %d", len(r0), len(r1))
	}
	for c, name := range h0 {
		if strings.HasPrefix(name, "a_rep.") {
			continue
		}
		c1, ok := col1[name]
		if !ok {
			t.Fatalf("column %s lost", name)
		}
		for d := range r0 {
			if a, b := r0[d][c], r1[d][c1]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("draw %d: %s = %v without the new replicates, %v with them", d, name, a, b)
			}
		}
	}
	// the new replicates are categories, and acc reads this row's y_rep
	for d, r := range r1 {
		for i := 1; i <= 178; i++ {
			if v := r[col1["y_rep."+strconv.Itoa(i)]]; v != 0 && v != 1 && v != 2 {
				t.Fatalf("draw %d: y_rep.%d = %v", d, i, v)
			}
		}
		if v := r[col1["o_rep"]]; v != math.Trunc(v) || v < 0 || v > 3 {
			t.Fatalf("draw %d: o_rep = %v", d, v)
		}
	}
}
