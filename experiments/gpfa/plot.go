package gpfa

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/gpplang/gpp/internal/figure"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

const plotDPI = 120

var methodColors = map[string]color.Color{
	MethodGamma:     color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	MethodLognormal: color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	MethodMAP:       color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	MethodGammaWS:   color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	MethodGammaDiag: color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	MethodFA:        color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	"empirical":     color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	"ledoit-wolf":   color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"nonneg-ml":     color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

var methodShapes = map[string]draw.GlyphDrawer{
	MethodGamma:     draw.CircleGlyph{},
	MethodLognormal: draw.TriangleGlyph{},
	MethodMAP:       draw.BoxGlyph{},
	MethodGammaWS:   draw.RingGlyph{},
	MethodGammaDiag: draw.SquareGlyph{},
	MethodFA:        draw.BoxGlyph{},
	"empirical":     draw.CrossGlyph{},
	"ledoit-wolf":   draw.PlusGlyph{},
	"nonneg-ml":     draw.PyramidGlyph{},
}

func colorOf(m string) color.Color {
	if c, ok := methodColors[m]; ok {
		return c
	}
	return color.Black
}

func savePNG(p *plot.Plot, path string, w, h vg.Length) error {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	return figure.WritePNG(c, path)
}

// amariFloor keeps zero errors on a log axis.
const amariFloor = 1e-4

// plotSynthetic draws the Amari error against N (log–log): every fit as a
// faint point, the median over seeds as a line, per method, and the goal.
func plotSynthetic(path string, rows []SyntheticRow, methods []string) error {
	p := plot.New()
	p.Title.Text = "GPFA synthetic (D=50, K=10): loading recovery"
	p.X.Label.Text = "N (observations)"
	p.Y.Label.Text = "Amari error of E[W]"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, true // errors fall with N: the lower left is free
	var ns []int
	seen := map[int]bool{}
	for _, r := range rows {
		if !seen[r.N] {
			seen[r.N] = true
			ns = append(ns, r.N)
		}
	}
	sort.Ints(ns)
	for mi, m := range methods {
		var pts, med plotter.XYs
		for _, r := range rows {
			if r.Method == m {
				// Spread the methods' points a little along N.
				x := float64(r.N) * math.Pow(1.06, float64(mi-1))
				pts = append(pts, plotter.XY{X: x, Y: math.Max(r.Amari, amariFloor)})
			}
		}
		for _, n := range ns {
			a, _ := syntheticStats(rows, m, n)
			if a.n > 0 {
				med = append(med, plotter.XY{X: float64(n), Y: math.Max(a.med, amariFloor)})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		c := colorOf(m)
		r, g, b, _ := c.RGBA()
		sc.GlyphStyle.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x80}
		sc.GlyphStyle.Shape = methodShapes[m]
		sc.GlyphStyle.Radius = vg.Points(2.2)
		ln, lp, err := plotter.NewLinePoints(med)
		if err != nil {
			return err
		}
		ln.Color, lp.Color = c, c
		ln.Width = vg.Points(1.5)
		lp.Shape = methodShapes[m]
		lp.Radius = vg.Points(3.5)
		p.Add(sc, ln, lp)
		p.Legend.Add(m+" (median over seeds)", ln, lp)
	}
	if len(ns) > 0 {
		goal, err := plotter.NewLine(plotter.XYs{{X: float64(ns[0]), Y: SyntheticGoalAmari}, {X: float64(ns[len(ns)-1]), Y: SyntheticGoalAmari}})
		if err != nil {
			return err
		}
		goal.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		goal.Color = color.Gray{Y: 0x60}
		p.Add(goal)
		p.Legend.Add(fmt.Sprintf("goal %.3f at N=%d", SyntheticGoalAmari, SyntheticGoalN), goal)
	}
	p.Add(plotter.NewGrid())
	return savePNG(p, path, 16*vg.Centimeter, 12*vg.Centimeter)
}

// matrixGrid shows a D×K matrix as a heat map: x = factor, y = dimension
// (dimension 0 at the top).
type matrixGrid struct{ m *mat.Dense }

func (g matrixGrid) Dims() (c, r int) { r, c = g.m.Dims(); return c, r }
func (g matrixGrid) Z(c, r int) float64 {
	rows, _ := g.m.Dims()
	return g.m.At(rows-1-r, c)
}
func (g matrixGrid) X(c int) float64 { return float64(c + 1) }
func (g matrixGrid) Y(r int) float64 {
	rows, _ := g.m.Dims()
	return float64(rows - r)
}

// alignColumns permutes the columns of what to the true factors: the
// matched pair with the largest |P_ij| of P = pinv(W)·Ŵ first, greedily.
func alignColumns(w, what *mat.Dense) *mat.Dense {
	d, k := what.Dims()
	var pinv, p mat.Dense
	pseudoInverse(&pinv, w)
	p.Mul(&pinv, what)
	usedT, usedE := make([]bool, k), make([]bool, k)
	perm := make([]int, k) // perm[true factor] = estimated column
	for range k {
		bi, bj, bv := -1, -1, -1.0
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				if !usedT[i] && !usedE[j] && math.Abs(p.At(i, j)) > bv {
					bi, bj, bv = i, j, math.Abs(p.At(i, j))
				}
			}
		}
		usedT[bi], usedE[bj] = true, true
		perm[bi] = bj
	}
	out := mat.NewDense(d, k, nil)
	for i := 0; i < k; i++ {
		for r := 0; r < d; r++ {
			out.Set(r, i, what.At(r, perm[i]))
		}
	}
	return out
}

