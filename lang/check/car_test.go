package check_test

import "testing"

// CAR's shapes: a vector field, edge lists of one length, known before
// the fit; no replicate. Each a positioned error.
func TestCARShapes(t *testing.T) {
	const head = "data N: int\ndata node1: int[E]\ndata node2: int[E]\ndata m: int[F]\nparam alpha: unit\nparam tau: positive\n"
	for _, c := range []struct{ src, want string }{
		{"param phi: real[N] ~ CAR(alpha, tau, node1, node2)\n", ""},
		{"param phi: real[N, 2] ~ CAR(alpha, tau, node1, node2)\n", "m.gpp:7:7: CAR models a vector [n], the field on the graph's n nodes; `phi` is a matrix [N, 2]"},
		{"param phi: real[N] ~ CAR(alpha, tau, node1, m)\n", "m.gpp:7:45: CAR argument 4 (node2): `m` is [F] but node1 `node1` is [E]: edge k joins node1[k] and node2[k]"},
		{"param phi: real[N] ~ CAR(alpha, tau, node1, node2)\noutput r ~ CAR(alpha, tau, node1, node2)\n", "m.gpp:8:12: CAR has no replicate in gpp: it is a prior on a field param; an output of the field reports its draws"},
	} {
		wantOneError(t, head+c.src, c.want)
	}
}
