package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestDensityNormMatchesPerElement: DensityNorm, a density that adds a
// normaliser to each element's log density in its one pass, has the value
// and gradient of the family's LogPDF plus the normaliser, elementwise,
// then summed, to 1e-12 relative: a hoisted family (Normal, one mean and
// sd) and a data run (Poisson counts, one rate and a rate per count,
// shared on teams of 2 and 3 bit for bit), with one normaliser for all
// and one per element, each depending on the inputs so that its adjoint
// (1 per element, m for one) is checked; no allocations. A normaliser of
// another shape is refused and adds nothing.
func TestDensityNormMatchesPerElement(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	const m = 1500
	counts, reals, rates := make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range counts {
		counts[i] = float64(1 + r.IntN(12))
		reals[i] = 1 + 2*r.NormFloat64()
		rates[i] = 0.5 + 6*r.Float64()
	}
	type tc struct {
		family string
		y      []float64
		args   [][]float64 // inputs: a scalar or one per element
	}
	for _, c := range []tc{
		{"Normal", reals, [][]float64{{0.7}, {1.9}}},
		{"Poisson", counts, [][]float64{{3.2}}},
		{"Poisson", counts, [][]float64{rates}},
	} {
		u, _ := dist.LookupUnivariate(c.family)
		for _, each := range []bool{false, true} {
			name := fmt.Sprintf("%s/args%d/each=%v", c.family, len(c.args[0]), each)
			build := func(fused bool) (*Program, []float64) {
				b := NewBuilder()
				y := b.Const(c.y, Vector(m), testPos)
				var ids []ID
				var x []float64
				for i, a := range c.args {
					sh := Scalar()
					if len(a) > 1 {
						sh = Vector(m)
					}
					ids = append(ids, b.Input(fmt.Sprint("a", i), sh, testPos))
					x = append(x, a...)
				}
				// a normaliser of the inputs, near −(the log density)
				norm := b.Mul(b.Scalar(-1.5, testPos), b.Exp(b.Mul(b.Scalar(0.4, testPos), ids[0], testPos), testPos), testPos)
				if each {
					norm = b.Mul(norm, b.Const(reals, Vector(m), testPos), testPos)
				}
				var root ID
				if fused {
					d, ok := b.DensityNorm(*u, y, ids, norm, testPos)
					if !ok {
						t.Fatalf("%s: normaliser refused", name)
					}
					root = d
				} else {
					root = b.Sum(b.Add(b.LogPDF(*u, y, ids, testPos), norm, testPos), testPos)
				}
				p, err := b.Finish(root)
				if err != nil {
					t.Fatal(err)
				}
				return p, x
			}
			pf, x := build(true)
			pu, _ := build(false)
			gf, gu := make([]float64, len(x)), make([]float64, len(x))
			vf, err := pf.LogJoint(x, gf)
			if err != nil {
				t.Fatal(err)
			}
			vu, err := pu.LogJoint(x, gu)
			if err != nil {
				t.Fatal(err)
			}
			rel := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) }
			if !rel(vf, vu) {
				t.Errorf("%s: value %.17g fused, %.17g per element", name, vf, vu)
			}
			for i := range gf {
				if !rel(gf[i], gu[i]) {
					t.Errorf("%s: grad[%d] %.17g fused, %.17g per element", name, i, gf[i], gu[i])
				}
			}
			if a := testing.AllocsPerRun(10, func() { pf.LogJoint(x, gf) }); a != 0 {
				t.Errorf("%s: %v allocations per LogJoint", name, a)
			}
			if c.family == "Poisson" {
				for _, size := range []int{2, 3} { // the run is shared: bit for bit
					p, team := pf.Clone(), &fakeTeam{size: size}
					p.SetTeam(team)
					g := make([]float64, len(x))
					v, err := p.LogJoint(x, g)
					if err != nil || team.tasks == 0 || math.Float64bits(v) != math.Float64bits(vf) {
						t.Errorf("%s, team of %d: value %.17g (%v, %d tasks), alone %.17g", name, size, v, err, team.tasks, vf)
					}
					for i := range g {
						if math.Float64bits(g[i]) != math.Float64bits(gf[i]) {
							t.Errorf("%s, team of %d: grad[%d] %.17g, alone %.17g", name, size, i, g[i], gf[i])
						}
					}
				}
			}
		}
	}
	b := NewBuilder()
	y := b.Const(reals, Vector(m), testPos)
	mu := b.Input("mu", Scalar(), testPos)
	n0 := len(b.nodes)
	if _, ok := b.DensityNorm(*mustUnivariate(t, "Normal"), y, []ID{mu, b.Scalar(1, testPos)}, b.Input("w", Vector(7), testPos), testPos); ok || len(b.nodes) != n0+2 {
		t.Errorf("a normaliser of 7 for %d elements: ok %v, %d nodes added", m, ok, len(b.nodes)-n0)
	}
}

func mustUnivariate(t *testing.T, name string) *dist.Univariate {
	u, ok := dist.LookupUnivariate(name)
	if !ok {
		t.Fatalf("no %s", name)
	}
	return u
}
