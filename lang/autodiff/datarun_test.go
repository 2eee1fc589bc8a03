package autodiff

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// A density of data counts evaluated by its family's DataRun is shared by
// ranges of elements on a team above parMinWork (m·dataRunElemCost) and
// alone below it, and its value and gradient are bit for bit those without
// a team: summed (Density, whose parts' log densities are added in element
// order) and per element (LogPDF, then Sum), for Poisson and PoissonLog,
// with a rate per count, a rate per column broadcast down the rows and one
// rate for all, teams of 2 and 3 (whose ranges end inside rows), counts
// 0–40 across the kernel's branches; no allocations.
func TestDataRunTeamSameNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(89, 2))
	vals := func(k int, lo, hi float64) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = lo + (hi-lo)*r.Float64()
		}
		return v
	}
	counts := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			if r.IntN(2) == 0 {
				v[i] = float64(r.IntN(41))
			}
		}
		return v
	}
	for _, c := range []struct {
		name, family string
		ops          []dhOperand
		shared       bool
	}{
		{"poisson/rate-per-count", "Poisson", []dhOperand{dhConst(Matrix(37, 64), counts(37*64)), dhIn(Matrix(37, 64), vals(37*64, 0.02, 30))}, true},
		{"poisson/rate-per-column", "Poisson", []dhOperand{dhConst(Matrix(90, 11), counts(990)), dhIn(Matrix(1, 11), vals(11, 0.5, 25))}, true},
		{"poisson/one-rate", "Poisson", []dhOperand{dhConst(Vector(1001), counts(1001)), dhIn(Scalar(), []float64{7.5})}, true},
		{"poisson/small", "Poisson", []dhOperand{dhConst(Matrix(6, 8), counts(48)), dhIn(Matrix(6, 8), vals(48, 0.05, 15))}, false},
		{"poissonlog/eta-per-count", "PoissonLog", []dhOperand{dhConst(Matrix(50, 23), counts(50*23)), dhIn(Matrix(50, 23), vals(50*23, -3, 4))}, true},
	} {
		u, ok := dist.LookupUnivariate(c.family)
		if !ok || u.DataHoisted == nil {
			t.Fatalf("dist has no data-hoisted %s", c.family)
		}
		if _, ok := u.DataHoisted.(dist.DataRun); !ok {
			t.Fatalf("%s's DataHoisted is not a DataRun", c.family)
		}
		for _, logpdf := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/logpdf=%v", c.name, logpdf), func(t *testing.T) {
				build := func() *Program {
					p, _, _ := buildDataCase(t, *u, c.ops, logpdf)
					return p
				}
				p0, d, x := buildDataCase(t, *u, c.ops, logpdf)
				if p0.nodes[p0.index(d)].dhoist == nil {
					t.Fatal("the density is not data-hoisted")
				}
				g0 := make([]float64, len(x))
				v0, err := p0.LogJoint(x, g0)
				if err != nil {
					t.Fatal(err)
				}
				tasks := 0
				if c.shared {
					tasks = 1
				}
				for _, size := range []int{2, 3} {
					sameWithTeam(t, build, x, v0, g0, size, tasks)
				}
			})
		}
	}
}
