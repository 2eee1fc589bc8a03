package sgvb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// jointGauss is a Gaussian posterior N(m, Σ) over three scalar latents a,
// c and b at coordinates 0, 1 and 2: a and b correlated 0.9, c independent
// of both (so that the group a+b is not adjacent). b is on the logs of a
// positive latent when pos is set.
type jointGauss struct {
	*mvGauss
	pos bool
}

func newJointGauss(pos bool) *jointGauss {
	sd := []float64{1, 2, 0.5}
	rho := [3][3]float64{{1, 0, 0.9}, {0, 1, 0}, {0.9, 0, 1}}
	s := mat.NewSymDense(3, nil)
	for i := range 3 {
		for j := range 3 {
			s.SetSym(i, j, rho[i][j]*sd[i]*sd[j])
		}
	}
	return &jointGauss{mvGauss: newMVGauss([]float64{1, -1, -0.5}, s, false), pos: pos}
}

func (t *jointGauss) LogJoint(x, grad []float64) (float64, error) {
	lp, err := t.mvGauss.LogJoint(x, grad)
	if t.pos { // the density of z = e^x
		lp -= x[2]
		grad[2]--
	}
	return lp, err
}

func (t *jointGauss) Clone() Target {
	return &jointGauss{mvGauss: t.mvGauss.Clone().(*mvGauss), pos: t.pos}
}

func (t *jointGauss) latents() []Latent {
	s := dist.Real
	if t.pos {
		s = dist.Positive
	}
	return []Latent{{Name: "a", Offset: 0, Size: 1, Support: dist.Real}, {Name: "c", Offset: 1, Size: 1, Support: dist.Real},
		{Name: "b", Offset: 2, Size: 1, Support: s}}
}

// logZ is the log evidence: ½·3·log 2π + ½ log det Σ (the −x of a positive
// b integrates with dz = e^x dx to the same).
func (t *jointGauss) logZ() float64 {
	var ch mat.Cholesky
	ch.Factorize(t.sigma())
	return 1.5*math.Log(2*math.Pi) + 0.5*ch.LogDet()
}

func (t *jointGauss) sigma() *mat.SymDense {
	var ch mat.Cholesky
	ch.Factorize(t.p)
	s := mat.NewSymDense(3, nil)
	if err := ch.InverseTo(s); err != nil {
		panic(err)
	}
	return s
}

