package pipeline_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
)

// The Scotland lip cancer data of Stan's case study "Spatial models in
// Stan" (Morris et al. 2019), as its example-models repository ships them:
// an R dump file (knitr/car-iar-poisson/bym2.data.R) of 56 areas, 132
// edges given by 1-based node1 < node2, counts y, expected counts E, the
// covariate x (column 1 is 0.1·AFF, the case study's x) and the BYM2
// scaling factor the case study computed with INLA.
const scotlandFile = "../../data/testdata/examplemodels/bym2.data.R"

type scotland struct {
	raw          []byte
	n            int
	node1, node2 []int // 0-based
	y, e, x      []float64
	scaling      float64 // the file's, computed by INLA
}

func readScotland(t *testing.T) scotland {
	t.Helper()
	raw, err := os.ReadFile(scotlandFile)
	if err != nil {
		t.Fatal(err)
	}
	set, err := data.ReadRDump("bym2.data.R", strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	s := scotland{raw: raw, n: int(set["N"].Values[0]), y: set["y"].Values, e: set["E"].Values, scaling: set["scaling_factor"].Values[0]}
	for k, v := range set["node1"].Values {
		s.node1 = append(s.node1, int(v)-1)
		s.node2 = append(s.node2, int(set["node2"].Values[k])-1)
	}
	xs := set["x"] // N×2, row-major
	for i := range s.n {
		s.x = append(s.x, xs.Values[i*xs.Shape[1]])
	}
	return s
}

// icarScalingFactor is BYM2's scaling factor (Riebler et al. 2016): the
// geometric mean of the marginal variances of the ICAR field, whose
// precision Q = D − A (D the node degrees, A the adjacency) is singular
// along the constant vector, under the constraint Σφ = 0. Those variances
// are the diagonal of Q's generalised inverse Σ_{λ_k > 0} v_k v_kᵀ / λ_k
// over Q's eigenpairs (a connected graph: one zero eigenvalue). jitter is
// added to every λ_k as the case study adds max(diag Q)·√ε to Q's
// diagonal before INLA's constrained inverse (inla.qinv with A = 1ᵀ,
// e = 0), which comes to the same sum with λ_k + jitter.
func icarScalingFactor(t *testing.T, n int, node1, node2 []int, jitter float64) float64 {
	q := mat.NewSymDense(n, nil)
	for k := range node1 {
		i, j := node1[k], node2[k]
		q.SetSym(i, j, q.At(i, j)-1)
		q.SetSym(i, i, q.At(i, i)+1)
		q.SetSym(j, j, q.At(j, j)+1)
	}
	var es mat.EigenSym
	if !es.Factorize(q, true) {
		t.Fatal("the ICAR precision's eigendecomposition failed")
	}
	vals := es.Values(nil)
	if vals[0] > 1e-9 || vals[1] < 1e-6 {
		t.Fatalf("eigenvalues %.3g, %.3g: the graph is not connected", vals[0], vals[1])
	}
	var v mat.Dense
	es.VectorsTo(&v)
	logSum := 0.0
	for i := range n {
		d := 0.0
		for k := 1; k < n; k++ {
			d += v.At(i, k) * v.At(i, k) / (vals[k] + jitter)
		}
		logSum += math.Log(d)
	}
	return math.Exp(logSum / float64(n))
}

// TestBYM2ScalingFactor: the scaling factor computed here from the edges
// of the file agrees with the one the case study computed with INLA and
// wrote into the file, 0.485317494985636: to 1e-9 with INLA's jitter on
// Q's diagonal, and to 1e-5 without it (the exact generalised inverse).
func TestBYM2ScalingFactor(t *testing.T) {
	s := readScotland(t)
	maxDeg := 0.0
	deg := make([]float64, s.n)
	for k := range s.node1 {
		deg[s.node1[k]]++
		deg[s.node2[k]]++
	}
	for _, d := range deg {
		maxDeg = math.Max(maxDeg, d)
	}
	exact := icarScalingFactor(t, s.n, s.node1, s.node2, 0)
	inla := icarScalingFactor(t, s.n, s.node1, s.node2, maxDeg*math.Sqrt(0x1p-52))
	t.Logf("scaling factor: exact %.15g, with INLA's jitter %.15g, the file's %.15g", exact, inla, s.scaling)
	if math.Abs(inla/s.scaling-1) > 1e-9 {
		t.Errorf("with INLA's jitter %.15g, want the file's %.15g", inla, s.scaling)
	}
	if math.Abs(exact/s.scaling-1) > 1e-5 {
		t.Errorf("exact %.15g, want the file's %.15g within 1e-5", exact, s.scaling)
	}
}

// scotlandICAR is the case study's ICAR Poisson model with the covariate
// on Scotland, written for the file as it is: its 1-based node ids are
// shifted in the model. v repeats phi for the comparison.
const scotlandICAR = `data N: int
data node1: int[N_edges]
data node2: int[N_edges]
data y: int<lower=0>[N]
data E: positive[N]
data x: real[N, K]
param beta0: real ~ Normal(0, 5)
param beta1: real ~ Normal(0, 5)
param sigma: positive ~ Normal(0, 1)
param phi: sum_to_zero_vector[N]
target += -0.5 * dot_self(phi[node1 - 1] - phi[node2 - 1])
y ~ PoissonLog(log(E) + beta0 + beta1 * x[:, 0] + sigma * phi)
output v = phi
`

// scotlandBYM2 is the case study's BYM2 model (bym2_predictor_plus_offset:
// one covariate, priors as in its comparison with INLA), phi a
// sum_to_zero_vector in place of its soft constraint; eta is each area's
// log relative risk, the identified quantity the comparison uses.
const scotlandBYM2 = `data N: int
data node1: int[N_edges]
data node2: int[N_edges]
data y: int<lower=0>[N]
data E: positive[N]
data x: real[N, K]
data scaling_factor: positive
param beta0: real ~ Normal(0, 5)
param beta1: real ~ Normal(0, 5)
param sigma: positive ~ Normal(0, 1)
param rho: unit ~ Beta(0.5, 0.5)
param theta: real[N] ~ Normal(0, 1)
param phi: sum_to_zero_vector[N]
target += -0.5 * dot_self(phi[node1 - 1] - phi[node2 - 1])
let convolved = sqrt(1 - rho) * theta + sqrt(rho / scaling_factor) * phi
let eta = beta0 + beta1 * x[:, 0] + sigma * convolved
y ~ PoissonLog(log(E) + eta)
output re = eta
`

// fieldOf maps free coordinates to a zero-sum field of n: (u_1, …,
// u_{n−1}, −Σu), a linear map onto the plane other than gpp's isometric
// transform, with constant Jacobian.
func fieldOf(u []float64, n int) []float64 {
	phi := make([]float64, n)
	s := 0.0
	for i, v := range u[:n-1] {
		phi[i] = v
		s += v
	}
	phi[n-1] = -s
	return phi
}

// TestICARScotlandReference: the ICAR Poisson model fitted on the case
// study's R dump file as it is, against an adaptive Metropolis reference
// of 1.5·10⁶ steps written apart from gpp (phi as fieldOf's coordinates).
// Full-rank, every phi's, beta0's and beta1's mean is within 0.2
// reference sds (0.07 measured) and its sd within [0.8, 1.15] of the
// reference's (0.87–1.03), sigma's mean within 0.3 sds (0.18) and its sd
// within [0.55, 1.2] (0.67: a hierarchical scale's skew); mean-field,
// every mean within 0.35 sds (0.30, sigma's).
func TestICARScotlandReference(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model and runs a Metropolis reference")
	}
	s := readScotland(t)
	n := s.n
	logp := func(u []float64) float64 {
		beta0, beta1, sigma := u[0], u[1], math.Exp(u[2])
		l := -(beta0*beta0+beta1*beta1)/50 - sigma*sigma/2 + u[2]
		phi := fieldOf(u[3:], n)
		for k := range s.node1 {
			d := phi[s.node1[k]] - phi[s.node2[k]]
			l -= d * d / 2
		}
		for i, y := range s.y {
			eta := math.Log(s.e[i]) + beta0 + beta1*s.x[i] + sigma*phi[i]
			l += y*eta - math.Exp(eta)
		}
		return l
	}
	f := func(u []float64) []float64 {
		return append([]float64{u[0], u[1], math.Exp(u[2])}, fieldOf(u[3:], n)...)
	}
	x0 := make([]float64, n+2)
	x0[2] = -0.5
	start := time.Now()
	mean, sd := adaptiveMetropolis(logp, x0, f, 1500000, 5)
	t.Logf("reference: %v", time.Since(start))
	names := []string{"beta0", "beta1", "sigma"}
	for i := range n {
		names = append(names, fmt.Sprintf("v[%d]", i+1))
	}
	start = time.Now()
	fr := fitSource(t, scotlandICAR, "scotland.data.R", s.raw, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"beta0", "beta1", "sigma", "phi"}}})
	t.Logf("full-rank fit: %v", time.Since(start))
	compareRef(t, "full-rank", fr, names[:2], mean[:2], sd[:2], 0.2, 0.8, 1.15)
	compareRef(t, "full-rank", fr, names[3:], mean[3:], sd[3:], 0.2, 0.8, 1.15)
	compareRef(t, "full-rank", fr, names[2:3], mean[2:3], sd[2:3], 0.3, 0.55, 1.2)
	start = time.Now()
	mf := fitSource(t, scotlandICAR, "scotland.data.R", s.raw, sgvb.Settings{Seed: 1})
	t.Logf("mean-field fit: %v", time.Since(start))
	compareRef(t, "mean-field", mf, names, mean, sd, 0.35, 0, math.Inf(1))
}

