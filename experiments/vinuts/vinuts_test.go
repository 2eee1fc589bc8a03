package vinuts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestQuick runs the quick experiment (examples/regression.gpp, whose two
// slopes' predictors are correlated) and checks what it must show: the
// mean-field q is too narrow for the slopes (sd ratio below 0.9, the known
// under-dispersion of a factorised q on a correlated posterior) while the
// full-rank q matches NUTS's sds (within 0.1) and both means agree with
// NUTS's (|z| ≤ 0.2); NUTS itself is healthy there; and the files hold
// what they say.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gpp and runs NUTS")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build gpp")
	}
	out := t.TempDir()
	const reading = "\n\nThe reading, by hand.\n"
	if err := os.WriteFile(filepath.Join(out, MarkdownFile), []byte("an old table\n"+ReadingMarker+reading), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Out: out, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows, want regression's mean-field and full-rank fits", len(rep.Rows))
	}
	slopes := map[string][]float64{}
	for _, e := range rep.Elems {
		if !e.Param {
			continue
		}
		if math.Abs(e.Z) > 0.2 {
			t.Errorf("%s %s: z = %.3f, want |z| ≤ 0.2", e.Fit, e.Name, e.Z)
		}
		if strings.HasPrefix(e.Name, "beta[") {
			slopes[e.Fit] = append(slopes[e.Fit], e.SDRatio)
		}
	}
	for _, r := range slopes[meanField.Label] {
		if !(r < 0.9) {
			t.Errorf("mean-field slope sd ratio %.3f, want < 0.9 (a factorised q on correlated slopes)", r)
		}
	}
	for _, r := range slopes["--fullrank all"] {
		if !(math.Abs(r-1) < 0.1) {
			t.Errorf("full-rank slope sd ratio %.3f, want within 0.1 of 1", r)
		}
	}
	if len(slopes[meanField.Label]) != 2 || len(slopes["--fullrank all"]) != 2 {
		t.Errorf("slopes compared: %v, want beta[1] and beta[2] in both fits", slopes)
	}
	for _, row := range rep.Rows {
		if row.Err != "" {
			t.Fatalf("%s: %s", row.Fit, row.Err)
		}
		if row.Elements != 4 || row.Divergences != 0 || !(row.MaxRhat < 1.02) || !(row.MinESS > 100) {
			t.Errorf("%s: %d elements, %d divergences, max R̂ %.3f, min ESS %.0f; want alpha, beta[1], beta[2], sigma and a healthy sampler",
				row.Fit, row.Elements, row.Divergences, row.MaxRhat, row.MinESS)
		}
	}

	models := readAll(t, filepath.Join(out, ModelsFile))
	if !slices.Equal(models[0], ModelsHeader) || len(models) != 3 {
		t.Errorf("%s: header %v and %d rows", ModelsFile, models[0], len(models)-1)
	}
	elems := readAll(t, filepath.Join(out, ElementsFile))
	if !slices.Equal(elems[0], ElementsHeader) || len(elems)-1 != len(rep.Elems) {
		t.Errorf("%s: header %v and %d rows, want %d", ElementsFile, elems[0], len(elems)-1, len(rep.Elems))
	}
	for _, f := range []string{PlotFile, MarkdownFile} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, MarkdownFile))
	if !strings.Contains(string(md), "| regression | --fullrank all | 4 |") || !strings.Contains(string(md), "quick smoke run") {
		t.Errorf("%s lacks the full-rank row or the smoke-run mark:\n%s", MarkdownFile, md)
	}
	if !strings.HasSuffix(string(md), ReadingMarker+reading) || strings.Contains(string(md), "an old table") {
		t.Errorf("%s: the run did not replace the table and keep the hand-written reading:\n%s", MarkdownFile, md)
	}
}

// readAll reads the CSV file at path, failing t if it has no records.
func readAll(t *testing.T, path string) [][]string {
	t.Helper()
	recs := reftest.ReadCSV(t, path)
	if len(recs) == 0 {
		t.Fatalf("%s: no records", path)
	}
	return recs
}