// TestFullRankGroup fits the joint full-rank factor of a and b, with c
// between them apart, to a posterior where a and b have correlation 0.9:
// it recovers the correlation, the marginals and the log evidence, on the
// values of b and on its logs, which per-latent full-rank and mean-field
// factors cannot (their ELBO is ½ log(1 − 0.9²) = −0.83 nats short).
func TestFullRankGroup(t *testing.T) {
	for _, pos := range []bool{false, true} {
		tg := newJointGauss(pos)
		sigma, logZ := tg.sigma(), tg.logZ()
		s := conjugateSettings()
		s.FullRankGroups = [][]string{{"b", "a"}}
		r, err := Fit(context.Background(), tg, tg.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Groups) != 1 || strings.Join(r.Groups[0].Names, "+") != "a+b" || len(r.Factors) != 3 {
			t.Fatalf("groups %v, %d factors", r.Groups, len(r.Factors))
		}
		g := r.Groups[0]
		cov := fullRankCov(Factor{Params: g.Params})
		rho := cov.At(0, 1) / math.Sqrt(cov.At(0, 0)*cov.At(1, 1))
		t.Logf("b positive %v: ELBO %.5f ± %.2g (log Z %.5f), ρ %.4f, mean %.4f, sds %.4f %.4f, k̂ %.2f", pos, r.ELBO, r.ELBOSE, logZ, rho,
			g.Params[0], math.Sqrt(cov.At(0, 0)), math.Sqrt(cov.At(1, 1)), r.ParetoK)
		if math.Abs(rho-0.9) > 0.02 || math.Abs(r.ELBO-logZ) > elboTol {
			t.Errorf("b positive %v: ρ = %.4f (0.9), ELBO %.5f against log Z %.5f", pos, rho, r.ELBO, logZ)
		}
		// the members' factors: their marginals, on b's natural scale
		for _, c := range []struct {
			name string
			i    int
		}{{"a", 0}, {"c", 1}, {"b", 2}} {
			f := r.Factor(c.name)
			wm, ws := tg.m[c.i], math.Sqrt(sigma.At(c.i, c.i))
			if c.name == "b" && pos {
				if f.Support != dist.Positive {
					t.Errorf("b's factor has support %v", f.Support)
				}
				wm, ws = math.Exp(wm+ws*ws/2), math.Exp(wm+ws*ws/2)*math.Sqrt(math.Expm1(ws*ws))
			}
			wantFam := FamilyFullRank
			if c.name == "c" {
				wantFam = FamilyNormal
			}
			m, sd := f.Mean()[0], f.SD()[0]
			if f.Family != wantFam || f.Offset != c.i || math.Abs(m-wm) > relTol*ws || math.Abs(sd/ws-1) > relTol {
				t.Errorf("b positive %v: factor %s: %v at %d, mean %.4f sd %.4f, want %v, %.4f, %.4f", pos, c.name, f.Family, f.Offset, m, sd, wantFam, wm, ws)
			}
		}
		// draws come from the joint q: their correlation, and log q as
		// LogQCoords gives it
		rng := rand.New(rand.NewPCG(7, 8))
		x := make([]float64, 3)
		var sa, sb, saa, sbb, sab float64
		const N = 20000
		for k := range N {
			lq := r.SampleCoords(rng, x)
			if k < 10 {
				if d := r.LogQCoords(x) - lq; math.Abs(d) > 1e-12 {
					t.Errorf("log q of a draw %.15g, LogQCoords %.15g", lq, lq+d)
				}
			}
			sa, sb, saa, sbb, sab = sa+x[0], sb+x[2], saa+x[0]*x[0], sbb+x[2]*x[2], sab+x[0]*x[2]
		}
		va, vb := saa/N-sa*sa/N/N, sbb/N-sb*sb/N/N
		if dr := (sab/N-sa*sb/N/N)/math.Sqrt(va*vb) - 0.9; math.Abs(dr) > 0.01 {
			t.Errorf("b positive %v: the draws' correlation is %.4f", pos, 0.9+dr)
		}
		if pos {
			continue
		}
		// separate factors: per-latent full-rank (one element each) and
		// mean-field miss the correlation and 0.83 nats
		for _, fams := range []map[string]Family{{"a": FamilyFullRank, "b": FamilyFullRank}, nil} {
			s := conjugateSettings()
			s.Families = fams
			rs, err := Fit(context.Background(), tg, tg.latents(), s)
			if err != nil {
				t.Fatal(err)
			}
			gap := 0.5 * math.Log(1-0.81)
			t.Logf("families %v: ELBO %.5f ± %.2g, log Z + ½ log(1 − ρ²) = %.5f", fams, rs.ELBO, rs.ELBOSE, logZ+gap)
			if len(rs.Groups) != 0 || !(rs.ELBO < r.ELBO-0.7) || math.Abs(rs.ELBO-(logZ+gap)) > 0.05 {
				t.Errorf("families %v: ELBO %.5f, joint %.5f", fams, rs.ELBO, r.ELBO)
			}
		}
	}
}

// TestFullRankGroupInit checks the warm start of a joint factor: from a
// result's group whole (--init of a group), and from its members' own
// factors when the result has no group, as diagonal blocks of L.
func TestFullRankGroupInit(t *testing.T) {
	tg := newJointGauss(true)
	s := conjugateSettings()
	s.MaxIter, s.PSISDraws = 300, -1
	s.FullRankGroups = [][]string{{"a", "b"}}
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	s2 := s.withDefaults()
	s2.Init = r
	e, err := newEngine(tg, tg.latents(), &s2)
	if err != nil {
		t.Fatal(err)
	}
	got := e.groups()
	e.close()
	for j, p := range r.Groups[0].Params {
		for i, v := range p {
			if d := got[0].Params[j][i] - v; math.Abs(d) > 1e-12*math.Max(1, math.Abs(v)) {
				t.Errorf("param %d[%d]: %.15g after the warm start, %.15g in Init", j, i, v+d, v)
			}
		}
	}
	// without the group: the marginals, uncorrelated
	r2 := &Result{Method: SGVB, Factors: r.Factors, Dim: r.Dim}
	s2.Init = r2
	e, err = newEngine(tg, tg.latents(), &s2)
	if err != nil {
		t.Fatal(err)
	}
	got = e.groups()
	e.close()
	for k, name := range []string{"a", "b"} {
		f := r.Factor(name)
		if got[0].Params[0][k] != f.Params[0][0] || math.Abs(got[0].Params[1+k][k]/f.Params[1][0]-1) > 1e-12 {
			t.Errorf("%s: mean %g, L_kk %g from the marginal %g, %g", name, got[0].Params[0][k], got[0].Params[1+k][k], f.Params[0][0], f.Params[1][0])
		}
	}
	if got[0].Params[1][1] != 0 {
		t.Errorf("L_21 = %g from marginals", got[0].Params[1][1])
	}
	// a Result without Groups samples its members' marginals apart
	x := make([]float64, 3)
	if lq := r2.SampleCoords(rand.New(rand.NewPCG(1, 2)), x); math.IsNaN(lq) {
		t.Error("log q NaN")
	}
}

