package dist

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

var benchShapes = []float64{1e-3, 0.01, 0.1, 1, 10, 100, 1e3, 1e4}

var benchSink float64

// BenchmarkGammaSampleGrad measures one draw plus its shape gradient, the
// per-latent cost of a gamma SGVB step.
func BenchmarkGammaSampleGrad(b *testing.B) {
	for _, m := range []struct {
		name string
		g    GammaGradient
	}{{"implicit", Implicit{}}, {"paper", Paper{}}} {
		for _, a := range benchShapes {
			b.Run(m.name+"/a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				for b.Loop() {
					_, d := m.g.SampleLog(a, rng)
					benchSink += d
				}
			})
		}
	}
}

// BenchmarkGammaShape measures the prepared path: "prepare+draw" is
// NewGammaShape(a) and one draw per op (one draw per shape and step, ψ₁(a)
// included, which SGVB needs anyway), "draw" a draw from a prepared shape
// (several draws per step).
func BenchmarkGammaShape(b *testing.B) {
	for _, a := range benchShapes {
		b.Run("prepare+draw/a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				g := NewGammaShape(a)
				_, d := g.SampleLog(rng)
				benchSink += d + g.Trigamma
			}
		})
	}
	for _, a := range benchShapes {
		b.Run("draw/a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			g := NewGammaShape(a)
			b.ReportAllocs()
			for b.Loop() {
				_, d := g.SampleLog(rng)
				benchSink += d
			}
		})
	}
}

// BenchmarkGammaShapeDeferred measures SGVB's shared step's divided path
// per shape: NewGammaShapeDraw and SampleLogX, then the polygammas and the
// derivative by Finish and DLogXDA ("finish") or by FinishDLogXDA ("lazy",
// which skips the digammas the derivative does not read).
func BenchmarkGammaShapeDeferred(b *testing.B) {
	for _, lazy := range []bool{false, true} {
		name := "finish"
		if lazy {
			name = "lazy"
		}
		for _, a := range benchShapes {
			b.Run(name+"/a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				for b.Loop() {
					g := NewGammaShapeDraw(a)
					l, x := g.SampleLogX(rng)
					var d float64
					if lazy {
						d = g.FinishDLogXDA(l, x)
					} else {
						g.Finish()
						d = g.DLogXDA(l, x)
					}
					benchSink += d + g.Trigamma
				}
			})
		}
	}
}

// BenchmarkGammaShapeValue measures a draw from a prepared shape without
// its shape derivative (SampleLogValue, the ELBO estimates' draws), beside
// BenchmarkGammaShape's draw/a=… with it.
func BenchmarkGammaShapeValue(b *testing.B) {
	for _, a := range benchShapes {
		b.Run("a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			g := NewGammaShape(a)
			b.ReportAllocs()
			for b.Loop() {
				benchSink += g.SampleLogValue(rng)
			}
		})
	}
}

// BenchmarkPolygamma measures Digamma and Trigamma by argument.
func BenchmarkPolygamma(b *testing.B) {
	for _, f := range []struct {
		name string
		f    func(float64) float64
	}{{"digamma", Digamma}, {"trigamma", Trigamma}} {
		for _, x := range []float64{0.01, 1, 5, 20} {
			b.Run(f.name+"/x="+strconv.FormatFloat(x, 'g', -1, 64), func(b *testing.B) {
				for b.Loop() {
					benchSink += f.f(x)
				}
			})
		}
	}
}

// BenchmarkGammaSample and BenchmarkGammaGrad split the implicit method's
// cost into the draw and the gradient.
func BenchmarkGammaSample(b *testing.B) {
	for _, a := range benchShapes {
		b.Run("a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				benchSink += SampleGammaLog(a, rng)
			}
		})
	}
}

func BenchmarkGammaGrad(b *testing.B) {
	for _, a := range benchShapes {
		b.Run("a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			xs := make([]float64, 1024)
			for i := range xs {
				xs[i] = SampleGammaLog(a, rng)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				benchSink += GammaDLogXDA(a, xs[i&1023])
				i++
			}
		})
	}
}

func BenchmarkUnivariateKernel(b *testing.B) {
	for i, u := range Univariates {
		b.Run(u.Name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, uint64(i)))
			p := uniCases[i].params(rng)
			x := uniCases[i].value(p, rng)
			dp := make([]float64, len(p))
			b.ReportAllocs()
			for b.Loop() {
				lp, dx := u.Kernel(x, p, dp)
				benchSink += lp + dx
			}
		})
	}
}

func BenchmarkMvNormalRowsGrad(b *testing.B) {
	for _, d := range []int{10, 50} {
		b.Run("D="+strconv.Itoa(d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(4, 5))
			sigma := randSPD(d, rng)
			mu := randVec(d, rng, 1)
			y := make([]float64, 100*d)
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			s := NewRowStats(y, d)
			w := NewMvWork(d)
			dmu, ds := make([]float64, d), make([]float64, d*d)
			b.ReportAllocs()
			for b.Loop() {
				v, _ := MvNormalRows{mu, sigma}.Grad(dmu, ds, s, w)
				benchSink += v
			}
		})
	}
}

// BenchmarkHoistedKernel times each hoisted kernel against its Kernel over
// 1024 elements whose hoisted arguments are one value and whose other
// arguments change from element to element (uniCases' draws), Prepare
// once per pass as a density node calls it: the per-element cost without
// the tape's (BenchmarkDensityHoisted in lang/autodiff has both). ns per
// element.
func BenchmarkHoistedKernel(b *testing.B) {
	const n = 1024
	for i, u := range Univariates {
		h := u.Hoisted
		if h == nil {
			continue
		}
		rng := rand.New(rand.NewPCG(5, uint64(i)))
		np := len(u.Params)
		shared := uniCases[i].params(rng)
		ps, xs := make([]float64, n*np), make([]float64, n)
		for j := range xs {
			p := ps[j*np : (j+1)*np]
			copy(p, uniCases[i].params(rng))
			for a := range p {
				if h.HoistArgs()&(1<<a) != 0 {
					p[a] = shared[a]
				}
			}
			xs[j] = uniCases[i].value(p, rng)
		}
		state, dp := make([]float64, h.StateLen()), make([]float64, np)
		for _, hoist := range []bool{true, false} {
			name := u.Name + "/hoisted"
			if !hoist {
				name = u.Name + "/kernel"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if hoist {
						h.Prepare(ps[:np], state)
					}
					for j, x := range xs {
						p := ps[j*np : (j+1)*np]
						var lp, dx float64
						if hoist {
							lp, dx = h.Eval(x, p, state, dp)
						} else {
							lp, dx = u.Kernel(x, p, dp)
						}
						benchSink += lp + dx + dp[0]
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
			})
		}
	}
}

// BenchmarkGammaFinishDLogXDA measures FinishDLogXDA alone (SGVB's deferred
// gamma work per element: the polygammas and the shape derivative) on
// draws made beforehand, by shape.
func BenchmarkGammaFinishDLogXDA(b *testing.B) {
	for _, a := range benchShapes {
		b.Run("a="+strconv.FormatFloat(a, 'g', -1, 64), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			g := NewGammaShapeDraw(a)
			var lx, xs [1024]float64
			for i := range lx {
				lx[i], xs[i] = g.SampleLogX(rng)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				f := NewGammaShapeDraw(a)
				benchSink += f.FinishDLogXDA(lx[i&1023], xs[i&1023]) + f.Trigamma
				i++
			}
		})
	}
}
