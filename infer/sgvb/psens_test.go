package sgvb

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
)

// psensTol is the relative tolerance of CJSDist and the sensitivity
// against the mpmath transcription of priorsense (testdata/psens.py):
// float64 sums of up to 200 terms.
const psensTol = 1e-11

type psensRef struct {
	CJS []struct {
		X, Wp, Wq []float64
		CJS       float64
	}
	Powerscale []struct {
		X, C                      []float64
		Lower, Upper, Sensitivity float64
	}
}

func readPsensRef(t *testing.T) *psensRef {
	t.Helper()
	b, err := os.ReadFile("testdata/psens.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref psensRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.CJS) == 0 || len(ref.Powerscale) == 0 {
		t.Fatal("testdata/psens.json holds no cases")
	}
	return &ref
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300) }

// TestCJSDistReference: CJSDist against priorsense's cjs_dist (ties,
// zero weights, weighted bases).
func TestCJSDistReference(t *testing.T) {
	for i, c := range readPsensRef(t).CJS {
		if got := CJSDist(c.X, c.Wp, c.Wq); relErr(got, c.CJS) > psensTol {
			t.Errorf("case %d: CJSDist = %.15g, priorsense %.15g", i, got, c.CJS)
		}
	}
}

// TestPowerScaleReference: the distances of draws reweighted by
// exp((α − 1)·c) at α = 0.99 and 1.01, and the sensitivity from them.
func TestPowerScaleReference(t *testing.T) {
	for i, c := range readPsensRef(t).Powerscale {
		var d [2]float64
		for j, alpha := range []float64{PowerScaleLower, PowerScaleUpper} {
			w := make([]float64, len(c.C))
			for s, v := range c.C {
				w[s] = math.Exp((alpha - 1) * v)
			}
			d[j] = CJSDist(c.X, nil, w)
		}
		if relErr(d[0], c.Lower) > psensTol || relErr(d[1], c.Upper) > psensTol {
			t.Errorf("case %d: distances %.15g, %.15g; priorsense %.15g, %.15g", i, d[0], d[1], c.Lower, c.Upper)
		}
		if got := PowerScaleSensitivity(d[0], d[1]); relErr(got, c.Sensitivity) > psensTol {
			t.Errorf("case %d: sensitivity %.15g, priorsense %.15g", i, got, c.Sensitivity)
		}
	}
}

// TestCJSDistEdges: equal weightings are at distance 0, as are draws
// that are all equal; the distance is symmetric in the two weightings
// and unchanged by scaling either; weights all 0 give NaN.
func TestCJSDistEdges(t *testing.T) {
	x := []float64{0.3, -1, 2, 0.5, 0.1}
	w := []float64{1, 2, 0.5, 1, 3}
	if d := CJSDist(x, w, w); d != 0 {
		t.Errorf("same weights: %g, want 0", d)
	}
	if d := CJSDist([]float64{2, 2, 2}, nil, []float64{1, 5, 2}); d != 0 {
		t.Errorf("equal draws: %g, want 0", d)
	}
	if d := CJSDist(x, nil, make([]float64, len(x))); !math.IsNaN(d) {
		t.Errorf("zero weights: %g, want NaN (priorsense's NA)", d)
	}
	w2 := []float64{2, 4, 1, 2, 6}
	if d := CJSDist(x, nil, w2); relErr(d, CJSDist(x, w2, nil)) > 1e-14 || relErr(d, CJSDist(x, nil, w)) > 1e-14 {
		t.Errorf("CJSDist not symmetric or not scale-free: %g, %g, %g", d, CJSDist(x, w2, nil), CJSDist(x, nil, w))
	}
}

