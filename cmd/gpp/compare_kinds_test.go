package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kfoldRows writes a kfold.csv in dir (created) with the given
// per-observation elpd_kfold and k̂ (p_kfold 0.1, folds alternating), as
// writeKfoldCSV lays it out, and returns dir.
func kfoldRows(t *testing.T, dir string, elpd, k []float64) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# elpd_kfold = 0, se = 0, p_kfold = 0, folds = 2, observations = %d\n", len(elpd))
	b.WriteString("name,elpd_kfold,p_kfold,pareto_k,fold\n")
	for i := range elpd {
		fmt.Fprintf(&b, "log_lik[%d],%s,0.1,%s,%d\n", i, formatExact(elpd[i]), formatExact(k[i]), i%2+1)
	}
	writeFile(t, dir, kfoldFile, b.String())
	return dir
}

// gpp compare names the table's estimate by its inputs, as loo::loo_compare
// does: gpp kfold outputs alone are a K-fold comparison of elpd_kfold and
// p_kfold, on the console and in --csv; with a LOO fit among them the
// columns are elpd and p; fits alone stay a LOO comparison of elpd_loo.
func TestCompareKfoldNames(t *testing.T) {
	d := t.TempDir()
	a := kfoldRows(t, filepath.Join(d, "ka"), []float64{-1, -2, -1.5}, []float64{0.1, 0.2, 0.3})
	b := kfoldRows(t, filepath.Join(d, "kb"), []float64{-1.2, -2.1, -1.4}, []float64{0.1, 0.2, 0.3})
	l := looRows(t, filepath.Join(d, "l"), []float64{-1.1, -2, -1.5}, []float64{0.1, 0.1, 0.1}, []float64{0.1, 0.2, 0.3})
	l2 := looRows(t, filepath.Join(d, "l2"), []float64{-1.3, -2, -1.5}, []float64{0.1, 0.1, 0.1}, []float64{0.1, 0.2, 0.3})
	for _, c := range []struct {
		name         string
		fits         []string
		title, elpd  string
		csvHead, not string
	}{
		{"kfold", []string{a, b}, "K-fold comparison of 2 fits", "elpd_kfold", "fit,model,elpd_kfold,se,elpd_diff,se_diff,weight,p_kfold,", "elpd_loo"},
		{"mixed", []string{a, l}, "LOO and K-fold comparison of 2 fits", "elpd ", "fit,model,elpd,se,elpd_diff,se_diff,weight,p,", "elpd_loo  "},
		{"loo", []string{l, l2}, "LOO comparison of 2 fits", "elpd_loo", "fit,model,elpd_loo,se,elpd_diff,se_diff,weight,p_loo,", "elpd_kfold"},
	} {
		csvPath := filepath.Join(d, c.name+".csv")
		code, stdout, stderr := runSafe(t, append([]string{"compare", "--csv", csvPath}, c.fits...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		head := strings.SplitN(stdout, "\n", 4)
		if len(head) < 4 || !strings.HasPrefix(head[0], c.title) || !strings.Contains(head[2], " "+c.elpd) || strings.Contains(head[2], c.not) {
			t.Errorf("%s: want a table %q with a column %q, not %q:\n%s", c.name, c.title, c.elpd, c.not, stdout)
		}
		got, err := os.ReadFile(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(got), c.csvHead) {
			t.Errorf("%s: --csv's header: want %q..., got\n%s", c.name, c.csvHead, got)
		}
	}
}

// gpp compare's warning about the k̂ of a gpp sample's loo.csv gives a
// sampler's advice (moment matching, reloo, kfold), not a variational
// fit's (a mean-field q, --fullrank), which a fit's loo.csv keeps.
func TestCompareSampleAdvice(t *testing.T) {
	d := t.TempDir()
	k := []float64{0.9, 0.2, 0.3}
	s := looRows(t, filepath.Join(d, "s"), []float64{-1, -2, -1.5}, []float64{0.1, 0.1, 0.1}, k)
	writeFile(t, s, drawsFile, "# model = m.gpp\n# method = sample (Default)\nchain__,draw__,lp__,mu\n1,1,-1,0.5\n")
	f := looRows(t, filepath.Join(d, "f"), []float64{-1.1, -2, -1.5}, []float64{0.1, 0.1, 0.1}, k)
	code, _, stderr := runSafe(t, "compare", s, f)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sw, fw string
	for _, line := range strings.Split(stderr, "\n") {
		switch {
		case strings.Contains(line, "warning: "+s+":"):
			sw = line
		case strings.Contains(line, "warning: "+f+":"):
			fw = line
		}
	}
	if !strings.Contains(sw, "1 of 3 observations") || !strings.Contains(sw, "--moment-match may bring them down, and --reloo or gpp kfold") ||
		strings.Contains(sw, "mean-field") || strings.Contains(sw, "--fullrank") {
		t.Errorf("the sample's warning gives no sampler's advice: %q", sw)
	}
	if !strings.Contains(fw, "a mean-field q often flags many") {
		t.Errorf("the fit's warning lost its variational advice: %q", fw)
	}

	// a fit whose q has a joint factor (fit.json's groups, or a factor of
	// one param: --fullrank all over one param, --fullrank h --band 1, in
	// a restart too) is not told to try --fullrank all
	for _, q := range []string{
		`"groups": [{"names": ["a", "b"], "rank": 2, "params": {}}]`,
		`"factors": [{"name": "a", "family": "normal"}, {"name": "b", "family": "fullrank"}]`,
		`"factors": [{"name": "h", "family": "banded"}]`,
		`"restarts": [{"factors": [{"name": "a", "family": "lowrank"}]}]`,
	} {
		j := looRows(t, filepath.Join(d, "j"), []float64{-1.2, -2, -1.5}, []float64{0.1, 0.1, 0.1}, k)
		writeFile(t, j, fitFileName, `{"format": "gpp-fit/1", "model": "m.gpp", "method": "sgvb", "files": ["fit.json", "loo.csv"], `+q+`}`)
		code, _, stderr = runSafe(t, "compare", f, j)
		if code != 0 {
			t.Fatalf("joint %s: exit %d: %s", q, code, stderr)
		}
		var jw string
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, "warning: "+j+":") {
				jw = line
			}
		}
		if !strings.Contains(jw, "its q already has a joint factor") || strings.Contains(jw, "mean-field") || strings.Contains(jw, "--fullrank all") {
			t.Errorf("the joint fit's warning (%s): %q\n%s", q, jw, stderr)
		}
	}
}

