package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sameBits reports whether a and b are the same float64, bit for bit.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// ForwardJoint gives LogJoint's value bit for bit on the mixed program
// (every fused op, a log-scale prepared density reading exp(W) from
// another node), whatever point the program was last evaluated at, skips
// the outputs and allocates nothing.
func TestForwardJointMatchesLogJoint(t *testing.T) {
	p, x0 := mixedProgram(t)
	r := rand.New(rand.NewPCG(3, 4))
	points := [][]float64{x0}
	for range 4 {
		x := make([]float64, p.Dim())
		for i := range x {
			x[i] = 0.5 * r.NormFloat64()
		}
		points = append(points, x)
	}
	grad := make([]float64, p.Dim())
	var outputs []int32 // the live nodes that only outputs read
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live && n.dyn && !n.joint {
			outputs = append(outputs, int32(i))
		}
	}
	if len(outputs) == 0 {
		t.Fatal("mixed program has no output nodes")
	}
	for k, x := range points {
		// the previous point's values are on the tape: nothing may be
		// read from them
		prev := points[(k+len(points)-1)%len(points)]
		if _, err := p.LogJoint(prev, grad); err != nil {
			t.Fatal(err)
		}
		before := make([]int64, len(outputs))
		for j, i := range outputs {
			before[j] = p.evals[i]
		}
		got, err := p.ForwardJoint(x)
		if err != nil {
			t.Fatalf("point %d: %v", k, err)
		}
		for j, i := range outputs {
			if p.evals[i] != before[j] {
				t.Errorf("point %d: ForwardJoint evaluated output node %d (%s)", k, i, p.nodes[i].op)
			}
		}
		want, err := p.LogJoint(x, grad)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(got, want) {
			t.Errorf("point %d: ForwardJoint %v, LogJoint %v", k, got, want)
		}
	}
	if a := testing.AllocsPerRun(100, func() { p.ForwardJoint(x0) }); a != 0 {
		t.Errorf("ForwardJoint allocates %v times per call, want 0", a)
	}
}

// A log-scale prepared density reads exp(w) from a node that only an
// output needs otherwise: ForwardJoint evaluates that node too.
func TestForwardJointReadsExpOfOutput(t *testing.T) {
	b := NewBuilder()
	w := b.Input("w", Vector(3), testPos)
	a := b.Input("a", Scalar(), testPos)
	ew := b.Exp(w, testPos)
	out := b.Mul(ew, b.Scalar(2, testPos), testPos)
	shape := b.Exp(a, testPos)
	root := b.Add(b.DensityPrepared(testGammaLog, gammaLogPrepared{}, w, []ID{shape, b.Scalar(1.5, testPos)}, testPos),
		b.Density(testNormal, a, []ID{b.Scalar(0, testPos), b.Scalar(1, testPos)}, testPos), testPos)
	p, err := b.Finish(root, out)
	if err != nil {
		t.Fatal(err)
	}
	e := &p.nodes[p.index(ew)]
	if e.joint || !e.live {
		t.Fatalf("exp(w) is joint %v, live %v; the test wants it read by the output alone", e.joint, e.live)
	}
	reads := false
	for i := range p.nodes {
		reads = reads || p.nodes[i].live && p.nodes[i].expOf-1 == p.index(ew)
	}
	if !reads {
		t.Fatal("the prepared density does not read exp(w) from the tape")
	}
	grad := make([]float64, p.Dim())
	xa, xb := []float64{0.1, -0.4, 0.7, 0.3}, []float64{-1.2, 0.5, 0.2, -0.6}
	want, err := p.LogJoint(xb, grad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.LogJoint(xa, grad); err != nil {
		t.Fatal(err)
	}
	got, err := p.ForwardJoint(xb)
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(got, want) {
		t.Errorf("ForwardJoint %v, LogJoint %v", got, want)
	}
	if n := p.Evals(out); n != 2 {
		t.Errorf("the output was evaluated %d times, want 2 (by the two LogJoints alone)", n)
	}
}

// Where the log joint fails, ForwardJoint returns Forward's error.
func TestForwardJointError(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Vector(2), testPos)
	root := b.Sum(b.Log(x, testPos), testPos)
	p, err := b.Finish(root, b.Exp(x, testPos))
	if err != nil {
		t.Fatal(err)
	}
	pt := []float64{1, -1}
	v1, err1 := p.Forward(pt)
	v2, err2 := p.ForwardJoint(pt)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("ForwardJoint's error %v, Forward's %v; want the same error", err2, err1)
	}
	if !math.IsNaN(v1) || !math.IsNaN(v2) {
		t.Errorf("values %v and %v, want NaN", v1, v2)
	}
}
