package sgvb

import "math"

// optim is the state of a gradient-ascent rule over the unconstrained
// parameters. A step is begin, then update over ranges of coordinates,
// which writes the update Δ into delta (θ ← θ + Δ is left to the caller)
// and advances their state; it does not allocate.
type optim struct {
	kind   Optimizer
	rho    float64 // AdaDelta decay (Zeiler's convention)
	mom    float64 // momentum weight of the new gradient
	eps    float64
	b1, b2 float64 // Adam
	t      int
	c1, c2 float64   // Adam's bias corrections for step t
	v      []float64 // momentum velocity / Adam first moment
	ms     []float64 // mean square of the gradient / Adam second moment
	msx    []float64 // AdaDelta mean square of the updates
}

func newOptim(kind Optimizer, np int, rho, mom float64) *optim {
	o := &optim{kind: kind, rho: rho, mom: mom, b1: 0.9, b2: 0.999}
	switch kind {
	case AdaDelta, AdaDeltaMomentum:
		o.eps = 1e-4
	case Adam:
		o.eps = 1e-8
	default:
		o.eps = 1e-6
	}
	o.v = make([]float64, np)
	o.ms = make([]float64, np)
	o.msx = make([]float64, np)
	return o
}

func (o *optim) reset() {
	o.t = 0
	clear(o.v)
	clear(o.ms)
	clear(o.msx)
}

// begin advances the step count; update then computes the step's update
// for coordinates [lo, hi). Every rule is elementwise, so the workers can
// update disjoint ranges of one step at once with the numbers of one
// update over all coordinates.
func (o *optim) begin() {
	o.t++
	if o.kind == Adam {
		o.c1 = 1 - math.Pow(o.b1, float64(o.t))
		o.c2 = 1 - math.Pow(o.b2, float64(o.t))
	}
}

// update writes the step of coordinates [lo, hi) into delta (see begin).
//
// fisher, if not nil, caps AdaDelta's rate per coordinate: where
// fisher[i] > 0 the step is at most η times the natural-gradient step
// g/fisher[i]. AdaDelta's rate √(E[Δ²] + ε)/√(E[g²] + ε) follows the size
// of recent gradients, not the curvature c: near an optimum the gradient
// is about c·(θ − θ*), and a rate r overshoots whenever r·c > 2. Along a
// direction of curvature far above 1 (the log mean of a gamma factor of
// shape a has curvature about a) the iterate keeps jumping across the
// optimum, many posterior sds wide: a Poisson rate with posterior shape
// 5·10⁶ ended with q's shape 4.1·10⁶ to 5.4·10⁶ by seed. Where q is the
// posterior, q's Fisher information F is that curvature, so the rate 1/F
// is the one that lands on the optimum. The capped step is what AdaDelta
// records, so its memory of past steps sees the steps taken.
func (o *optim) update(delta, g []float64, eta float64, lo, hi int, fisher []float64) {
	g, delta = g[lo:hi], delta[lo:hi]
	if fisher != nil {
		fisher = fisher[lo:hi]
	}
	v, ms, msx := o.v[lo:hi], o.ms[lo:hi], o.msx[lo:hi]
	switch o.kind {
	case SGD:
		for i, gi := range g {
			delta[i] = eta * gi
		}
	case Momentum:
		for i, gi := range g {
			v[i] += o.mom * (gi - v[i])
			delta[i] = eta * v[i]
		}
	case RMSprop:
		for i, gi := range g {
			ms[i] = 0.9*ms[i] + 0.1*gi*gi
			delta[i] = eta * gi / (o.eps + math.Sqrt(ms[i]))
		}
	case AdaGrad:
		for i, gi := range g {
			ms[i] += gi * gi
			delta[i] = eta * gi / (o.eps + math.Sqrt(ms[i]))
		}
	case AdaDelta, AdaDeltaMomentum:
		rho, eps := o.rho, o.eps
		for i, gi := range g {
			if o.kind == AdaDeltaMomentum { // the paper's code smooths the gradient first
				v[i] += o.mom * (gi - v[i])
				gi = v[i]
			}
			ms[i] = rho*ms[i] + (1-rho)*gi*gi
			rate := math.Sqrt(msx[i]+eps) / math.Sqrt(ms[i]+eps)
			if fisher != nil && rate*fisher[i] > 1 {
				rate = 1 / fisher[i]
			}
			d := gi * rate
			msx[i] = rho*msx[i] + (1-rho)*d*d
			delta[i] = eta * d
		}
	case Adam:
		c1, c2 := o.c1, o.c2
		for i, gi := range g {
			v[i] = o.b1*v[i] + (1-o.b1)*gi
			ms[i] = o.b2*ms[i] + (1-o.b2)*gi*gi
			delta[i] = eta * (v[i] / c1) / (math.Sqrt(ms[i]/c2) + o.eps)
		}
	}
}
