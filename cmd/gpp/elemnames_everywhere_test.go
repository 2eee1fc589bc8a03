package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestElemNamesEverywhere: one element has one name in every output of a
// run whose data labelled an axis: gpp logprob's header, gpp diagnose's
// table, gpp sensitivity's table and --csv, gpp sbc's table and
// ranks.csv, gpp summary --params (which
// takes the labelled name, the 0-based index and the CSV column of it as
// one row) and gpp summary --plots's panels name a[0] a[AITKIN], as the
// fit's table does; none prints a[0].
func TestElemNamesEverywhere(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelNamesModel)
	named, _ := labelsData(t, d, labelNamesCounties)
	out := filepath.Join(d, "fit")
	if code, _, stderr := runSafe(t, "fit", model, named, "--quiet", "--iter", "200", "--output-draws", "40", "--out", out); code != 0 {
		t.Fatalf("gpp fit: exit %d: %s", code, stderr)
	}
	byIndex := regexp.MustCompile(`\ba\[\d\]`)
	check := func(what, text string, wants ...string) {
		t.Helper()
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q in\n%s", what, want, text)
			}
		}
		if m := byIndex.FindString(text); m != "" {
			t.Errorf("%s names an element by index, %s, where the fit names it by label:\n%s", what, m, text)
		}
	}
	_, stdout, _ := runSafe(t, "logprob", model, named, "--params", filepath.Join(out, drawsFile))
	check("gpp logprob's header", stdout, "# g_4: a[AITKIN]\n", `# g_7: a["ST. LOUIS, MN"]`+"\n", "# g_9: b[AITKIN, 0]\n", "# g_2: log tau\n")
	_, stdout, _ = runSafe(t, "diagnose", model, named, "--points", "1")
	check("gpp diagnose", stdout, "a[AITKIN] ", "b[YELLOW MEDICINE, 1] ", `b["ST. LOUIS, MN", 0] `)
	sensCSV := filepath.Join(d, "sens.csv")
	_, stdout, _ = runSafe(t, "sensitivity", out, "--draws", "50", "--csv", sensCSV)
	check("gpp sensitivity", stdout, "a[AITKIN] ")
	check("gpp sensitivity --csv", readFile(t, sensCSV), "\na[AITKIN],")
	code, stdout, stderr := runSafe(t, "summary", out, "--params", "a[AITKIN],a[0],a.1, a[ 0 ],b[ANOKA, 1],b.2.2")
	if rows := strings.Count(stdout, "a[AITKIN] ") + strings.Count(stdout, "b[ANOKA, 1] "); code != 0 || rows != 2 {
		t.Errorf("gpp summary --params of a[0] named four ways and b[1, 1] two: exit %d, %d rows:\n%s%s", code, rows, stdout, stderr)
	}
	sbcOut := filepath.Join(d, "sbc")
	_, stdout, _ = runSafe(t, "sbc", model, named, "--sims", "2", "--iter", "200", "--output-draws", "19", "--quiet", "--out", sbcOut)
	check("gpp sbc", stdout, "a[AITKIN] ")
	check("gpp sbc's ranks.csv", readFile(t, filepath.Join(sbcOut, sbcRanksFile)), ",a[AITKIN],")
	// --plots's panels: summaryPlotDraws keeps the saved labels
	f, err := readDrawsFile(filepath.Join(out, drawsFile), []byte(readFile(t, filepath.Join(out, drawsFile))))
	if err != nil {
		t.Fatal(err)
	}
	sd, err := pooledDraws([]*drawsFileData{f})
	if err != nil {
		t.Fatal(err)
	}
	setSavedAxes(sd.ds.vars, axesBeside([]*drawsFileData{f}))
	rows, err := pickRows(sd.ds.vars, elemRows(sd.ds.vars), []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	var panels []string
	for _, e := range traceElements(summaryPlotDraws(sd, rows, false)) {
		panels = append(panels, e.name)
	}
	if !slices.Contains(panels, "a[AITKIN]") {
		t.Errorf("gpp summary --plots's panels %q; want a[AITKIN]", panels)
	}
}

