package nuts

import "math"

// dualAveraging is Nesterov's dual averaging of the log step size as Stan's
// stepsize_adaptation runs it (Hoffman & Gelman 2014, section 3.2).
type dualAveraging struct {
	delta, mu           float64
	gamma, t0, kappa    float64
	counter, sBar, xBar float64
}

func newDualAveraging(delta, mu float64) dualAveraging {
	return dualAveraging{delta: delta, mu: mu, gamma: 0.05, t0: 10, kappa: 0.75}
}

// restart forgets the averages and centres the search at mu.
func (a *dualAveraging) restart(mu float64) {
	a.mu = mu
	a.counter, a.sBar, a.xBar = 0, 0, 0
}

// learn takes one acceptance statistic and returns the next step size.
func (a *dualAveraging) learn(accept float64) float64 {
	a.counter++
	accept = math.Min(accept, 1)
	eta := 1 / (a.counter + a.t0)
	a.sBar = (1-eta)*a.sBar + eta*(a.delta-accept)
	x := a.mu - a.sBar*math.Sqrt(a.counter)/a.gamma
	xEta := math.Pow(a.counter, -a.kappa)
	a.xBar = (1-xEta)*a.xBar + xEta*x
	return math.Exp(x)
}

// final is the step size warm-up ends with: exp of the averaged iterate.
func (a *dualAveraging) final() float64 { return math.Exp(a.xBar) }

// windows is Stan's windowed adaptation of the inverse metric: an initial
// buffer (step size only), a series of doubling windows that each estimate
// the (co)variance of the positions by Welford's algorithm, and a terminal
// buffer (step size only).
type windows struct {
	warmup, initBuf, termBuf, size, next, counter int
	on                                            bool // false: warm-up too short (< 20) to adapt the metric

	dense bool
	d, n  int
	mean  []float64
	m2    []float64 // d (variances) or d×d (covariance)
	delta []float64
	out   []float64
}

// InitBuffer is the number of warm-up iterations at its start, Stan's
// initial buffer, that adapt the step size only while the chain travels
// from its start to where the posterior's mass is: 75, or 15 % of a
// warm-up too short (under 150) for Stan's three windows.
func InitBuffer(warmup int) int {
	if 75+25+50 > warmup {
		return int(0.15 * float64(warmup))
	}
	return 75
}

func newWindows(warmup, d int, dense bool) *windows {
	w := &windows{warmup: warmup, dense: dense, d: d}
	if warmup < 20 {
		return w // Stan: "No adaptation will be performed"
	}
	w.on = true
	w.initBuf, w.termBuf, w.size = InitBuffer(warmup), 50, 25
	if 75+w.size+w.termBuf > warmup {
		w.termBuf = int(0.1 * float64(warmup))
		w.size = warmup - (w.initBuf + w.termBuf)
	}
	w.next = w.initBuf + w.size - 1
	w.mean = make([]float64, d)
	w.delta = make([]float64, d)
	if dense {
		w.m2 = make([]float64, d*d)
		w.out = make([]float64, d*d)
	} else {
		w.m2 = make([]float64, d)
		w.out = make([]float64, d)
	}
	return w
}

func (w *windows) inWindow() bool {
	return w.counter >= w.initBuf && w.counter < w.warmup-w.termBuf && w.counter != w.warmup
}

func (w *windows) endOfWindow() bool {
	return w.counter == w.next && w.counter != w.warmup
}

func (w *windows) computeNext() {
	last := w.warmup - w.termBuf - 1
	if w.next == last {
		return
	}
	w.size *= 2
	w.next = w.counter + w.size
	if w.next != last && w.next+2*w.size >= w.warmup-w.termBuf {
		w.next = last
	}
}

// add adds q to the Welford estimate.
func (w *windows) add(q []float64) {
	w.n++
	n := float64(w.n)
	for i, x := range q {
		w.delta[i] = x - w.mean[i]
		w.mean[i] += w.delta[i] / n
	}
	if !w.dense {
		for i, x := range q {
			w.m2[i] += (x - w.mean[i]) * w.delta[i]
		}
		return
	}
	d := w.d
	for i, x := range q {
		r := x - w.mean[i]
		row := w.m2[i*d : i*d+d]
		for j, dj := range w.delta {
			row[j] += r * dj
		}
	}
}

// learn takes the position after one warm-up iteration and, at the end of a
// window, returns the new regularised inverse metric (else nil): Stan's
// (n/(n+5))·Σ̂ + 10⁻³·(5/(n+5))·I.
func (w *windows) learn(q []float64) []float64 {
	if !w.on {
		return nil
	}
	if w.inWindow() {
		w.add(q)
	}
	if !w.endOfWindow() {
		w.counter++
		return nil
	}
	w.computeNext()
	n := float64(w.n)
	a, b := n/(n+5)/(n-1), 1e-3*5/(n+5)
	for i, m := range w.m2 {
		w.out[i] = a * m
	}
	if w.dense {
		for i := 0; i < w.d; i++ {
			w.out[i*w.d+i] += b
		}
	} else {
		for i := range w.out {
			w.out[i] += b
		}
	}
	w.n = 0
	zero(w.mean)
	zero(w.m2)
	w.counter++
	for _, v := range w.out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
	}
	return w.out
}

// FirstMetric is the number of warm-up iterations before the metric is
// first learned (the initial buffer and the first window): until then a
// chain runs on the initial metric, whose trees may be far deeper than
// the adapted metric's. 0 for a warm-up too short to adapt one.
func FirstMetric(warmup int) int {
	w := newWindows(warmup, 0, false)
	if !w.on {
		return 0
	}
	return w.next + 1 // the first window's last iteration, counted from 0
}