// gpp kfold's warnings count the observations whose held-out estimate has
// k̂ above 0.7 as kfold.csv's pareto_k and gpp compare do, all of them,
// and say how many are in the folds whose q misses its posterior and how
// many of the others' observations rest on a few draws.
func TestKfoldWarningCounts(t *testing.T) {
	su := &kfoldSetup{n: 6, k: 2, fold: []int{0, 0, 0, 1, 1, 1}}
	for _, c := range []struct {
		name   string
		foldK  float64
		kI     []float64
		want   string
		absent string
	}{
		{"a fold misses", 1.2, []float64{0.9, 0.8, 0.1, 0.9, 0.2, 0.3},
			"kfold.csv's pareto_k, the k̂ of a held-out estimate's terms, is above 0.7 for 3 of 6 observations, as gpp compare counts them: 2 in the folds above, and 1 of the 3 in the others, whose held-out elpd rests on a few draws", ""},
		{"all in the fold", 1.2, []float64{0.9, 0.8, 0.1, 0.1, 0.2, 0.3},
			"kfold.csv's pareto_k, the k̂ of a held-out estimate's terms, is above 0.7 for 2 of 6 observations, as gpp compare counts them, all in the folds above", "rests on a few draws"},
		{"no fold misses", 0.3, []float64{0.9, 0.1, 0.1, 0.9, 0.2, 0.3},
			"the held-out elpd of 2 of 6 observations rests on a few draws", "kfold.csv's pareto_k"},
	} {
		res := []foldResult{{k: c.foldK}, {k: 0.3}, {k: 0.3}}
		w := strings.Join(kfoldWarnings(su, res, kfoldTotals{kI: c.kI}, 100, "gamma", "--fullrank all"), "\n")
		if !strings.Contains(w, c.want) || (c.absent != "" && strings.Contains(w, c.absent)) {
			t.Errorf("%s: warnings\n%s\nwant %q, not %q", c.name, w, c.want, c.absent)
		}
	}
}

