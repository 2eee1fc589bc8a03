package sgvb

import (
	"math"
	"math/rand/v2"

	"github.com/gpplang/gpp/dist"
)

// A simplex latent in a full-rank factor (Stan's fullrank ADVI) is normal
// on the K − 1 unconstrained coordinates y of each simplex row, Stan's
// stick-breaking transform (dist.StickBreakLog): its block elements are the
// y, its Target coordinates stay log x, all K (as a Dirichlet factor's).
// sample draws y, then overwrites the row's K coordinates with log x(y);
// the engine adds the log Jacobian of y → x, Σ log x over the row
// (dist.StickBreakLogJac), to each draw's log p and log q as it does a
// logit's (addLogitJac), so the ELBO is of y and the block's entropy the
// normal's; backprop turns ∂log p/∂log x into ∂/∂y (dist.StickBreakGrad).

// stick is one simplex row of a normal-based block: the Target
// coordinates x[off : off+k], the block's elements at x[off : off+k−1]
// while y is drawn.
type stick struct{ off, k int }

// stickElems returns the number of block elements (K − 1 per row) of a
// simplex latent of size coordinates in rows of k.
func stickElems(size, k int) int { return size / k * (k - 1) }

// addSticks appends to b the elements of a simplex latent of size
// coordinates at off in rows of k: their coordinates (y_j at off+r·k+j),
// kinds and rows. b.n is the caller's.
func (b *block) addSticks(off, size, k int) {
	for r := 0; r < size/k; r++ {
		for j := 0; j < k-1; j++ {
			b.coords = append(b.coords, off+r*k+j)
			b.kind = append(b.kind, elStick)
		}
		b.sticks = append(b.sticks, stick{off + r*k, k})
	}
}

// coordSize returns the number of Target coordinates of a block of one
// latent: its elements, or K per K − 1 of a simplex held by sticks.
func (b *block) coordSize() int {
	if b.mem == nil && b.sticks != nil {
		return b.n / (b.k - 1) * b.k
	}
	return b.n
}

// breakSticks overwrites each simplex row's drawn y (at its first K − 1
// coordinates) with the row's K log x.
func (b *block) breakSticks(x []float64) {
	for _, s := range b.sticks {
		dist.StickBreakLog(x[s.off:s.off+s.k], x[s.off:s.off+s.k-1])
	}
}

// stickGrad turns the gradient g in the log x of each simplex row at x
// into the gradient in its y, over the row's first K − 1 slots.
func (b *block) stickGrad(x, g []float64) {
	for _, s := range b.sticks {
		dist.StickBreakGrad(g[s.off:s.off+s.k], x[s.off:s.off+s.k])
	}
}

// elems writes the block's element values at the Target coordinates x into
// dst (len n): x itself, the y of each simplex row (dist.StickBreakCoords).
func (b *block) elems(dst, x []float64) {
	for i := range b.n {
		if b.kind == nil || b.kind[i] != elStick {
			dst[i] = x[b.at(i)]
		}
	}
	i := 0
	for _, s := range b.sticks {
		for i < b.n && (b.kind[i] != elStick || b.at(i) != s.off) {
			i++
		}
		dist.StickBreakCoords(dst[i:i+s.k-1], x[s.off:s.off+s.k])
		i += s.k - 1
	}
}

// stickStart writes into dst the y of latent l's simplex rows of k at its
// Init (each row's positive entries normalised), or 0, the centre 1/K.
func stickStart(l *Latent, k int, dst []float64) {
	lx := make([]float64, k)
	for r := 0; r < len(dst)/(k-1); r++ {
		y := dst[r*(k-1) : (r+1)*(k-1)]
		clear(y)
		if l.Init == nil || len(l.Init) < (r+1)*k {
			continue
		}
		row, sum, ok := l.Init[r*k:(r+1)*k], 0.0, true
		for _, v := range row {
			ok = ok && isPos(v)
			sum += v
		}
		if !ok || !finite(sum) {
			continue
		}
		for j, v := range row {
			lx[j] = math.Log(v / sum)
		}
		dist.StickBreakCoords(y, lx)
	}
}

// stickMomentDraws is the number of draws, from a fixed seed, of the
// moments of a simplex under a full-rank factor (stickMoments): no closed
// form; the error of a mean is about sd/100.
const stickMomentDraws = 10000

// stickMoments writes the mean and sd of the simplex values of a full-rank
// factor f of a simplex latent (Params over its K − 1 coordinates per row)
// into mean and sd (len Size), by stickMomentDraws draws from a fixed seed:
// the same factor gives the same numbers.
func (f *Factor) stickMoments(mean, sd []float64) {
	k := f.Shape[len(f.Shape)-1]
	p := f.Params
	n := len(p[0])
	rng := rand.New(rand.NewPCG(0x5354, 0x49434b))
	e, y, lx := make([]float64, n), make([]float64, n), make([]float64, k)
	s1, s2 := make([]float64, len(mean)), make([]float64, len(mean))
	for range stickMomentDraws {
		for i := range n {
			e[i] = rng.NormFloat64()
		}
		for i := range n {
			v := p[0][i]
			for j := 0; j <= i; j++ {
				v += p[1+j][i] * e[j]
			}
			y[i] = v
		}
		for r := 0; r < n/(k-1); r++ {
			dist.StickBreakLog(lx, y[r*(k-1):(r+1)*(k-1)])
			for j, v := range lx {
				x := math.Exp(v)
				s1[r*k+j] += x
				s2[r*k+j] += x * x
			}
		}
	}
	for i := range mean {
		m := s1[i] / stickMomentDraws
		mean[i], sd[i] = m, math.Sqrt(math.Max(s2[i]/stickMomentDraws-m*m, 0))
	}
}