// TestBYM2ScotlandReference: BYM2 on the case study's R dump file, with
// the scaling factor computed here, against an adaptive Metropolis
// reference of 3·10⁶ steps written apart from gpp (rho on the logit scale
// with its Jacobian, phi as fieldOf's coordinates; a second seed moves its
// summaries by under 0.05 sds). With beta0, beta1, sigma, rho and phi in
// one full-rank factor (theta, 56 more, keeps mean-field factors: a group
// has at most 100 elements), each area's log relative risk eta has its
// mean within 0.3 reference sds and its sd within [0.8, 1.15] of the
// reference's, beta0's and beta1's means within 0.25 sds, sigma's within
// 0.35; mean-field, the same means within 0.3 and 0.35 sds. rho is not
// checked: the reference's is 0.88 ± 0.14, q's 0.99 ± 0.02 with every
// family tried (mean-field, full-rank, low-rank rank 10) — q piles the
// mixing weight at 1, a defect left open (docs/language.md, Spatial
// models).
func TestBYM2ScotlandReference(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model and runs a Metropolis reference")
	}
	s := readScotland(t)
	n := s.n
	sf := icarScalingFactor(t, n, s.node1, s.node2, 0)
	logp := func(u []float64) float64 {
		beta0, beta1, sigma := u[0], u[1], math.Exp(u[2])
		rho := 1 / (1 + math.Exp(-u[3]))
		if rho <= 0 || rho >= 1 {
			return math.Inf(-1)
		}
		// Beta(1/2, 1/2) on rho and the logit's Jacobian rho(1 − rho)
		l := -(beta0*beta0+beta1*beta1)/50 - sigma*sigma/2 + u[2] + 0.5*math.Log(rho) + 0.5*math.Log1p(-rho)
		theta := u[4 : 4+n]
		phi := fieldOf(u[4+n:], n)
		for _, v := range theta {
			l -= v * v / 2
		}
		for k := range s.node1 {
			d := phi[s.node1[k]] - phi[s.node2[k]]
			l -= d * d / 2
		}
		a, b := math.Sqrt(1-rho), math.Sqrt(rho/sf)
		for i, y := range s.y {
			eta := math.Log(s.e[i]) + beta0 + beta1*s.x[i] + sigma*(a*theta[i]+b*phi[i])
			l += y*eta - math.Exp(eta)
		}
		return l
	}
	f := func(u []float64) []float64 {
		beta0, beta1, sigma := u[0], u[1], math.Exp(u[2])
		rho := 1 / (1 + math.Exp(-u[3]))
		out := []float64{beta0, beta1, sigma, rho}
		phi := fieldOf(u[4+n:], n)
		a, b := math.Sqrt(1-rho), math.Sqrt(rho/sf)
		for i := range n {
			out = append(out, beta0+beta1*s.x[i]+sigma*(a*u[4+i]+b*phi[i]))
		}
		return out
	}
	x0 := make([]float64, 2*n+3)
	x0[2] = -0.5
	start := time.Now()
	mean, sd := adaptiveMetropolis(logp, x0, f, 3000000, 6)
	t.Logf("reference: %v", time.Since(start))
	names := []string{"beta0", "beta1", "sigma", "rho"}
	for i := range n {
		names = append(names, fmt.Sprintf("re[%d]", i+1))
	}
	start = time.Now()
	fr := fitSource(t, scotlandBYM2, "scotland.data.R", s.raw, sgvb.Settings{Seed: 1, FullRankGroups: [][]string{{"beta0", "beta1", "sigma", "rho", "phi"}}})
	t.Logf("full-rank fit (theta mean-field): %v", time.Since(start))
	compareRef(t, "full-rank", fr, names[4:], mean[4:], sd[4:], 0.3, 0.8, 1.15)
	compareRef(t, "full-rank", fr, names[:2], mean[:2], sd[:2], 0.25, 0.8, 1.2)
	compareRef(t, "full-rank", fr, names[2:3], mean[2:3], sd[2:3], 0.35, 0.5, 1.2)
	// rho is logged, not checked: q piles it at 1 (the known defect the
	// doc comment names)
	compareRef(t, "full-rank", fr, names[3:4], mean[3:4], sd[3:4], math.Inf(1), 0, math.Inf(1))
	start = time.Now()
	mf := fitSource(t, scotlandBYM2, "scotland.data.R", s.raw, sgvb.Settings{Seed: 1})
	t.Logf("mean-field fit: %v", time.Since(start))
	compareRef(t, "mean-field", mf, names[4:], mean[4:], sd[4:], 0.3, 0, math.Inf(1))
	compareRef(t, "mean-field", mf, names[:3], mean[:3], sd[:3], 0.35, 0, math.Inf(1))
}
