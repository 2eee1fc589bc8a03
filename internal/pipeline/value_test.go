package pipeline_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/shareddata"
)

// valueExamples are bundled models with their data, as their README
// commands fit them.
var valueExamples = []struct {
	model string
	data  []string
	sets  map[string]string
}{
	{"gpfa.gpp", []string{"wine_std.csv"}, map[string]string{"K": "3"}},
	{"fa.gpp", []string{"wine_std.csv"}, map[string]string{"K": "3"}},
	{"cultivar_small.gpp", []string{"wine_std.csv", "cultivar=../../examples/wine_cultivar.csv"}, nil},
	{"mixture.gpp", []string{"wine_std.csv"}, nil},
	{"ordinal.gpp", []string{"ordinal.csv"}, nil},
	{"gp.gpp", []string{"gp.csv"}, nil},
	{"sv.gpp", []string{"sv.csv"}, nil},
	{"survival.gpp", []string{"survival.csv"}, nil},
	{"varying.gpp", []string{"varying.csv"}, nil},
	{"seeds.gpp", []string{"seeds.csv"}, nil},
	{"epm.gpp", []string{"links=../../examples/football_train.csv", "unknown=../../examples/football_heldout.csv"}, map[string]string{"N": "115"}},
	{"pmf.gpp", []string{"digits300.csv", "train=../../examples/digits300_train.csv"}, nil},
}

func loadExample(t *testing.T, model string, data []string, sets map[string]string) *pipeline.Loaded {
	t.Helper()
	args := make([]string, len(data))
	for i, d := range data {
		args[i] = d
		if !strings.Contains(d, "=") {
			args[i] = "../../examples/" + d
		}
	}
	l, err := pipeline.Load("../../examples/"+model, args, sets)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// On every bundled model, the value alone (a forward pass) is LogJoint's
// bit for bit, at points near the start and far from it (where some
// fail: then with the same error), and allocates nothing.
func TestLogJointValueExamples(t *testing.T) {
	for _, ex := range valueExamples {
		t.Run(ex.model, func(t *testing.T) {
			m := loadExample(t, ex.model, ex.data, ex.sets).Model
			x0 := sgvb.StartPoint(pipeline.Latents(m), m.Dim)
			grad := make([]float64, m.Dim)
			r := rand.New(rand.NewPCG(5, uint64(m.Dim)))
			x := make([]float64, m.Dim)
			good := 0
			for k := range 6 {
				scale := []float64{0, 0.1, 0.3, 1, 3, 10}[k]
				for i := range x {
					x[i] = x0[i] + scale*r.NormFloat64()
				}
				want, errG := m.LogJoint(x, grad)
				got, errV := m.LogJointValue(x)
				if !math.IsNaN(want) || !math.IsNaN(got) {
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("scale %g: LogJointValue %v, LogJoint %v", scale, got, want)
					}
				}
				switch {
				case errV != nil && (errG == nil || errV.Error() != errG.Error()):
					t.Errorf("scale %g: LogJointValue's error %v, LogJoint's %v", scale, errV, errG)
				case errV == nil && errG != nil && math.IsNaN(want):
					t.Errorf("scale %g: LogJoint failed (%v), LogJointValue did not", scale, errG)
				case errV == nil:
					good++
				}
			}
			if good == 0 {
				t.Fatal("no point had a finite log joint")
			}
			if a := testing.AllocsPerRun(20, func() { m.LogJointValue(x0) }); a != 0 {
				t.Errorf("LogJointValue allocates %v times per call, want 0", a)
			}
		})
	}
}

// gradientOnly hides a Target's LogJointValue (and its team), so that the
// engine estimates its ELBOs through LogJoint as before.
type gradientOnly struct{ t sgvb.Target }

func (g gradientOnly) LogJoint(x, grad []float64) (float64, error) { return g.t.LogJoint(x, grad) }
func (g gradientOnly) Clone() sgvb.Target                          { return gradientOnly{g.t.Clone()} }

