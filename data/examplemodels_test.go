package data

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadRDumpExampleModels reads R dump files from Stan's
// example-models repository (testdata/examplemodels, README.md there says
// which and under what licence): the layouts R's dump() and rstan's
// stan_rdump write in practice — NAME <-\nVALUE, integers with and
// without L, 1E6, c(...) across lines with trailing spaces, .Dim of doubles
// and of L integers, a .Dim split over lines — each to the names and
// shapes the file declares, with spot values checked in R's column-major
// order.
func TestReadRDumpExampleModels(t *testing.T) {
	type val struct {
		name string
		i    int
		want float64
	}
	for _, c := range []struct {
		file   string
		shapes map[string][]int
		ints   []string // names read as integers
		vals   []val
	}{
		{"bym2.data.R", map[string][]int{"N": nil, "N_edges": nil, "node1": {132}, "node2": {132}, "y": {56}, "K": nil, "x": {56, 2}, "E": {56}, "scaling_factor": nil},
			[]string{"N", "N_edges", "node1", "node2", "y", "K"},
			[]val{{"x", 1, 1.6 * 2}, {"x", 2*55 + 1, 2}, {"node2", 131, 56}, {"scaling_factor", 0, 0.485317494985636}, {"E", 48, 88.7}}},
		{"mvn_orange.data.R", map[string][]int{"K": nil, "N": nil, "x": {7}, "Y": {5, 7}, "mu_m_prior": {3}, "mu_var_prior": {3, 3}, "invR": {3, 3}},
			[]string{"K", "N", "x", "Y", "mu_m_prior"}, // 1E6 is a double in R
			[]val{{"Y", 1, 58}, {"Y", 9, 111}, {"Y", 34, 177}, {"mu_var_prior", 4, 1e6}, {"invR", 8, 0.1}}},
		{"pines.data.R", map[string][]int{"N": nil, "y": {42}, "x": {42}, "z": {42}},
			[]string{"N", "y"}, []val{{"y", 41, 3030}, {"x", 9, 24}, {"z", 41, 28.2}}},
		{"GLM_Poisson.data.R", map[string][]int{"C": {40}, "n": nil, "year": {40}},
			[]string{"C", "n"}, []val{{"C", 39, 245}, {"year", 0, -1.66802789939819}, {"year", 39, 1.66802789939819}}},
		{"GLMM_Poisson.data.R", map[string][]int{"C": {40}, "n": nil, "year": {40}},
			[]string{"C", "n"}, []val{{"C", 0, 26}, {"year", 19, -0.0427699461384151}}},
		{"ssm.data.R", map[string][]int{"y": {25}, "T": nil},
			[]string{"T"}, []val{{"y", 24, 41.7027428613237}}},
		{"Survey.data.R", map[string][]int{"k": {5}, "m": nil, "nmax": nil},
			[]string{"k", "m", "nmax"}, []val{{"k", 4, 27}, {"nmax", 0, 500}}},
		{"Rate_1.data.R", map[string][]int{"k": nil, "n": nil}, []string{"k", "n"}, []val{{"n", 0, 10}}},
		{"TwoCptModel.data.R", map[string][]int{"addl": {18}, "amt": {18}, "cmt": {18}, "cObs": {17}, "evid": {18}, "ii": {18}, "iObs": {17}, "nObs": nil, "nt": nil, "rate": {18}, "ss": {18}, "time": {18}},
			[]string{"addl", "amt", "cmt", "evid", "ii", "iObs", "nObs", "nt", "rate", "ss"},
			[]val{{"amt", 0, 5000}, {"time", 17, 20}, {"cObs", 16, 11.172011904164}}},
		{"flight_simulator.data.R", map[string][]int{"N": nil, "n_treatment": nil, "n_airport": nil, "treatment": {281}, "airport": {281}, "y": {281}},
			[]string{"N", "n_treatment", "n_airport", "treatment", "airport", "y"},
			[]val{{"treatment", 0, 2}, {"airport", 280, 8}, {"y", 280, 1}}},
		// y: 200 sites by 3 visits, the .Dim's closing parenthesis on a
		// line of its own
		{"binmix.data.R", map[string][]int{"y": {200, 3}, "R": nil, "T": nil},
			[]string{"y", "R", "T"}, []val{{"y", 3*1 + 0, 3}, {"y", 3*199 + 2, 1}, {"y", 3*0 + 1, 0}}},
	} {
		f, err := os.Open(filepath.Join("testdata", "examplemodels", c.file))
		if err != nil {
			t.Fatal(err)
		}
		set, err := ReadRDump(c.file, f)
		f.Close()
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(set) != len(c.shapes) {
			t.Errorf("%s: %d names, want %d", c.file, len(set), len(c.shapes))
		}
		for name, shape := range c.shapes {
			a := set[name]
			if a == nil {
				t.Errorf("%s: %s not read", c.file, name)
				continue
			}
			if err := a.Err(); err != nil {
				t.Errorf("%s: %v", c.file, err)
			}
			if !slices.Equal(a.Shape, shape) {
				t.Errorf("%s: %s has shape %v, want %v", c.file, name, a.Shape, shape)
			}
			if a.Int != slices.Contains(c.ints, name) {
				t.Errorf("%s: %s read as int %v", c.file, name, a.Int)
			}
		}
		for _, v := range c.vals {
			if a := set[v.name]; a != nil && !(math.Abs(a.Values[v.i]-v.want) <= 1e-12*math.Abs(v.want)) {
				t.Errorf("%s: %s's element %d is %v, want %v", c.file, v.name, v.i, a.Values[v.i], v.want)
			}
		}
	}
}
