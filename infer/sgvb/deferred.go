package sgvb

import (
	"runtime"
	"sync/atomic"
)

// deferred is the gamma work of a shared step (split) that the draw does
// not need and the log joint does not read: each gamma element's
// polygammas (dist.GammaShape.Finish: ψ(a), ψ(a+1), ψ₁(a)), the Fisher
// information of the rate cap, and the shape derivative d log x/da of its
// draw, about half of a gamma element's work. splitSample draws with the
// sampler's constants alone and leaves the rest in pieces (chunks) that a
// helper does while it would wait for worker 0's log joint (crew.idle), as
// does worker 0 while it waits for the draw's last segments; the backprop
// does what is left of each of its units before their elements. Each
// piece runs the arithmetic it ran inside the draw, on the same numbers,
// so the results are bit for bit those of the undivided step, whoever
// does which piece.
//
// A chunk's state goes from chunkDone to chunkReady when its segment has
// been drawn, to chunkClaimed when a goroutine takes it (CompareAndSwap),
// and back to chunkDone when its work is written: the atomics order the
// work's writes before the backprop's reads.
type deferred struct {
	chunks []segment // pieces of ≤ chunkElems elements of prepared gamma blocks
	// segChunks[si] … segChunks[si+1] are segment si's chunks.
	segChunks []int
	// units are the pieces that the backprop and update jobs claim:
	// deferrable segments cut into unitElems elements, the other segments
	// whole, in segment order; unitChunks[u] … unitChunks[u+1] are unit u's
	// chunks. Gamma elements' backprop and update are elementwise, so finer
	// pieces than the draw's segments change no number and balance the
	// workers better.
	units      []segment
	unitChunks []int
	state      []atomic.Int32
	ready      atomic.Int32 // chunks in chunkReady (a hint for idle)
	// lx, x hold each draw's log x and x until its derivative (indexed
	// like theta's shape slots).
	lx, x []float64
}

const (
	chunkDone int32 = iota
	chunkReady
	chunkClaimed
)

// chunkElems is the most elements of a chunk: small enough (a few µs)
// that a helper working through chunks takes a product that the log joint
// posts (team) in time, large enough that claiming one costs little.
const chunkElems = 16

// unitElems is the most elements of a unit (see deferred.units), a
// multiple of chunkElems: the update's and backprop's work per element is
// small, so that claiming a unit (an atomic shared by the workers) costs
// little beside it.
const unitElems = 4 * chunkElems

// deferrable reports whether block b's draws leave work for later: gamma
// factors with prepared shapes (dist.Implicit).
func (c *stepCache) deferrable(b *block) bool {
	return b.fam == FamilyGamma && c.shape != nil
}

// initDeferred cuts the segments of deferrable blocks into chunks.
func (e *engine) initDeferred() {
	d := &e.dfr
	d.segChunks = make([]int, 0, len(e.segs)+1)
	for _, sg := range e.segs {
		d.segChunks = append(d.segChunks, len(d.chunks))
		if !e.cache.deferrable(&e.blocks[sg.b]) {
			d.units = append(d.units, sg)
			d.unitChunks = append(d.unitChunks, len(d.chunks))
			continue
		}
		for lo := sg.lo; lo < sg.hi; lo += chunkElems {
			if (lo-sg.lo)%unitElems == 0 {
				d.units = append(d.units, segment{sg.b, lo, min(lo+unitElems, sg.hi)})
				d.unitChunks = append(d.unitChunks, len(d.chunks))
			}
			d.chunks = append(d.chunks, segment{sg.b, lo, min(lo+chunkElems, sg.hi)})
		}
	}
	d.segChunks = append(d.segChunks, len(d.chunks))
	d.unitChunks = append(d.unitChunks, len(d.chunks))
	d.state = make([]atomic.Int32, len(d.chunks))
	if len(d.chunks) > 0 {
		d.lx = make([]float64, e.np)
		d.x = make([]float64, e.np)
	}
}

// drawn marks segment si's chunks ready, once its draws are written.
func (e *engine) drawn(si int) {
	d := &e.dfr
	c0, c1 := d.segChunks[si], d.segChunks[si+1]
	if c0 == c1 {
		return
	}
	for c := c0; c < c1; c++ {
		d.state[c].Store(chunkReady)
	}
	d.ready.Add(int32(c1 - c0))
}

// idle does one ready chunk, the last one first (the backprop claims
// segments from the first), and reports whether there was one. It is the
// helpers' work while they wait for a job (crew.idle).
func (e *engine) idle() bool {
	d := &e.dfr
	if d.ready.Load() <= 0 {
		return false
	}
	for c := len(d.chunks) - 1; c >= 0; c-- {
		if d.state[c].Load() == chunkReady && d.state[c].CompareAndSwap(chunkReady, chunkClaimed) {
			d.ready.Add(-1)
			e.finishChunk(c)
			return true
		}
	}
	return false
}

// settle makes sure that the work of chunks [c0, c1) is done: it does the
// ready ones and waits for those another goroutine has claimed.
func (e *engine) settle(c0, c1 int) {
	d := &e.dfr
	for c := c0; c < c1; c++ {
		if d.state[c].CompareAndSwap(chunkReady, chunkClaimed) {
			d.ready.Add(-1)
			e.finishChunk(c)
			continue
		}
		for d.state[c].Load() != chunkDone {
			runtime.Gosched()
		}
	}
}

// trySettle does the ready chunks of [c0, c1) and reports whether every
// one of them is now done (false: another goroutine is working on one).
func (e *engine) trySettle(c0, c1 int) bool {
	d := &e.dfr
	done := true
	for c := c0; c < c1; c++ {
		if d.state[c].CompareAndSwap(chunkReady, chunkClaimed) {
			d.ready.Add(-1)
			e.finishChunk(c)
		} else if d.state[c].Load() != chunkDone {
			done = false
		}
	}
	return done
}

// finishChunk does chunk c's work and marks it done.
func (e *engine) finishChunk(c int) {
	d := &e.dfr
	ch := d.chunks[c]
	e.cache.finishGamma(&e.blocks[ch.b], ch.lo, ch.hi, d.lx, d.x, e.workers[0].aux)
	d.state[c].Store(chunkDone)
}