// TestSummarise checks the per-model statistics on hand-made elements:
// outputs and non-finite elements are left out, the share, medians and
// extremes are over the rest.
func TestSummarise(t *testing.T) {
	elems := []Elem{
		{Name: "a", Param: true, Z: 0.05, SDRatio: 1.0, Rhat: 1.001, ESSMin: 900},
		{Name: "b", Param: true, Z: -0.3, SDRatio: 0.5, Rhat: 1.02, ESSMin: 300},
		{Name: "c", Param: true, Z: 0.1, SDRatio: 0.8, Rhat: 1.0, ESSMin: 500},
		{Name: "d", Param: true, Z: math.NaN(), SDRatio: math.NaN(), Rhat: 2, ESSMin: 1},
		{Name: "y_rep", Param: false, Z: 5, SDRatio: 0.01, Rhat: 3, ESSMin: 1},
	}
	var row Row
	summarise(&row, elems)
	want := Row{Elements: 3, Within: 2.0 / 3, MedianAbsZ: 0.1, WorstAbsZ: 0.3, WorstName: "b",
		MedianRatio: 0.8, MinRatio: 0.5, MinRatioName: "b", MaxRhat: 1.02, MinESS: 300}
	if row != want {
		t.Errorf("summarise = %+v, want %+v", row, want)
	}
}

// fakeGPP stands in for the gpp binary: `fit` writes a summary of two
// params (a and b); `sample` fails or stalls from the default start when
// told to, else writes the comparison, the summary and two draws (one
// divergent). It records every run's arguments.
type fakeGPP struct {
	calls [][]string
	// stall: the default start blocks until the time-out; fail: it
	// fails; stuck: its chain 2 stays below chain 1's lp__; initFails:
	// --init fails too.
	stall, fail, stuck, initFails bool
}

// flag returns the value after name in args ("" if absent).
func flag(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

func (g *fakeGPP) run(ctx context.Context, args []string) (float64, error) {
	g.calls = append(g.calls, slices.Clone(args))
	out := flag(args, "--out")
	files := map[string]string{}
	switch args[0] {
	case "fit":
		files["summary.csv"] = "name,family\na,normal\nb,gamma\ny_rep,output\n"
	case "sample":
		init := flag(args, "--init")
		switch {
		case init == "" && g.stall:
			<-ctx.Done()
			return 0, ctx.Err()
		case init == "" && g.fail, init != "" && g.initFails:
			return 0, errors.New("exit status 1\nno finite start")
		}
		files["against.csv"] = "name,q_mean,q_sd,mean,sd,z,sd_ratio,reading\na,0.05,1,0,1,0.05,1,\nb,1.3,0.4,1,1,0.3,0.4,\ny_rep,0,1,0,1,0,1,\n"
		files["summary.csv"] = "name,rhat,ess_bulk,ess_tail\na,1.001,900,800\nb,1.02,300,400\ny_rep,1,1000,1000\n"
		var d strings.Builder
		d.WriteString("chain__,draw__,lp__,divergent__,a,b\n")
		for c := 1; c <= 2; c++ {
			for i := range stuckMinDraws {
				lp := -1 - float64(i)/10 - float64(c)/100 // the chains' lp__ interleave
				if c == 2 && init == "" && g.stuck {
					lp -= 100
				}
				fmt.Fprintf(&d, "%d,%d,%g,%d,0,1\n", c, i+1, lp, map[bool]int{true: 1}[c == 1 && i == 0])
			}
		}
		files["draws.csv"] = d.String()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			return 0, err
		}
	}
	return 1.5, nil
}

