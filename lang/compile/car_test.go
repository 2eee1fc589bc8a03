package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// carEdgesInput is a 6-node graph with a triangle (0-1-2) and a tail
// (2-3-4-5, 5-0), not bipartite, so 1/λ_min < −1; and its adjacency W and
// degrees D written out, for the dense MvNormalPrec it must equal.
func carEdgesInput(n1, n2 []float64, n int) data.Input {
	w := make([]float64, n*n)
	d := make([]float64, n)
	for k := range n1 {
		a, b := int(n1[k]), int(n2[k])
		if a >= n || b >= n { // 1-based ids, for the error
			continue
		}
		w[a*n+b], w[b*n+a] = 1, 1
		d[a]++
		d[b]++
	}
	return data.Input{File: "g.json", JSON: map[string]*data.Array{
		"node1": {Name: "node1", Shape: []int{len(n1)}, Values: n1, Int: true},
		"node2": {Name: "node2", Shape: []int{len(n2)}, Values: n2, Int: true},
		"W":     {Name: "W", Shape: []int{n, n}, Values: w},
		"D":     {Name: "D", Shape: []int{n}, Values: d},
	}}
}

var carNode1, carNode2 = []float64{0, 1, 0, 2, 3, 4, 5}, []float64{1, 2, 2, 3, 4, 5, 0}

// CAR(alpha, tau, node1, node2) is MvNormalPrec(0, tau (D − alpha W)):
// the log joint and each partial agree to 1e-10 (alpha a unit param, and
// a param bounded in (−1, 1), negative alpha included), and the gradient
// matches finite differences (gonum's fd).
func TestCARMatchesMvNormalPrec(t *testing.T) {
	in := carEdgesInput(carNode1, carNode2, 6)
	rng := rand.New(rand.NewPCG(11, 5))
	for _, alpha := range []string{"unit", "real<lower=-1, upper=1>"} {
		t.Run(alpha, func(t *testing.T) {
			head := "data node1: int[E]\ndata node2: int[E]\ndata W: real[N, N]\ndata D: real[N]\nparam alpha: " + alpha + "\nparam tau: positive ~ Gamma(2, 1)\n"
			mc := compileSrc(t, "car.gpp", head+"param phi: real[N] ~ CAR(alpha, tau, node1, node2)\n", nil, in)
			mp := compileSrc(t, "prec.gpp", head+"param phi: real[N] ~ MvNormalPrec(0, tau * (diag(D) - alpha * W))\n", nil, in)
			if mc.Dim != mp.Dim {
				t.Fatalf("Dim %d, MvNormalPrec's %d", mc.Dim, mp.Dim)
			}
			x := make([]float64, mc.Dim)
			gc, gp := make([]float64, mc.Dim), make([]float64, mc.Dim)
			for trial := range 4 {
				fillNormal(x, rng, 0, 1)
				vc, err := mc.LogJoint(x, gc)
				if err != nil {
					t.Fatal(err)
				}
				vp, err := mp.LogJoint(x, gp)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(vc-vp) > 1e-10*max(1, math.Abs(vp)) {
					t.Errorf("trial %d: log joint %.17g, MvNormalPrec %.17g", trial, vc, vp)
				}
				for i := range gc {
					if math.Abs(gc[i]-gp[i]) > 1e-10*max(1, math.Abs(gp[i])) {
						t.Errorf("trial %d: d/dx[%d] (%s) = %.17g, MvNormalPrec %.17g", trial, i, mc.LatentOf(i), gc[i], gp[i])
					}
				}
			}
			checkGradient(t, mc, 7, 1)
		})
	}
}