// TestJSPoint: jsPoint's series (small |u|) and its logarithms (larger
// |u|, one ECDF at 0) against P ln(P/M) + Q ln(Q/M) computed directly,
// on both sides of jsSeriesMax.
func TestJSPoint(t *testing.T) {
	direct := func(P, Q float64) float64 {
		M := (P + Q) / 2
		v := 0.0
		if P > 0 {
			v += P * math.Log(P/M)
		}
		if Q > 0 {
			v += Q * math.Log(Q/M)
		}
		return v
	}
	for _, c := range [][2]float64{{0.5, 0.5}, {0.3, 0.31}, {0.2, 0.24}, {0.2, 0.2444}, {0.2, 0.2445}, {0.6, 0.4}, {0.9, 0.01}, {0, 0.3}, {0.7, 0}, {0, 0}} {
		got, want := jsPoint(c[0], c[1]), direct(c[0], c[1])
		// the direct form cancels two logs: its error is some ulps of P ln 2
		if math.Abs(got-want) > 1e-15*(c[0]+c[1]) {
			t.Errorf("jsPoint(%g, %g) = %.17g, directly %.17g", c[0], c[1], got, want)
		}
		if got2 := jsPoint(c[1], c[0]); got2 != got {
			t.Errorf("jsPoint(%g, %g) = %.17g, swapped %.17g", c[0], c[1], got, got2)
		}
	}
}

func TestPowerScaleDiagnosis(t *testing.T) {
	for _, c := range []struct {
		prior, lik float64
		want       string
	}{
		{0.01, 0.2, "-"},
		{0.2, 0.3, "potential prior-data conflict"},
		{0.05, 0.05, "potential prior-data conflict"},
		{0.2, 0.01, "potential strong prior / weak likelihood"},
		{0.05, 0.01, "-"}, // priorsense: prior > threshold for this reading
		{0.01, 0.01, "-"},
	} {
		if got := PowerScaleDiagnosis(c.prior, c.lik, 0.05); got != c.want {
			t.Errorf("PowerScaleDiagnosis(%g, %g) = %q, want %q", c.prior, c.lik, got, c.want)
		}
	}
	if k := PowerScaleKThreshold(1000); math.Abs(k-2.0/3) > 1e-15 {
		t.Errorf("k threshold for 1000 draws: %g, want 2/3", k)
	}
	if k := PowerScaleKThreshold(100000); k != 0.7 {
		t.Errorf("k threshold for 1e5 draws: %g, want 0.7", k)
	}
}