// TestRetryFromFit checks the retry from a fit with a fake gpp: where
// NUTS from the default start stalls past the time-out or fails, the
// case is sampled again with --init the richer fit (fitted once, before
// its own row when the mean-field row needs it) and --against each row's
// fit (so too where a chain of the default start was stuck below the
// others' lp__); both rows are marked and the table and the CSV say so; a model
// whose default start works is sampled from it; a retry that fails too
// leaves both errors in the row.
func TestRetryFromFit(t *testing.T) {
	fits := []Fit{meanField, fullrank("--fullrank", "all")}
	for _, tc := range []struct {
		name                  string
		g                     fakeGPP
		wantInit, wantDefault string
		wantErr               string
		wantSamples           int
	}{
		{"stall", fakeGPP{stall: true}, "--fullrank all", "NUTS failed: gpp sample did not finish in 1ms", "", 3},
		{"fail", fakeGPP{fail: true}, "--fullrank all", "NUTS failed: exit status 1", "", 3},
		{"stuck", fakeGPP{stuck: true}, "--fullrank all", "NUTS stuck: chain 2's lp__ never reached the other chains' (at most -101, theirs at least -2.91)", "", 3},
		{"default works", fakeGPP{}, "", "", "", 2},
		{"both fail", fakeGPP{fail: true, initFails: true}, "--fullrank all", "NUTS failed: exit status 1", "from the --fullrank all fit; from the default start", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			out := t.TempDir()
			c := Case{Name: "m", Model: "m.gpp", Data: []string{"m.csv"}, Fits: fits, Chains: 4, Warmup: 10, Draws: 10}
			rep, err := Run(context.Background(), Options{Out: out, Root: t.TempDir(), Cases: []Case{c}, SampleTimeout: time.Millisecond, run: g.run})
			if err != nil {
				t.Fatal(err)
			}
			var fitsRun, samples []string
			var initDir string
			for _, a := range g.calls {
				if a[0] == "fit" {
					fitsRun = append(fitsRun, strings.Join(a[len(a)-len(flagsOf(a)):], " "))
					if slices.Contains(a, "--fullrank") {
						initDir = flag(a, "--out")
					}
					continue
				}
				samples = append(samples, flag(a, "--init"))
			}
			if len(fitsRun) != 2 {
				t.Errorf("fits run: %q, want each fit once", fitsRun)
			}
			if len(samples) != tc.wantSamples {
				t.Fatalf("%d runs of gpp sample (--init %q), want %d", len(samples), samples, tc.wantSamples)
			}
			if samples[0] != "" {
				t.Errorf("the first sample started from %q, want the default start", samples[0])
			}
			for i, s := range samples[1:] {
				if want := map[bool]string{true: initDir, false: ""}[tc.wantInit != ""]; s != want {
					t.Errorf("sample %d: --init %q, want %q", i+2, s, want)
				}
			}
			// Each sample is compared with its own row's fit.
			var against []string
			for _, a := range g.calls {
				if a[0] == "sample" {
					against = append(against, flag(a, "--against"))
				}
			}
			if tc.wantSamples == 3 && (against[1] == initDir || against[2] != initDir) {
				t.Errorf("--against %q, want the mean-field fit, then the full-rank one (%s)", against, initDir)
			}
			if len(rep.Rows) != 2 {
				t.Fatalf("%d rows", len(rep.Rows))
			}
			for _, row := range rep.Rows {
				if row.Init != tc.wantInit || !strings.HasPrefix(row.DefaultErr, tc.wantDefault) || (tc.wantDefault == "") != (row.DefaultErr == "") {
					t.Errorf("%s: Init %q, DefaultErr %q; want %q, %q…", row.Fit, row.Init, row.DefaultErr, tc.wantInit, tc.wantDefault)
				}
				if tc.wantErr == "" && (row.Err != "" || row.Elements != 2 || row.Divergences != 1 || row.MaxRhat != 1.02) {
					t.Errorf("%s: %+v, want a's and b's comparison from the fake's draws", row.Fit, row)
				}
				if tc.wantErr != "" && !strings.Contains(row.Err, tc.wantErr) {
					t.Errorf("%s: Err %q, want it to contain %q", row.Fit, row.Err, tc.wantErr)
				}
			}
			md, err := os.ReadFile(filepath.Join(out, MarkdownFile))
			if err != nil {
				t.Fatal(err)
			}
			marked := strings.Count(string(md), initMark)
			note := strings.Contains(string(md), "† *m*: from the default start, "+tc.wantDefault)
			if tc.wantInit != "" && (marked != 2 || !note || !strings.Contains(string(md), "Started from a fit: m (from the `--fullrank all` fit)")) {
				t.Errorf("table: %d rows marked %q, note %v, want 2 and a note:\n%s", marked, initMark, note, md)
			}
			if tc.wantInit == "" && (marked != 0 || note || !strings.Contains(string(md), "Every model here was sampled from the default start.")) {
				t.Errorf("table marks a default start as from a fit:\n%s", md)
			}
			models := readAll(t, filepath.Join(out, ModelsFile))
			col := slices.Index(models[0], "nuts_init")
			for _, rec := range models[1:] {
				if rec[col] != tc.wantInit {
					t.Errorf("%s: nuts_init %q, want %q", ModelsFile, rec[col], tc.wantInit)
				}
			}
		})
	}
}

// flagsOf returns the fit flags at the end of a fake `gpp fit` call
// (those after --out DIR).
func flagsOf(args []string) []string {
	i := slices.Index(args, "--out")
	return args[i+2:]
}

// TestInitNoteAfterFailedFit: the † note of a case started from a fit is
// written though the case's first row, whose fit failed, has no Init.
func TestInitNoteAfterFailedFit(t *testing.T) {
	r := &Report{Rows: []Row{
		{Case: "m", Fit: meanField.Label, Err: "exit status 1"},
		{Case: "m", Fit: "--fullrank all", Init: "--fullrank all", DefaultErr: "NUTS failed: exit status 1", Chains: 4},
	}}
	if md := r.markdown(); !strings.Contains(md, "† *m*: from the default start, NUTS failed: exit status 1;") {
		t.Errorf("no † note for m:\n%s", md)
	}
}