// A graph that is wrong is an error when the model compiles, positioned,
// naming the node or edge: a node in no edge, 1-based ids (with the
// shift), an edge from a node to itself, an edge listed twice; an alpha
// that makes D − alpha W indefinite is an error at the fit, naming CAR's
// call and the range of alpha this graph allows.
func TestCARErrors(t *testing.T) {
	const src = "data node1: int[E]\ndata node2: int[E]\nparam tau: positive ~ Gamma(2, 1)\nparam phi: real[6] ~ CAR(0.5, tau, node1, node2)\n"
	for _, c := range []struct {
		name   string
		n1, n2 []float64
		want   string
	}{
		{"isolated", []float64{0, 1, 0, 2, 3}, []float64{1, 2, 2, 3, 4}, "node 5 is in no edge of node1/node2"},
		{"one-based", []float64{1, 2, 1, 3, 4, 5, 6}, []float64{2, 3, 3, 4, 5, 6, 1}, "pass node1 - 1 and node2 - 1"},
		{"self", []float64{0, 1, 0, 2, 3, 4, 5, 3}, []float64{1, 2, 2, 3, 4, 5, 0, 3}, "edge 7 joins node 3 to itself"},
		{"twice", []float64{0, 1, 0, 2, 3, 4, 5, 2}, []float64{1, 2, 2, 3, 4, 5, 0, 1}, "edge 7 joins nodes 2 and 1 again (first as edge 1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := compileSrcErr(t, "car.gpp", src, nil, carEdgesInput(c.n1, c.n2, 6))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), ":") {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	// a constant alpha fails when the model compiles, a param's at the fit
	want := func(err error) bool {
		return err != nil && strings.Contains(err.Error(), "car.gpp:4:22: log1m: argument 1.25 > 1") &&
			strings.Contains(err.Error(), "(in CAR at car.gpp:4:22: alpha must lie strictly between 1/λ_min = -1.21076 and 1/λ_max = 1, ")
	}
	_, err := compileSrcErr(t, "car.gpp", strings.Replace(src, "CAR(0.5", "CAR(1.25", 1), nil, carEdgesInput(carNode1, carNode2, 6))
	if !want(err) {
		t.Errorf("alpha 1.25: got %v, want a positioned error naming CAR and alpha's range", err)
	}
	m := compileSrc(t, "car.gpp", "data node1: int[E]\ndata node2: int[E]\nparam a: real<lower=-2, upper=2>\nparam phi: real[6] ~ CAR(a, 1, node1, node2)\n", nil, carEdgesInput(carNode1, carNode2, 6))
	x := make([]float64, m.Dim)
	x[0] = math.Log(0.8125 / 0.1875) // a = −2 + 4 inv_logit(x[0]) = 1.25
	_, err = m.LogJoint(x, make([]float64, m.Dim))
	if !want(err) {
		t.Errorf("param a = 1.25: got %v, want a positioned error naming CAR and alpha's range", err)
	}
}

// corridorGraph is the road-safety trial's graph: 8 corridors of 50
// segments, each a path, the corridors joined end to start (399 edges).
func corridorGraph() (n1, n2 []float64) {
	for c := range 8 {
		for s := range 49 {
			n1, n2 = append(n1, float64(c*50+s)), append(n2, float64(c*50+s+1))
		}
		if c > 0 {
			n1, n2 = append(n1, float64(c*50-1)), append(n2, float64(c*50))
		}
	}
	return n1, n2
}

// BenchmarkCAR400 is one log joint and gradient of a proper CAR field on
// 400 nodes (corridorGraph), by CAR and by the dense MvNormalPrec of the
// same precision (a Cholesky factor of a 400 × 400 matrix each time).
func BenchmarkCAR400(b *testing.B) {
	n1, n2 := corridorGraph()
	in := carEdgesInput(n1, n2, 400)
	const head = "data node1: int[E]\ndata node2: int[E]\ndata W: real[N, N]\ndata D: real[N]\nparam alpha: unit ~ Beta(2, 1)\nparam tau: positive ~ Gamma(2, 0.1)\n"
	for _, c := range []struct{ name, prior string }{
		{"CAR", "CAR(alpha, tau, node1, node2)"},
		{"MvNormalPrec", "MvNormalPrec(0, tau * (diag(D) - alpha * W))"},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := compileSrc(b, "car.gpp", head+"param phi: real[N] ~ "+c.prior+"\n", nil, in)
			x := make([]float64, m.Dim)
			fillNormal(x, rand.New(rand.NewPCG(1, 2)), 0, 0.3)
			g := make([]float64, m.Dim)
			for b.Loop() {
				if _, err := m.LogJoint(x, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