// plotLoadings draws the true W beside E[W] (columns aligned), on one
// colour scale — the paper's loadings picture.
func plotLoadings(path string, pic *loadingsPicture) error {
	aligned := alignColumns(pic.w, pic.what)
	hi := math.Max(mat.Max(pic.w), mat.Max(aligned))
	lum, err := moreland.NewLuminance([]color.Color{color.RGBA{R: 0x08, G: 0x30, B: 0x6b, A: 0xff}, color.White})
	if err != nil {
		return err
	}
	pal := palette.Reverse(lum) // white (0) to dark blue
	pal.SetMin(0)
	pal.SetMax(hi)
	mk := func(m *mat.Dense, title string) *plot.Plot {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "factor k"
		p.Y.Label.Text = "dimension d"
		hm := plotter.NewHeatMap(matrixGrid{m}, pal.Palette(256))
		hm.Min, hm.Max = 0, hi
		p.Add(hm)
		return p
	}
	left := mk(pic.w, "true W")
	right := mk(aligned, fmt.Sprintf("E[W], %s, N=%d (Amari %.3f)", pic.method, pic.n, pic.amari))
	leg := plot.New()
	leg.HideX()
	leg.Y.Label.Text = "loading"
	leg.Title.Text = " "
	cb := &plotter.ColorBar{ColorMap: pal, Vertical: true}
	leg.Add(cb)
	leg.Y.Min, leg.Y.Max = 0, hi
	const w, h = 22 * vg.Centimeter, 13 * vg.Centimeter
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI))
	dc := draw.New(c)
	cbw := 3 * vg.Centimeter
	main := draw.Crop(dc, 0, -cbw, 0, 0)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter, PadY: vg.Millimeter, PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{left, right}}, tiles, main)
	left.Draw(canvases[0][0])
	right.Draw(canvases[0][1])
	leg.Draw(draw.Crop(dc, w-cbw+vg.Centimeter*0.5, 0, 0, 0))
	return figure.WritePNG(c, path)
}

// plotCyTOF draws the test NLL against n (log x) per method and baseline.
func plotCyTOF(path string, rows []CyTOFRow, methods []string) error {
	p := plot.New()
	p.Title.Text = "GPFA on CyTOF (D=42): held-out perplexity"
	p.X.Label.Text = "n (training rows)"
	p.Y.Label.Text = "test NLL per row (nats)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	all := append(append([]string(nil), methods...), BaselineLedoitWolf, BaselineEmpirical, BaselineNonnegML)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if !math.IsInf(r.NLL, 0) && !math.IsNaN(r.NLL) {
			lo = math.Min(lo, r.NLL)
			if r.Method == BaselineLedoitWolf || r.Method == MethodGamma || r.Method == MethodLognormal {
				hi = math.Max(hi, r.NLL)
			}
		}
	}
	ymax := math.Ceil(hi + 1)
	for _, m := range all {
		var pts plotter.XYs
		off := 0
		for _, r := range rows {
			if r.Method == m && !math.IsInf(r.NLL, 0) && !math.IsNaN(r.NLL) {
				pts = append(pts, plotter.XY{X: float64(r.N), Y: r.NLL})
				if r.NLL > ymax {
					off++
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		label := m
		if off == len(pts) {
			label += " (off scale)"
		} else if off > 0 {
			label += fmt.Sprintf(" (%d off scale)", off)
		}
		ln, lp, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := colorOf(m)
		ln.Color, lp.Color = c, c
		ln.Width = vg.Points(1.5)
		switch m {
		case BaselineEmpirical, BaselineLedoitWolf:
			ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		case BaselineNonnegML:
			ln.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		}
		lp.Shape = methodShapes[m]
		lp.Radius = vg.Points(3.5)
		p.Add(ln, lp)
		p.Legend.Add(label, ln, lp)
	}
	var gxy plotter.XYs
	for _, g := range cytofGoals {
		gxy = append(gxy, plotter.XY{X: float64(g.n), Y: g.goal})
	}
	goals, err := plotter.NewScatter(gxy)
	if err != nil {
		return err
	}
	goals.GlyphStyle.Shape = draw.CrossGlyph{}
	goals.GlyphStyle.Radius = vg.Points(5)
	goals.GlyphStyle.Color = color.Black
	p.Add(goals)
	p.Legend.Add("goals (gamma SGVB)", goals)
	if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
		p.Y.Min, p.Y.Max = math.Floor(math.Min(lo, CyTOFGoalLargeNLL)-0.5), ymax
	}
	p.Add(plotter.NewGrid())
	return savePNG(p, path, 16*vg.Centimeter, 12*vg.Centimeter)
}
