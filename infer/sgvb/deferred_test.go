package sgvb

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// stalling is a poissonGamma whose log joint, in a split step, first waits
// until the helpers have claimed every deferred chunk (wait), so that the
// deferred gamma work runs on a helper while the log joint runs; bad makes
// the log joint of one call NaN (a rejected step, whose deferred work must
// still be finished).
type stalling struct {
	*poissonGamma
	e     *engine
	wait  bool
	calls int
	bad   int // the call that returns NaN (0: none)
	// drained counts the log joints that found every chunk claimed.
	drained int
}

func (t *stalling) LogJoint(x, g []float64) (float64, error) {
	t.calls++
	if t.wait && t.e != nil {
		for deadline := time.Now().Add(time.Second); t.e.dfr.ready.Load() > 0 && time.Now().Before(deadline); {
			runtime.Gosched()
		}
		if t.e.dfr.ready.Load() == 0 {
			t.drained++
		}
	}
	lp, err := t.poissonGamma.LogJoint(x, g)
	if t.calls == t.bad {
		lp = math.NaN()
	}
	return lp, err
}

func (t *stalling) Clone() Target {
	return &stalling{poissonGamma: t.poissonGamma.Clone().(*poissonGamma)}
}

// TestDeferredSameNumbers: a shared step that leaves its gamma work to a
// helper during the log joint (wait), or to the backprop (no wait), takes
// the steps of one worker bit for bit, in both gamma coordinates, with the
// entropy term and STL with control variates, across a rejected step.
func TestDeferredSameNumbers(t *testing.T) {
	for _, v := range []Settings{
		{GammaParam: GammaLogMeanShape},
		{GammaParam: GammaSoftplus, Estimator: Entropy, Optimizer: Adam},
	} {
		var want []float64
		for _, c := range []struct {
			workers int
			wait    bool
		}{{1, false}, {2, true}, {2, false}} {
			pg, lat := newPoissonGamma(1200, 0.1, 1)
			tg := &stalling{poissonGamma: pg, wait: c.wait, bad: 3}
			s := v
			s.Seed, s.Workers = 7, c.workers
			s = s.withDefaults()
			e, err := newEngine(tg, lat, &s)
			if err != nil {
				t.Fatal(err)
			}
			tg.e = e
			if c.workers > 1 && (!e.split() || len(e.dfr.chunks) != 1200/chunkElems) {
				t.Fatalf("split %v with %d chunks, want a split step with %d", e.split(), len(e.dfr.chunks), 1200/chunkElems)
			}
			for it := range 6 {
				ok, _ := e.step(streamStep, it, s.StepSize)
				if ok == (it == 2) {
					t.Fatalf("%+v: step %d ok %v", c, it, ok)
				}
				if n := e.dfr.ready.Load(); n != 0 {
					t.Fatalf("%+v: step %d left %d chunks ready", c, it, n)
				}
			}
			e.close()
			if c.wait && tg.drained == 0 {
				t.Errorf("%+v: the helper did no deferred chunk while the log joint waited", c)
			}
			if want == nil {
				want = append([]float64(nil), e.theta...)
				continue
			}
			for i := range want {
				if math.Float64bits(e.theta[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%v, %+v: theta[%d] = %v, one worker %v", v.GammaParam, c, i, e.theta[i], want[i])
				}
			}
		}
	}
}

// A split step's update moves the control variate by ranges (splitUpdate);
// a step whose update is turned back (a non-finite parameter) leaves the
// control variate and the parameters as they were, bit for bit, and the
// next steps are those of one worker.
func TestSplitCVTurnedBack(t *testing.T) {
	var want []float64
	for _, workers := range []int{1, 2} {
		pg, lat := newPoissonGamma(1200, 0.1, 1)
		s := Settings{Seed: 5, Workers: workers, GammaParam: GammaLogMeanShape}.withDefaults()
		e, err := newEngine(pg, lat, &s)
		if err != nil {
			t.Fatal(err)
		}
		if e.cv == nil || (workers > 1) != e.split() {
			t.Fatalf("%d workers: cv %v, split %v", workers, e.cv != nil, e.split())
		}
		for it := range 3 {
			if ok, _ := e.step(streamStep, it, s.StepSize); !ok {
				t.Fatalf("%d workers: step %d turned back", workers, it)
			}
		}
		cv0, th0 := append([]float64(nil), e.cv...), append([]float64(nil), e.theta...)
		v, ms, msx := e.opt.v[7], e.opt.ms[7], e.opt.msx[7]
		e.opt.ms[7] = math.NaN() // the update of coordinate 7 is NaN
		if ok, _ := e.step(streamStep, 3, s.StepSize); ok {
			t.Fatalf("%d workers: a NaN update was taken", workers)
		}
		for i := range cv0 { // cv's second half too: cvCoef's weighted record
			if math.Float64bits(e.cv[i]) != math.Float64bits(cv0[i]) {
				t.Fatalf("%d workers: cv[%d] %v after the turned-back step, before %v", workers, i, e.cv[i], cv0[i])
			}
		}
		for i := range th0 {
			if math.Float64bits(e.theta[i]) != math.Float64bits(th0[i]) {
				t.Fatalf("%d workers: theta[%d] %v after the turned-back step, before %v", workers, i, e.theta[i], th0[i])
			}
		}
		e.opt.v[7], e.opt.ms[7], e.opt.msx[7] = v, ms, msx // the NaN's trail
		for it := 4; it < 7; it++ {
			if ok, _ := e.step(streamStep, it, s.StepSize); !ok {
				t.Fatalf("%d workers: step %d turned back", workers, it)
			}
		}
		e.close()
		got := append(append([]float64(nil), e.theta...), e.cv...)
		if want == nil {
			want = got
			continue
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("2 workers: [%d] = %v, one worker %v", i, got[i], want[i])
			}
		}
	}
}
