package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/model"
)

// TestModelInitsMatchCLI checks the model package's Inits and InitRadius
// against gpp sample --init FILE.json and --init-radius, and Fit's Inits
// against gpp fit --init FILE.json, run in-process with the same values
// in a JSON file: the chains' draws are coords.csv's bit for bit (the
// regression's Target coordinates are its unconstrained ones), and q is
// fit.json's. A second Fit without inits is a fresh Model's: Fit does not
// leave its inits in the Model.
func TestModelInitsMatchCLI(t *testing.T) {
	const path, data = "../../examples/regression.gpp", "../../examples/wine_std.csv"
	for _, c := range []struct {
		name   string
		json   string
		values map[string]any
		radius string // --init-radius; "" for none
	}{
		{"some", `{"sigma": 0.5, "alpha": 0.3}`, map[string]any{"sigma": 0.5, "alpha": 0.3}, ""},
		{"some radius 0", `{"beta": [0.1, -0.2]}`, map[string]any{"beta": []float64{0.1, -0.2}}, "0"},
		{"all radius 0.5", `{"alpha": -0.1, "beta": [0.25, 0.5], "sigma": 2}`, map[string]any{"alpha": -0.1, "beta": []float32{0.25, 0.5}, "sigma": 2}, "0.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "inits.json")
			if err := os.WriteFile(file, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(path, model.DataFiles(data))
			if err != nil {
				t.Fatal(err)
			}

			// gpp sample
			s := model.SampleSettings()
			s.Warmup, s.Draws = 30, 10
			opts := []model.StartOption{model.Inits(c.values)}
			args := []string{"sample", path, data, "--init", file, "--warmup", "30", "--draws", "10", "--quiet", "--out", filepath.Join(dir, "s")}
			if c.radius != "" {
				var r float64
				if c.radius == "0.5" {
					r = 0.5
				}
				opts = append(opts, model.InitRadius(r))
				args = append(args, "--init-radius", c.radius)
			}
			res, err := m.Sample(context.Background(), s, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]float64 // the draws' coordinates, chain by chain
			for _, ch := range res.Chains {
				for d := range ch.Draws[:len(ch.Draws)/res.Dim] {
					got = append(got, ch.Draws[d*res.Dim:(d+1)*res.Dim])
				}
			}
			if code, _, stderr := runSafe(t, args...); code != 0 {
				t.Fatalf("gpp sample: exit %d\n%s", code, stderr)
			}
			_, header, rows := readStanCSV(t, filepath.Join(dir, "s", coordsFile))
			if want := []string{"chain__", "draw__", "alpha.1", "beta.1", "beta.2", "sigma.1"}; !slices.Equal(header, want) {
				t.Fatalf("coords.csv's header %v, want %v", header, want)
			}
			if len(rows) != len(got) {
				t.Fatalf("%d draws, gpp sample's %d", len(got), len(rows))
			}
			for d, row := range got {
				if !slices.Equal(row, rows[d][2:]) {
					t.Fatalf("draw %d is %v, gpp sample --init's %v", d+1, row, rows[d][2:])
				}
			}

			// gpp fit
			fs := model.FitSettings()
			fs.MaxIter = 300
			r, err := m.Fit(context.Background(), fs, model.Inits(c.values))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "f")
			if code, _, stderr := runSafe(t, "fit", path, data, "--init", file, "--iter", "300", "--quiet", "--out", out); code != 0 {
				t.Fatalf("gpp fit: exit %d\n%s", code, stderr)
			}
			want := readFitQ(t, out, path)
			if !slices.Equal(r.Mean(), want.Mean()) || !slices.Equal(r.SD(), want.SD()) {
				t.Errorf("Fit with Inits: mean %v sd %v; gpp fit --init's %v %v", r.Mean(), r.SD(), want.Mean(), want.SD())
			}
			plain, err := m.Fit(context.Background(), fs)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := model.Load(path, model.DataFiles(data))
			if err != nil {
				t.Fatal(err)
			}
			wantPlain, err := fresh.Fit(context.Background(), fs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(plain.Mean(), wantPlain.Mean()) || !slices.Equal(plain.SD(), wantPlain.SD()) {
				t.Errorf("Fit after a Fit with Inits: mean %v sd %v; a fresh Model's %v %v", plain.Mean(), plain.SD(), wantPlain.Mean(), wantPlain.SD())
			}
			if slices.Equal(plain.Mean(), r.Mean()) {
				t.Errorf("Fit with Inits and without: the same q %v", r.Mean())
			}
		})
	}
}

// readFitQ reads the q of the fit.json that gpp fit wrote into out.
func readFitQ(t *testing.T, out, path string) *sgvb.Result {
	t.Helper()
	fitPath := filepath.Join(out, fitFileName)
	src, err := os.ReadFile(fitPath)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := fitfile.Read(fitPath, src)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := initModel(t) // the regression's
	r, _, err := fitQ(ff, fitPath, src, setFlags{}, path, l.Model, initNeeds)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