// TestReplLabelNames: after a :fit on labelled data, :show and a query of
// a bare name print a labelled axis's elements by label, as the fit's
// table does, with a note saying a query indexes them from 0; a query
// that indexes by a label (a[AITKIN], not a name of the model) is told the
// element's index.
func TestReplLabelNames(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelNamesModel)
	named, _ := labelsData(t, d, labelNamesCounties)
	var out, errb bytes.Buffer
	in := ":fit --quiet --iter 200\n:show a\na\na[BECKER]\nmean(a[BECKER] + 1)\nb[BECKER, 1]\n"
	run([]string{"repl", "--history", "-", model, named}, strings.NewReader(in), &out, &errb)
	o, e := out.String(), errb.String()
	show := o[strings.Index(o, ">>> :show a"):strings.Index(o, ">>> a\n")]
	if !strings.Contains(show, "a[AITKIN]  ") || !strings.Contains(show, "a query indexes them from 0: a[AITKIN] is a[0]") || strings.Contains(show, "a[0] ") {
		t.Errorf(":show a:\n%s\nwant a[AITKIN] and the note", show)
	}
	query := o[strings.Index(o, ">>> a\n"):]
	if !strings.Contains(query, `a["ST. LOUIS, MN"]  `) || !strings.Contains(query, "a[AITKIN] is a[0]") {
		t.Errorf("the query a:\n%s\nwant the labels and the note", query)
	}
	if want := "`BECKER` is the tables' label of index 2 on axis 0 of `a`; a query indexes by the language's 0-based indices: `a[2]`"; strings.Count(e, want) != 2 {
		t.Errorf("stderr:\n%s\nwant twice %q", e, want)
	}
	if want := "a query indexes by the language's 0-based indices: `b[2, 1]`"; !strings.Contains(e, want) { // the other index kept
		t.Errorf("stderr:\n%s\nwant %q", e, want)
	}
}

// TestHeatmapTicks: the heat maps' axes are marked by the 0-based indices
// the tables name elements by, or by the axis's labels.
func TestHeatmapTicks(t *testing.T) {
	labels := func(tk indexTicks) []string {
		var out []string
		for _, x := range tk.Ticks(0, 0) {
			if x.Label != "" {
				out = append(out, x.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		tk   indexTicks
		want []string
	}{
		{indexTicks{n: 3}, []string{"0", "1", "2"}},
		{indexTicks{n: 2, labels: []string{"AITKIN", "A, B"}}, []string{"AITKIN", `"A, B"`}},
		{indexTicks{n: 40}, []string{"0", "5", "10", "15", "20", "25", "30", "35"}},
	} {
		if got := labels(c.tk); !slices.Equal(got, c.want) {
			t.Errorf("ticks of %d (labels %q): %q, want %q", c.tk.n, c.tk.labels, got, c.want)
		}
	}
}

// TestSummaryPlotsStanNames: gpp summary --plots of a CmdStan CSV names
// its panels by Stan's 1-based names, as its table does.
func TestSummaryPlotsStanNames(t *testing.T) {
	f, err := readDrawsFile("draws.csv", []byte("lp__,accept_stat__,mu,beta.1,beta.2\n-1,0.9,0.1,0.2,0.3\n-2,0.9,0.2,0.1,0.4\n"))
	if err != nil {
		t.Fatal(err)
	}
	sd, err := pooledDraws([]*drawsFileData{f})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pickRows(sd.ds.vars, elemRows(sd.ds.vars), []string{"beta"})
	if err != nil {
		t.Fatal(err)
	}
	var panels []string
	for _, e := range traceElements(summaryPlotDraws(sd, rows, false)) {
		panels = append(panels, e.name)
	}
	if want := []string{"beta[1]", "beta[2]"}; !slices.Equal(panels, want) {
		t.Errorf("panels %q, want %q", panels, want)
	}
}
