package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLogprobLabels: gpp logprob of a fit's or a sample's draws.csv codes
// a column of names as the run coded it (fit.json's levels, coords.csv's
// "# levels" lines), not afresh: a few of the counties in another order
// give, bit for bit, the rows of their run codes given as numbers to the
// model with const J = 5. The same draws away from their run (no fit.json
// or coords.csv beside them) are coded afresh, J = 3, and give other
// numbers; a county the run did not see is an error at its cell, alone.
func TestLogprobLabels(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelNamesModel)
	constJ := writeFile(t, d, "mc.gpp", strings.Replace(labelNamesModel, "data J: int\n", "const J = 5\n", 1))
	named, _ := labelsData(t, d, labelsCounties)
	// BELTRAMI, AITKIN, YELLOW MEDICINE are 1, 0, 2 afresh; the run's 3, 0, 4
	sub := writeFile(t, d, "sub.csv", "county,y\nBELTRAMI,0.5\nAITKIN,-0.2\nBELTRAMI,1.1\n\"YELLOW MEDICINE\",0.9\n")
	subCodes := writeFile(t, d, "sub_codes.csv", "county,y\n3,0.5\n0,-0.2\n3,1.1\n4,0.9\n")
	cass := writeFile(t, d, "cass.csv", "county,y\nANOKA,1\nCASS,2\n")
	runs := []struct {
		name string
		args []string
	}{
		{"fit", []string{"fit", model, named, "--quiet", "--iter", "200", "--output-draws", "8"}},
		{"sample", []string{"sample", model, named, "--quiet", "--chains", "1", "--warmup", "60", "--draws", "8"}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			out := filepath.Join(d, r.name)
			if code, _, stderr := runSafe(t, append(r.args, "--out", out)...); code != 0 {
				t.Fatalf("gpp %s: exit %d: %s", r.name, code, stderr)
			}
			runDraws := filepath.Join(out, drawsFile)
			loose := writeFile(t, d, r.name+"-draws.csv", readFile(t, runDraws)) // no run beside it
			logprob := func(model, data, params string) (string, string) {
				t.Helper()
				code, stdout, stderr := runSafe(t, "logprob", model, data, "--params", params)
				if code != 0 {
					t.Fatalf("gpp logprob %s %s --params %s: exit %d: %s", model, data, params, code, stderr)
				}
				return draws(stdout), stderr // no comment lines: they name the files
			}
			got, stderr := logprob(model, sub, runDraws)
			if note := `column "county": 3 labels coded as the fit coded its 5 (AITKIN 0, BELTRAMI 3, YELLOW MEDICINE 4); J = 5 from the fit's count`; !strings.Contains(stderr, note) {
				t.Errorf("stderr:\n%s\nwant the note %q", stderr, note)
			}
			want, _ := logprob(constJ, subCodes, loose)
			if got != want {
				t.Errorf("logprob of the run's draws on names:\n%s\nwant the codes':\n%s", got, want)
			}
			if afresh, _ := logprob(model, sub, loose); afresh == want {
				t.Errorf("the draws away from their run, coded afresh (J = 3), give the run's codes' rows:\n%s", afresh)
			}
			code, stdout, stderr := runSafe(t, "logprob", model, cass, "--params", runDraws)
			if want := `cass.csv:3:1: column "county": label "CASS" is not one the fit coded ` + "`county`"; code != 1 || stdout != "" || !strings.Contains(stderr, want) || strings.Contains(stderr, "no data for `J`") {
				t.Errorf("an unseen county: exit %d, stdout %q, stderr:\n%s\nwant 1, nothing written and only %q", code, stdout, stderr, want)
			}
			// numbers where the run had names: codes that need not be its
			code, _, stderr = runSafe(t, "logprob", constJ, subCodes, "--params", runDraws)
			if want := `sub_codes.csv:2:1: county: 3 is a number, but the fit coded ` + "`county`" + ` from labels`; code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("numbers against the run's names: exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, want)
			}
		})
	}
}

// TestSensitivityLabels: gpp sensitivity evaluates a run's draws on the
// run's own data (other data are an error: fit.json's data_sha256, a
// sample's draws.csv file_sha256), and codes its column of names by the
// run's recorded coding, as gpp logprob and gpp predict do: the note says
// so.
func TestSensitivityLabels(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", labelNamesModel)
	named, _ := labelsData(t, d, labelsCounties)
	sub := writeFile(t, d, "sub.csv", "county,y\nBELTRAMI,0.5\nAITKIN,-0.2\n")
	out := filepath.Join(d, "fit")
	if code, _, stderr := runSafe(t, "fit", model, named, "--quiet", "--iter", "200", "--output-draws", "8", "--out", out); code != 0 {
		t.Fatalf("gpp fit: exit %d: %s", code, stderr)
	}
	code, _, stderr := runSafe(t, "sensitivity", out, "--draws", "50")
	if note := `column "county": 5 labels coded as the fit coded its 5`; code != 0 || !strings.Contains(stderr, note) {
		t.Errorf("gpp sensitivity: exit %d, stderr:\n%s\nwant 0 and the note %q", code, stderr, note)
	}
	code, _, stderr = runSafe(t, "sensitivity", out, model, sub, "--draws", "50")
	if want := "the fit read data of other contents"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("gpp sensitivity on other data: exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, want)
	}
}

// TestReadCoordsHeader: gpp logprob reads only a coords.csv's leading
// comment lines for its codings, not its rows (which it never checks, so
// rows that are no draws do not matter), and an error in those lines is
// positioned, its line in the source kept.
func TestReadCoordsHeader(t *testing.T) {
	d := t.TempDir()
	head := "# model = m.gpp\n# param mu = real\n# levels county = {\"column\":\"county\",\"first\":0,\"labels\":[\"AITKIN\",\"ANOKA\"]}\n"
	path := writeFile(t, d, coordsFile, head+"chain__,draw__,mu.1\n1,1,not a number\n")
	sc, err := readCoordsHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(sc.src) != head || sc.model != "m.gpp" || sc.types["mu"] != "real" || !slices.Equal(sc.levels["county"].Labels, []string{"AITKIN", "ANOKA"}) {
		t.Errorf("src %q, model %q, types %v, levels %+v: want the header's alone", sc.src, sc.model, sc.types, sc.levels)
	}
	bad := writeFile(t, d, "bad.csv", "# model = m.gpp\n# levels county = [1]\nchain__,draw__\n")
	sc, err = readCoordsHeader(bad)
	if want := "bad.csv:2:1: a levels line"; err == nil || !strings.Contains(err.Error(), want) || sc == nil || !strings.Contains(string(sc.src), "# levels county") {
		t.Errorf("a bad levels line: %v (sc %v), want %q with its source", err, sc, want)
	}
}