// A fit whose ELBO estimates (the monitor's, the final one and its k̂), a
// mixture's estimate and importance resampling take the values alone give
// the numbers of the same fit through LogJoint, bit for bit: with gamma
// factors (GPFA), normal ones (eight schools) and a full-rank one
// (cultivar_small --fullrank all).
func TestValueTargetSameFit(t *testing.T) {
	es := shareddata.Path(t, "posteriordb", "eight_schools-eight_schools_noncentered", "data.json")
	cases := []struct {
		name string
		l    *pipeline.Loaded
		full bool
	}{
		{"gpfa gamma", loadExample(t, "gpfa.gpp", []string{"wine_std.csv"}, map[string]string{"K": "3"}), false},
		{"eight schools normal", nil, false},
		{"cultivar_small fullrank", loadExample(t, "cultivar_small.gpp", []string{"wine_std.csv", "cultivar=../../examples/wine_cultivar.csv"}, nil), true},
	}
	l, err := pipeline.Load("../../examples/posteriordb/eight_schools_noncentered.gpp", []string{es}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases[1].l = l
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.l.Model
			lat := pipeline.Latents(m)
			s := sgvb.Settings{Seed: 3, MaxIter: 400, EvalEvery: 50, Workers: 2}
			if c.full {
				var all []string
				for _, l := range lat {
					all = append(all, l.Name)
				}
				s.FullRankGroups = [][]string{all}
			}
			var tv sgvb.Target = pipeline.Target{M: m}
			if _, ok := tv.(sgvb.ValueTarget); !ok {
				t.Fatal("pipeline.Target is not an sgvb.ValueTarget")
			}
			ctx := context.Background()
			r1, err := sgvb.Fit(ctx, tv, lat, s)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := sgvb.Fit(ctx, gradientOnly{pipeline.Target{M: m.Clone()}}, lat, s)
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, "the fits with values and through LogJoint", r1, r2)

			rs1 := sgvb.Resample(tv, r1, m.Dim, 1000, 100, 9, 2)
			rs2 := sgvb.Resample(gradientOnly{pipeline.Target{M: m.Clone()}}, r2, m.Dim, 1000, 100, 9, 2)
			if !same(rs1.K, rs2.K) || !same(rs1.ESS, rs2.ESS) || rs1.Bad != rs2.Bad || !slices.Equal(rs1.Index, rs2.Index) {
				t.Errorf("Resample: k̂ %v, ESS %v, %d bad with values; %v, %v, %d through LogJoint", rs1.K, rs1.ESS, rs1.Bad, rs2.K, rs2.ESS, rs2.Bad)
			}

			s.MaxIter, s.PSISDraws = 150, 200
			m1, err := sgvb.FitRestarts(ctx, tv, lat, s, sgvb.Restarts{N: 2, Parallel: 1})
			if err != nil {
				t.Fatal(err)
			}
			m2, err := sgvb.FitRestarts(ctx, gradientOnly{pipeline.Target{M: m.Clone()}}, lat, s, sgvb.Restarts{N: 2, Parallel: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !same(m1.ELBO, m2.ELBO) || !same(m1.ELBOSE, m2.ELBOSE) || !same(m1.ParetoK, m2.ParetoK) {
				t.Errorf("mixture: ELBO %v ± %v, k̂ %v with values; %v ± %v, %v through LogJoint", m1.ELBO, m1.ELBOSE, m1.ParetoK, m2.ELBO, m2.ELBOSE, m2.ParetoK)
			}
		})
	}
}

func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// sameResult fails unless two fits (told apart by what) have the same
// numbers, bit for bit: every exported field of the Result but the
// wall-clock ones (bitDiff).
func sameResult(t *testing.T, what string, a, b *sgvb.Result) {
	t.Helper()
	if d := bitDiff(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), "Result"); d != "" {
		t.Errorf("%s differ: %s", what, d)
	}
}

// bitDiff returns where a and b first differ, floats compared by their
// bits (NaN equal to itself) and the wall-clock fields (Seconds) skipped,
// or "" if nowhere.
func bitDiff(a, b reflect.Value, at string) string {
	switch a.Kind() {
	case reflect.Float64:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			return fmt.Sprintf("%s: %v and %v", at, a.Float(), b.Float())
		}
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return at + ": nil and not nil"
			}
			return ""
		}
		return bitDiff(a.Elem(), b.Elem(), at)
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: lengths %d and %d", at, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := bitDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: sizes %d and %d", at, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			if !b.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s: no key %v", at, k)
			}
			if d := bitDiff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", at, k)); d != "" {
				return d
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if f.Name == "Seconds" || !f.IsExported() {
				continue
			}
			if d := bitDiff(a.Field(i), b.Field(i), at+"."+f.Name); d != "" {
				return d
			}
		}
	case reflect.Func, reflect.Chan:
	default:
		if a.Interface() != b.Interface() {
			return fmt.Sprintf("%s: %v and %v", at, a.Interface(), b.Interface())
		}
	}
	return ""
}
