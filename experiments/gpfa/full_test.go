package gpfa

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestFullRun runs the full experiments when GPFA_OUT names an output
// directory (e.g. GPFA_OUT=$PWD/../../docs/results go test -run FullRun
// -timeout 0 ./experiments/gpfa/). GPFA_RUN selects "synthetic", "cytof" or
// both (default); GPFA_NS, GPFA_SEEDS, GPFA_ITERS, GPFA_METHODS,
// GPFA_PARALLEL, GPFA_RESTARTS, GPFA_DRAWS, GPFA_STEP and GPFA_GAMMA_PARAM
// override Options.
func TestFullRun(t *testing.T) {
	out := os.Getenv("GPFA_OUT")
	if out == "" {
		t.Skip("set GPFA_OUT to run the full GPFA experiments")
	}
	o := Options{Out: out, Log: os.Stderr}
	if s := os.Getenv("GPFA_NS"); s != "" {
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			o.Ns = append(o.Ns, n)
		}
	}
	atoi := func(k string) int {
		v, _ := strconv.Atoi(os.Getenv(k))
		return v
	}
	o.Seeds, o.Iterations, o.Parallel, o.Restarts, o.DrawsPerStep, o.K = atoi("GPFA_SEEDS"), atoi("GPFA_ITERS"), atoi("GPFA_PARALLEL"), atoi("GPFA_RESTARTS"), atoi("GPFA_DRAWS"), atoi("GPFA_K")
	o.StepSize, _ = strconv.ParseFloat(os.Getenv("GPFA_STEP"), 64)
	if s := os.Getenv("GPFA_METHODS"); s != "" {
		o.Methods = strings.Split(s, ",")
	}
	o.Standardize = os.Getenv("GPFA_STD") != ""
	if s := os.Getenv("GPFA_GAMMA_PARAM"); s != "" {
		gp, err := sgvb.ParseGammaParam(s)
		if err != nil {
			t.Fatal(err)
		}
		o.GammaParam = gp
	}
	run := os.Getenv("GPFA_RUN")
	if run == "" || run == "synthetic" {
		rep, err := RunSynthetic(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("synthetic: goals met %v; %v", rep.GoalsMet, rep.Files)
	}
	if run == "" || run == "cytof" {
		rep, err := RunCyTOF(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("cytof: goals met %v; %v", rep.GoalsMet, rep.Files)
	}
}
