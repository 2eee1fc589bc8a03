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
	// no warning nor note about the replicates: at most hints (the
	// cutpoints' curvature hint) and q's Pareto k̂ (0.67 at this seed, whose
	// weights keep an ESS below the draws k̂ needs: sgvb.WeightsWarning)
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if strings.HasPrefix(l, "gpp: warning: Pareto k̂ = ") {
			continue
		}
		if l != "" && !strings.HasPrefix(l, "gpp: hint: ") || strings.Contains(l, "warning") {
			t.Errorf("stderr %q, want no warning (hints alone)", stderr)
			break
		}
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(header)
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
// their own. Adding a CategoricalLogit, an OrderedProbit and an MvNormal
// replicate (and an output that reads one) to examples/cultivar.gpp, which has an
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
		"output o_rep ~ OrderedProbit(alpha[0], [-1, 0, 1])\n" +
		"output b_rep ~ MvNormal(alpha, B' * B + I(K))\n"
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
	if len(h1) != len(h0)+178+2+3 {
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
		for k := 1; k <= 3; k++ {
			if v := r[col1["b_rep."+strconv.Itoa(k)]]; math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("draw %d: b_rep.%d = %v", d, k, v)
			}
		}
	}
}

// TestFitGPFAReplicates adds an MvNormalRows replicate of Y, with the
// likelihood's covariance W W' + I/prec, to examples/gpfa.gpp on 20 rows
// of examples/wine_std.csv. draws.csv gets its N × D columns, finite, and
// in each column of Y the replicates (over rows and draws) have mean 0 and
// the variance of the fitted covariance's diagonal averaged over the
// draws, and the replicates of two columns its off-diagonal entry, within
// 5 standard errors of their sampling distribution given the draws of q. Adding the replicate
// changes no draw of q and no other output, and brings no warning.
func TestFitGPFAReplicates(t *testing.T) {
	src, err := os.ReadFile("../../examples/gpfa.gpp")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../examples/wine_std.csv")
	if err != nil {
		t.Fatal(err)
	}
	const n, dim = 20, 13
	dir := t.TempDir()
	csv := filepath.Join(dir, "wine20.csv")
	lines := strings.SplitAfter(string(raw), "\n")
	if err := os.WriteFile(csv, []byte(strings.Join(lines[:n+1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	base := string(src)
	more := base + "output Y_rep ~ MvNormalRows(rep_matrix(0, N, D), W * W' + I(D) / prec)\n"
	fit := func(name, model string) ([]string, [][]float64, string) {
		path := filepath.Join(dir, name+".gpp")
		if err := os.WriteFile(path, []byte(model), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		code, _, stderr := runSafe(t, "fit", path, csv, "--quiet", "--seed", "2", "--iter", "300", "--output-draws", "400", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
		return header, rows, stderr
	}
	h0, r0, e0 := fit("base", base)
	h1, r1, e1 := fit("more", more)
	// the same messages, whose paths (the --against hint's) name each model
	if strings.ReplaceAll(e1, filepath.Join(dir, "more"), filepath.Join(dir, "base")) != e0 {
		t.Errorf("stderr with the replicate:\n%s\nwithout:\n%s", e1, e0)
	}
	col := columns(h1)
	if len(h1) != len(h0)+n*dim {
		t.Fatalf("%d columns with the replicate, %d without", len(h1), len(h0))
	}
	for c, name := range h0 {
		c1, ok := col[name]
		if !ok {
			t.Fatalf("column %s lost", name)
		}
		for d := range r0 {
			if a, b := r0[d][c], r1[d][c1]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("draw %d: %s = %v without the replicate, %v with it", d, name, a, b)
			}
		}
	}
	rep := func(r []float64, i, j int) float64 {
		c, ok := col["Y_rep."+strconv.Itoa(i+1)+"."+strconv.Itoa(j+1)]
		if !ok {
			t.Fatalf("draws.csv has no column Y_rep.%d.%d", i+1, j+1)
		}
		v := r[c]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("Y_rep.%d.%d = %v", i+1, j+1, v)
		}
		return v
	}
	cov := func(r []float64, j, k int) float64 {
		return r[col["cov."+strconv.Itoa(j+1)+"."+strconv.Itoa(k+1)]]
	}
	m := float64(n * len(r1)) // replicates per column
	const sds = 5
	for j := range dim {
		k := (j + 1) % dim
		var s, sk, ss, sjk, want, want2, wantJK, want4 float64
		for _, r := range r1 {
			for i := range n {
				v, w := rep(r, i, j), rep(r, i, k)
				s, sk, ss, sjk = s+v, sk+w, ss+v*v, sjk+v*w
			}
			want += cov(r, j, j) * n / m
			want2 += cov(r, j, j) * cov(r, j, j) * n / m
			wantJK += cov(r, j, k) * n / m
			want4 += cov(r, j, j) * cov(r, k, k) * n / m
		}
		mean, variance, c := s/m, ss/m-(s/m)*(s/m), sjk/m-(s/m)*(sk/m)
		if se := math.Sqrt(want / m); math.Abs(mean) > sds*se {
			t.Errorf("column %d: the replicates' mean %.4f, want 0 ± %.4f", j+1, mean, sds*se)
		}
		// Given the draws of q the replicates are independent normals,
		// so a square has variance 2Σ_jj² and a product Σ_jk² + Σ_jj Σ_kk
		// (averaged over the draws).
		if se := math.Sqrt(2 * want2 / m); math.Abs(variance-want) > sds*se {
			t.Errorf("column %d: the replicates' variance %.4f, the fitted covariance's diagonal %.4f ± %.4f", j+1, variance, want, sds*se)
		}
		if se := math.Sqrt((wantJK*wantJK + want4) / m); math.Abs(c-wantJK) > sds*se {
			t.Errorf("columns %d, %d: the replicates' covariance %.4f, the fitted covariance's %.4f ± %.4f", j+1, k+1, c, wantJK, sds*se)
		}
	}
}

// TestFitMvNormalReplicateNotPD: an MvNormal replicate whose covariance
// I − v v' (v = (v, v)) is positive definite only where 2v² < 1 is NaN in
// exactly the other draws, with a warning at the distribution saying why;
// the fit and the other output go on.
func TestFitMvNormalReplicateNotPD(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "np.gpp")
	src := "param v: real ~ Normal(0, 1)\noutput z ~ MvNormal(0, I(2) - outer(rep(v, 2), rep(v, 2)))\noutput w = 2 * v\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := runSafe(t, "fit", path, "--quiet", "--seed", "1", "--output-draws", "200", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "np.gpp:2:10: MvNormal draw: Sigma is not positive definite: its leading minor of order") {
		t.Errorf("stderr %q, want the positioned warning", stderr)
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(header)
	nan := 0
	for d, r := range rows {
		v := r[col["v"]]
		if math.Abs(r[col["w"]]-2*v) > 1e-5*math.Abs(v) { // as draws.csv rounds them
			t.Fatalf("draw %d: w = %v, v = %v", d, r[col["w"]], v)
		}
		if math.Abs(2*v*v-1) < 1e-4 {
			continue // on the boundary the rounding of v in draws.csv decides
		}
		bad := 2*v*v > 1
		for _, c := range []string{"z.1", "z.2"} {
			if z := r[col[c]]; math.IsNaN(z) != bad || math.IsInf(z, 0) {
				t.Fatalf("draw %d: v = %v, %s = %v", d, v, c, z)
			}
		}
		if bad {
			nan++
		}
	}
	if nan == 0 || nan == len(rows) {
		t.Errorf("%d of %d draws NaN: the test wants some of each", nan, len(rows))
	}
}
