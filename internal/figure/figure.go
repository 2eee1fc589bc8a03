// Package figure holds plot layout shared by the command line and the
// experiments.
package figure

import (
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// LegendRight draws p on a (width + legend) × height canvas at dpi, with
// its legend in a strip of the given width right of the axes, inset from
// the strip's top left, where inside the axes it would hide lines.
func LegendRight(p *plot.Plot, width, height, legend vg.Length, dpi int, inset vg.Length) *vgimg.Canvas {
	c := vgimg.NewWith(vgimg.UseWH(width+legend, height), vgimg.UseDPI(dpi))
	dc := draw.New(c)
	leg := p.Legend
	p.Legend = plot.NewLegend()
	p.Draw(draw.Crop(dc, 0, -legend, 0, 0))
	leg.Top, leg.Left = true, true
	leg.XOffs, leg.YOffs = inset, -vg.Centimeter
	leg.Draw(draw.Crop(dc, width, 0, 0, 0))
	p.Legend = leg
	return c
}

// WritePNG writes c as a PNG file at path.
func WritePNG(c *vgimg.Canvas, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
