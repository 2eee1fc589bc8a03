package main

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/model"
)

// TestModelFitSettings checks that the model package's FitSettings are
// gpp fit's defaults: a fit with them gives the q that gpp fit's parsed
// settings give, bit for bit, for each --family (--iter set in both, to
// keep it short).
func TestModelFitSettings(t *testing.T) {
	const path, data = "../../examples/regression.gpp", "../../examples/wine_std.csv"
	for _, c := range []struct {
		family string
		method sgvb.Method
		iter   string
	}{{"gamma", sgvb.SGVB, "300"}, {"map", sgvb.MAP, ""}, {"laplace", sgvb.Laplace, ""}} {
		args := []string{path, data, "--family", c.family}
		if c.iter != "" {
			args = append(args, "--iter", c.iter)
		}
		cfg, _, ok := parseFitArgs(args, io.Discard, io.Discard)
		if !ok {
			t.Fatalf("gpp fit %v: not parsed", args)
		}
		l, err := pipeline.Load(path, []string{data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), cfg.settings)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.Load(path, model.DataFiles(data))
		if err != nil {
			t.Fatal(err)
		}
		s := model.FitSettings()
		s.Method = c.method
		if c.iter != "" {
			s.MaxIter = 300
		}
		got, err := m.Fit(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Mean(), want.Mean()) || !slices.Equal(got.SD(), want.SD()) || got.ELBO != want.ELBO || got.Iterations != want.Iterations {
			t.Errorf("--family %s: model.Fit mean %v sd %v ELBO %v (%d iterations), gpp fit's %v %v %v (%d)", c.family,
				got.Mean(), got.SD(), got.ELBO, got.Iterations, want.Mean(), want.SD(), want.ELBO, want.Iterations)
		}
	}
}

// TestModelSampleSettings checks that the model package's SampleSettings
// are gpp sample's defaults: the chains they give are those of gpp
// sample's parsed settings, bit for bit (--warmup and --draws set in both,
// to keep it short).
func TestModelSampleSettings(t *testing.T) {
	const path, data = "../../examples/regression.gpp", "../../examples/wine_std.csv"
	sc, _, ok := parseSampleArgs([]string{path, data, "--warmup", "40", "--draws", "10"}, io.Discard, io.Discard)
	if !ok {
		t.Fatal("gpp sample: not parsed")
	}
	m, err := model.Load(path, model.DataFiles(data))
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Sample(context.Background(), sc.nuts)
	if err != nil {
		t.Fatal(err)
	}
	s := model.SampleSettings()
	s.Warmup, s.Draws = 40, 10
	got, err := m.Sample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Chains) != len(want.Chains) {
		t.Fatalf("%d chains, gpp sample's %d", len(got.Chains), len(want.Chains))
	}
	for c := range got.Chains {
		if !slices.Equal(got.Chains[c].Draws, want.Chains[c].Draws) {
			t.Errorf("chain %d differs from gpp sample's", c+1)
		}
	}
}
