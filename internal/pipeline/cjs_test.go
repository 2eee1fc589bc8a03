package pipeline_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// cjsModel is the Cormack–Jolly–Seber model of docs/language.md (Time
// series): survival phi and recapture p constant over T occasions,
// individual i first caught at f[i], last at l[i] and recaptured k[i]
// times after f[i]. The probability of never being seen after occasion t
// when alive then, chi[t] = (1 − phi) + phi (1 − p) chi[t + 1] with
// chi[T − 1] = 1, is a linear recursion backwards in time: ar_filter over
// the reversed occasions.
const cjsModel = `data T: int
data f: int[M]
data l: int[M]
data k: int[M]
param phi: unit ~ Uniform(0, 1)
param p: unit ~ Uniform(0, 1)
let chi_rev = ar_filter(phi * (1 - p), append_row(1, rep(1 - phi, T - 1)))
target += sum(l - f) * log(phi) + sum(k) * log(p) + sum(l - f - k) * log1m(p)
target += sum(log(chi_rev[T - 1 - l]))
`

// cjsData simulates m individuals over t occasions (first capture uniform
// on 0..t−2; survival phi, recapture p) from one PCG stream and returns
// the JSON data and the individuals' (f, l, k).
func cjsData(m, t int, phi, p float64) ([]byte, [][3]int) {
	rng := rand.New(rand.NewPCG(2026, 1129))
	var f, l, k []int
	var rows [][3]int
	for range m {
		fi := rng.IntN(t - 1)
		alive, last, rec := true, fi, 0
		for s := fi + 1; s < t; s++ {
			alive = alive && rng.Float64() < phi
			if alive && rng.Float64() < p {
				last, rec = s, rec+1
			}
		}
		f, l, k = append(f, fi), append(l, last), append(k, rec)
		rows = append(rows, [3]int{fi, last, rec})
	}
	b, _ := json.Marshal(map[string]any{"T": t, "f": f, "l": l, "k": k})
	return b, rows
}

// TestCJSReference fits cjsModel to 150 simulated individuals (T = 8, phi
// = 0.75, p = 0.6), mean-field and with --fullrank all, and compares q with
// the exact posterior by quadrature on a 400 × 400 midpoint grid over
// (phi, p), whose likelihood is written out from the individuals' capture
// histories with chi computed by its backward recursion: each mean within
// 0.2 posterior sd, each sd within 15 %. A chi indexed forwards (chi_rev[l]
// for chi_rev[T − 1 − l]) moves phi by more than two sds.
func TestCJSReference(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model twice")
	}
	const T = 8
	dat, rows := cjsData(150, T, 0.75, 0.6)
	logLik := func(phi, p float64) float64 {
		chi := make([]float64, T)
		chi[T-1] = 1
		for s := T - 2; s >= 0; s-- {
			chi[s] = (1 - phi) + phi*(1-p)*chi[s+1]
		}
		ll := 0.0
		for _, r := range rows {
			f, l, k := r[0], r[1], r[2]
			ll += float64(l-f)*math.Log(phi) + float64(k)*math.Log(p) + float64(l-f-k)*math.Log1p(-p) + math.Log(chi[l])
		}
		return ll
	}
	const n = 400
	lg := make([]float64, n*n)
	top := math.Inf(-1)
	for i := range n {
		for j := range n {
			lg[i*n+j] = logLik((float64(i)+0.5)/n, (float64(j)+0.5)/n)
			top = math.Max(top, lg[i*n+j])
		}
	}
	var z, m1, m2, s1, s2 float64
	for i := range n {
		for j := range n {
			w := math.Exp(lg[i*n+j] - top)
			phi, p := (float64(i)+0.5)/n, (float64(j)+0.5)/n
			z += w
			m1, m2 = m1+w*phi, m2+w*p
			s1, s2 = s1+w*phi*phi, s2+w*p*p
		}
	}
	m1, m2 = m1/z, m2/z
	mean := []float64{m1, m2}
	sd := []float64{math.Sqrt(s1/z - m1*m1), math.Sqrt(s2/z - m2*m2)}
	names := []string{"phi", "p"}
	mf := fitSource(t, cjsModel, "cjs.json", dat, sgvb.Settings{Seed: 1})
	compareRef(t, "mean-field", mf, names, mean, sd, 0.2, 0.85, 1.15)
	fr := fitSource(t, cjsModel, "cjs.json", dat, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{names}})
	compareRef(t, "full-rank", fr, names, mean, sd, 0.2, 0.85, 1.15)
}