// BenchmarkCJSDists: one element's four distances over 4000 draws, as gpp
// sensitivity computes them for a sample of 4 chains × 1000.
func BenchmarkCJSDists(b *testing.B) {
	const S = 4000
	x := make([]float64, S)
	ws := make([][]float64, 4)
	for i := range ws {
		ws[i] = make([]float64, S)
	}
	for s := range x {
		x[s] = math.Sin(float64(s) * 0.7)
		for i := range ws {
			ws[i][s] = math.Exp(0.01 * float64(i+1) * x[s])
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		CJSDists(x, nil, ws)
	}
}

// cjsDirect is CJSDist as priorsense writes it, term by term: each
// sign's CJS(P‖Q) and CJS(Q‖P) with their three log₂ per point.
func cjsDirect(x, wp, wq []float64) float64 {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	w := func(v []float64, i int) float64 {
		if v == nil {
			return 1
		}
		return v[i]
	}
	var sp, sq float64
	for i := range n {
		sp, sq = sp+w(wp, i), sq+w(wq, i)
	}
	dist := func(down bool) float64 {
		var P, Q, pInt, qInt, pq, qp float64
		for j := range n - 1 {
			a, b := idx[j], idx[j+1]
			if down {
				a, b = idx[n-1-j], idx[n-2-j]
			}
			d := math.Abs(x[b] - x[a])
			P += w(wp, a) / sp
			Q += w(wq, a) / sq
			pInt, qInt = pInt+d*P, qInt+d*Q
			lm := math.Log2((P + Q) / 2)
			if P > 0 {
				pq += d * P * (math.Log2(P) - lm)
			}
			if Q > 0 {
				qp += d * Q * (math.Log2(Q) - lm)
			}
		}
		if !(pInt+qInt > 0) {
			return 0
		}
		pq += (qInt - pInt) / (2 * math.Ln2)
		qp += (pInt - qInt) / (2 * math.Ln2)
		return math.Sqrt(max(0, (pq+qp)/(pInt+qInt)))
	}
	return max(dist(false), dist(true))
}

// TestCJSDistsDirect: CJSDists over 4000 draws (ties among them) with the
// weights of power-scaling at α = 0.99 and 1.01, weighted and not, against
// the term-by-term cjsDirect, to the reference tests' tolerance.
func TestCJSDistsDirect(t *testing.T) {
	const S = 4000
	rng := rand.New(rand.NewPCG(4, 2))
	x, c, base := make([]float64, S), make([]float64, S), make([]float64, S)
	for s := range x {
		x[s] = math.Round(100*rng.NormFloat64()) / 20 // ties
		c[s] = -x[s]*x[s]/2 + rng.NormFloat64()
		base[s] = math.Exp(0.2 * rng.NormFloat64())
	}
	var wqs [][]float64
	for _, alpha := range []float64{PowerScaleLower, PowerScaleUpper, 0.8} {
		w := make([]float64, S)
		for s, v := range c {
			w[s] = math.Exp((alpha - 1) * v)
		}
		wqs = append(wqs, w)
	}
	for _, wp := range [][]float64{nil, base} {
		got := CJSDists(x, wp, wqs)
		for j, wq := range wqs {
			if want := cjsDirect(x, wp, wq); relErr(got[j], want) > psensTol {
				t.Errorf("weighted %v, set %d: CJSDists %.15g, directly %.15g", wp != nil, j, got[j], want)
			}
		}
	}
}

// TestPointMassNoise: for 0/1 draws unrelated to the power-scaled part
// (its sensitivity truly 0), those that PointMassNoise does not judge too
// few off the usual value read a sensitivity at or above 0.05 in at most
// 5 % of cases, 2 draws of 4000 are always too few and 1600 never; and
// draws that are continuous, constant or
// even between two values have no point mass to read.
func TestPointMassNoise(t *testing.T) {
	const S, reps, threshold = 4000, 60, 0.05
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{1, 4, 16} {
		for _, k := range []int{2, 20, 100, 400, 1600} {
			flagged, falseAlarms, raw := 0, 0, 0
			for range reps {
				lp := make([]float64, S)
				for i := range lp {
					for range d {
						z := rng.NormFloat64()
						lp[i] -= z * z / 2
					}
				}
				x := make([]float64, S)
				for _, i := range rng.Perm(S)[:k] {
					x[i] = 1
				}
				var w [2][]float64
				for j, a := range []float64{PowerScaleLower, PowerScaleUpper} {
					lr := make([]float64, S)
					for i := range lr {
						lr[i] = (a - 1) * lp[i]
					}
					lw, _ := PSIS(lr)
					w[j] = make([]float64, S)
					for i := range lw {
						w[j][i] = math.Exp(lw[i])
					}
				}
				dd := CJSDists(x, nil, w[:])
				s := PowerScaleSensitivity(dd[0], dd[1])
				noise, kk, SS := PointMassNoise(x, nil, lp)
				if kk != float64(min(k, S-k)) || SS != S {
					t.Fatalf("d %d, k %d: counts %g of %g, want %d of %d", d, k, kk, SS, min(k, S-k), S)
				}
				switch {
				case noise >= threshold:
					flagged++
				case s >= threshold:
					falseAlarms++
				}
				if s >= threshold {
					raw++
				}
			}
			if falseAlarms > reps/20 {
				t.Errorf("d %d, k %d: %d of %d unrelated 0/1 draws not judged too few read ≥ %g (raw: %d)", d, k, falseAlarms, reps, threshold, raw)
			}
			if k == 1600 && flagged != 0 {
				t.Errorf("d %d: %d draws of %d judged too few in %d of %d cases", d, k, S, flagged, reps)
			}
			if k == 2 && flagged != reps {
				t.Errorf("d %d: 2 draws of %d judged enough in %d of %d cases", d, S, reps-flagged, reps)
			}
		}
	}
	even := make([]float64, 100)
	cont := make([]float64, 100)
	lp := make([]float64, 100)
	for i := range even {
		even[i] = float64(i % 2)
		cont[i] = float64(i) * 0.1
		lp[i] = -float64(i*i%7) / 2
	}
	for name, x := range map[string][]float64{"even": even, "continuous": cont, "constant": make([]float64, 100)} {
		if noise, _, _ := PointMassNoise(x, nil, lp); noise != 0 {
			t.Errorf("%s: noise %g, want 0", name, noise)
		}
	}
}
