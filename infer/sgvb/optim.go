package sgvb

import "math"

// optim is the state of a gradient-ascent rule over the unconstrained
// parameters. step computes the update Δ into delta (θ ← θ + Δ is left to
// the caller) and advances the state; it does not allocate.
type optim struct {
	kind    Optimizer
	rho     float64 // AdaDelta decay (Zeiler's convention)
	mom     float64 // momentum weight of the new gradient
	eps     float64
	b1, b2  float64 // Adam
	t       int
	v       []float64 // momentum velocity / Adam first moment
	ms      []float64 // mean square of the gradient / Adam second moment
	msx     []float64 // AdaDelta mean square of the updates
	scratch []float64
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

// step writes the ascent update for gradient g and step size eta into delta.
func (o *optim) step(delta, g []float64, eta float64) {
	o.t++
	switch o.kind {
	case SGD:
		for i, gi := range g {
			delta[i] = eta * gi
		}
	case Momentum:
		for i, gi := range g {
			o.v[i] += o.mom * (gi - o.v[i])
			delta[i] = eta * o.v[i]
		}
	case RMSprop:
		for i, gi := range g {
			o.ms[i] = 0.9*o.ms[i] + 0.1*gi*gi
			delta[i] = eta * gi / (o.eps + math.Sqrt(o.ms[i]))
		}
	case AdaGrad:
		for i, gi := range g {
			o.ms[i] += gi * gi
			delta[i] = eta * gi / (o.eps + math.Sqrt(o.ms[i]))
		}
	case AdaDelta, AdaDeltaMomentum:
		rho, eps := o.rho, o.eps
		for i, gi := range g {
			if o.kind == AdaDeltaMomentum { // the paper's code smooths the gradient first
				o.v[i] += o.mom * (gi - o.v[i])
				gi = o.v[i]
			}
			o.ms[i] = rho*o.ms[i] + (1-rho)*gi*gi
			d := gi * math.Sqrt(o.msx[i]+eps) / math.Sqrt(o.ms[i]+eps)
			o.msx[i] = rho*o.msx[i] + (1-rho)*d*d
			delta[i] = eta * d
		}
	case Adam:
		c1 := 1 - math.Pow(o.b1, float64(o.t))
		c2 := 1 - math.Pow(o.b2, float64(o.t))
		for i, gi := range g {
			o.v[i] = o.b1*o.v[i] + (1-o.b1)*gi
			o.ms[i] = o.b2*o.ms[i] + (1-o.b2)*gi*gi
			delta[i] = eta * (o.v[i] / c1) / (math.Sqrt(o.ms[i]/c2) + o.eps)
		}
	}
}