// kfoldMetaRows is kfoldRows with a kfold.json of the model named by
// dir's base whose folds held out the groups of group ("": none).
func kfoldMetaRows(t *testing.T, dir string, elpd, k []float64, group string) string {
	t.Helper()
	kfoldRows(t, dir, elpd, k)
	g := ""
	if group != "" {
		g = `, "group": "` + group + `"`
	}
	writeFile(t, dir, kfoldMetaFile, `{"format": "`+kfoldFormat+`", "model": "`+filepath.Base(dir)+`.gpp", "data": ["d.csv"], "method": "gamma", "files": ["kfold.csv", "kfold.json"]`+g+`}`)
	return dir
}

// gpp compare gives no weights and no elpd_diff between a K-fold that
// held out whole groups (kfold.json's group) and a LOO or an ungrouped
// K-fold, which estimate another prediction task, and marks its row and
// says so; two K-folds by the same --group stay a comparison.
func TestCompareGroupedKfoldTask(t *testing.T) {
	d := t.TempDir()
	elpd := []float64{-1, -2, -1.5, -0.7}
	k := []float64{0.1, 0.2, 0.3, 0.1}
	g := kfoldMetaRows(t, filepath.Join(d, "g"), []float64{-3, -4, -3.5, -2}, k, "site")
	g2 := kfoldMetaRows(t, filepath.Join(d, "g2"), []float64{-3.2, -4.1, -3.4, -2.5}, k, "site")
	r := kfoldMetaRows(t, filepath.Join(d, "r"), []float64{-3.1, -4.2, -3.3, -2.4}, k, "region")
	plain := kfoldMetaRows(t, filepath.Join(d, "plain"), elpd, k, "")
	l := looRows(t, filepath.Join(d, "l"), []float64{-1.1, -2, -1.4, -0.8}, []float64{0.1, 0.1, 0.1, 0.1}, k)
	for _, c := range []struct {
		name  string
		fits  []string
		mixed bool
	}{
		{"grouped and LOO", []string{g, l}, true},
		{"grouped and plain K-fold", []string{plain, g}, true},
		{"other groups", []string{g, r}, true},
		{"same group", []string{g, g2}, false},
		{"plain K-fold and LOO", []string{plain, l}, false},
	} {
		code, stdout, stderr := runSafe(t, append([]string{"compare"}, c.fits...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		rows := strings.Split(stdout, "\n")[3:5]
		weight := func(row string) string { f := strings.Fields(row); return f[len(f)-3] }
		weighed := weight(rows[0]) != "-" && weight(rows[1]) != "-"
		noted := strings.Contains(stderr, "different prediction tasks")
		marked := strings.Contains(stdout, " # ")
		if c.mixed && (weighed || !noted || !marked || !strings.Contains(rows[1], "      -        -")) {
			t.Errorf("%s: want no weights nor elpd_diff across tasks, a # row and a note:\n%s\n%s", c.name, stdout, stderr)
		}
		if !c.mixed && (!weighed || noted || marked) {
			t.Errorf("%s: one task: want weights and no task note:\n%s\n%s", c.name, stdout, stderr)
		}
	}
}