// TestFullRankGroupInitSpread: a member warm-started from a factor of
// another family (b positive, fitted mean-field by a gamma factor) starts
// with that factor's mean and sd carried to its log scale, not from its
// mean alone with a unit sd.
func TestFullRankGroupInitSpread(t *testing.T) {
	tg := newJointGauss(true)
	s := conjugateSettings()
	s.MaxIter, s.PSISDraws = 300, -1
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factor("b")
	if f.Family != FamilyGamma {
		t.Fatalf("b's factor is %v, want gamma", f.Family)
	}
	m, sd := f.Mean()[0], f.SD()[0]
	v := math.Log1p((sd / m) * (sd / m))
	s2 := s.withDefaults()
	s2.FullRankGroups = [][]string{{"a", "b"}}
	s2.Init = r
	e, err := newEngine(tg, tg.latents(), &s2)
	if err != nil {
		t.Fatal(err)
	}
	got := e.groups()
	e.close()
	k := 1 // b is the group's second element
	if d := got[0].Params[0][k] - (math.Log(m) - v/2); math.Abs(d) > 1e-12 || math.Abs(got[0].Params[1+k][k]/math.Sqrt(v)-1) > 1e-9 {
		t.Errorf("b: log-scale mean %.12g, L_bb %.12g; want %.12g, %.12g from the gamma's mean %g and sd %g",
			got[0].Params[0][k], got[0].Params[1+k][k], math.Log(m)-v/2, math.Sqrt(v), m, sd)
	}
}

// A step and an ELBO evaluation of a joint group (its members not
// adjacent, one of them positive on its logs) allocate nothing, as the
// engine's steps must.
func TestFullRankGroupZeroAllocs(t *testing.T) {
	for _, pos := range []bool{false, true} {
		tg := newJointGauss(pos)
		s := conjugateSettings()
		s.FullRankGroups = [][]string{{"a", "b"}}
		ws := s.withDefaults()
		e, err := newEngine(tg, tg.latents(), &ws)
		if err != nil {
			t.Fatal(err)
		}
		checkZeroAllocs(t, e, fmt.Sprintf("group, b positive %v", pos))
		e.close()
	}
}

// TestFullRankGroupErrors checks the groups Fit refuses; a simplex joins
// full-rank groups, not low-rank or banded ones.
func TestFullRankGroupErrors(t *testing.T) {
	lats := []Latent{{Name: "a", Offset: 0, Size: 1, Support: dist.Real}, {Name: "w", Offset: 1, Size: 3, Shape: []int{3}, Support: dist.Simplex},
		{Name: "u", Offset: 4, Size: 1, Support: dist.Unit}, {Name: "o", Offset: 5, Size: 2, Shape: []int{2}, Support: dist.Ordered},
		{Name: "big", Offset: 7, Size: MaxFullRank, Shape: []int{MaxFullRank}, Support: dist.Real}}
	for _, c := range []struct {
		groups [][]string
		fams   map[string]Family
		want   string
		rank   int
		band   int
	}{
		{[][]string{{"a", "w"}}, nil, "latent w: a simplex joins full-rank factors only", 1, 0},
		{[][]string{{"w", "a"}}, nil, "latent w: a simplex joins full-rank factors only", 0, 1},
		{[][]string{{"o", "a"}}, nil, "latent o: " + errOrderedJoint, 0, 1},
		{[][]string{{"a"}}, nil, "a group needs two or more latents", 0, 0},
		{[][]string{{"a", "a"}}, nil, "latent a is named twice", 0, 0},
		{[][]string{{"a", "zz"}}, nil, `names no latent: "zz"`, 0, 0},
		{[][]string{{"a", "big"}}, nil, "group a+big: 101 elements", 0, 0},
		{[][]string{{"a", "big"}}, map[string]Family{"a": FamilyFullRank}, "latent a is in FullRankGroups and in Families", 0, 0},
	} {
		s := Settings{FullRankGroups: c.groups, Families: c.fams, Rank: c.rank, Band: c.band}.withDefaults()
		_, err := newEngine(&mvGauss{}, lats, &s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("groups %v: error %v, want %q", c.groups, err, c.want)
		}
	}
}
