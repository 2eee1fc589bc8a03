package vinuts

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpplang/gpp/internal/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The files Run writes.
const (
	ElementsFile = "vi_nuts_elements.csv"
	ModelsFile   = "vi_nuts_models.csv"
	PlotFile     = "vi_nuts.png"
	MarkdownFile = "vi_nuts.md"
)

// ElementsHeader and ModelsHeader are the CSVs' headers.
var (
	ElementsHeader = []string{"model", "fit", "name", "kind", "q_mean", "q_sd", "nuts_mean", "nuts_sd", "z", "sd_ratio", "rhat", "ess_min", "reading"}
	ModelsHeader   = []string{"model", "fit", "chains", "warmup", "draws", "elements", "share_abs_z_le_0.1", "median_abs_z", "worst_abs_z", "worst_z_element",
		"median_sd_ratio", "min_sd_ratio", "min_sd_ratio_element", "divergences", "max_rhat", "min_ess", "fit_seconds", "nuts_seconds", "nuts_init", "default_start_error", "void", "error"}
)

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// writeCSV writes header and recs as the CSV file path.
func writeCSV(path string, header []string, recs [][]string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	if err := w.WriteAll(recs); err != nil { // flushes
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// write writes the CSVs, the PNG and the Markdown fragment into dir.
func (r *Report) write(dir string) error {
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var recs [][]string
	for _, e := range r.Elems {
		kind := "output"
		if e.Param {
			kind = "param"
		}
		recs = append(recs, []string{e.Case, e.Fit, e.Name, kind, fmtF(e.QMean), fmtF(e.QSD), fmtF(e.Mean), fmtF(e.SD), fmtF(e.Z), fmtF(e.SDRatio),
			fmtF(e.Rhat), fmtF(e.ESSMin), e.Reading})
	}
	if err := writeCSV(filepath.Join(dir, ElementsFile), ElementsHeader, recs); err != nil {
		return err
	}
	recs = recs[:0]
	for _, x := range r.Rows {
		recs = append(recs, []string{x.Case, x.Fit, strconv.Itoa(x.Chains), strconv.Itoa(x.Warmup), strconv.Itoa(x.Draws), strconv.Itoa(x.Elements),
			fmtF(x.Within), fmtF(x.MedianAbsZ), fmtF(x.WorstAbsZ), x.WorstName, fmtF(x.MedianRatio), fmtF(x.MinRatio), x.MinRatioName,
			strconv.Itoa(x.Divergences), fmtF(x.MaxRhat), fmtF(x.MinESS),
			strconv.FormatFloat(x.FitSeconds, 'f', 2, 64), strconv.FormatFloat(x.NUTSSeconds, 'f', 2, 64), x.Init, x.DefaultErr, x.Void, x.Err})
	}
	if err := writeCSV(filepath.Join(dir, ModelsFile), ModelsHeader, recs); err != nil {
		return err
	}
	if err := r.plot(filepath.Join(dir, PlotFile)); err != nil {
		return err
	}
	md := filepath.Join(dir, MarkdownFile)
	reading := ""
	if old, err := os.ReadFile(md); err == nil {
		if i := strings.Index(string(old), ReadingMarker); i >= 0 {
			reading = string(old[i:])
		}
	}
	return os.WriteFile(md, []byte(r.markdown()+reading), 0o644)
}

// ReadingMarker starts the hand-written reading of vi_nuts.md, which a
// new run keeps below its regenerated table (to be checked against the
// new numbers).
const ReadingMarker = "<!-- reading: written by hand, kept by a re-run; check it against the table above -->"

// Colours of the two fits (Okabe–Ito blue and vermillion).
var (
	colorMF    = color.RGBA{0, 114, 178, 255}
	colorRich  = color.RGBA{213, 94, 0, 255}
	colorGuide = color.Gray{Y: 150}
)

// zFloor is where a |z| below it is drawn (the log scale has no 0).
const zFloor = 1e-3

// plot draws, a panel per model (the void ones left out), every param
// element's sd ratio against its |z| on log scales: circles for the
// mean-field fit, triangles for the richer one, dashed guides at a ratio
// of 1 and at |z| = 0.1.
func (r *Report) plot(path string) error {
	var cases []string
	for _, x := range r.Rows {
		if x.Void == "" && x.Err == "" && !slices.Contains(cases, x.Case) {
			cases = append(cases, x.Case)
		}
	}
	if len(cases) == 0 {
		return nil
	}
	cols := min(4, len(cases))
	rows := (len(cases) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for ci, c := range cases {
		p := plot.New()
		p.Title.Text = c
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = zFloor, 10, 0.05, 5
		if ci/cols == rows-1 {
			p.X.Label.Text = "|z|"
		}
		if ci%cols == 0 {
			p.Y.Label.Text = "sd ratio"
		}
		for _, g := range [][2]plotter.XY{{{X: zFloor, Y: 1}, {X: 10, Y: 1}}, {{X: 0.1, Y: 0.05}, {X: 0.1, Y: 5}}} {
			l, err := plotter.NewLine(plotter.XYs{g[0], g[1]})
			if err != nil {
				return err
			}
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			l.Color = colorGuide
			p.Add(l)
		}
		for _, mf := range []bool{true, false} {
			var xy plotter.XYs
			label := ""
			for _, e := range r.Elems {
				if e.Case != c || !e.Param || (e.Fit == meanField.Label) != mf || math.IsNaN(e.Z) || !(e.SDRatio > 0) {
					continue
				}
				label = e.Fit
				xy = append(xy, plotter.XY{X: math.Max(math.Abs(e.Z), zFloor), Y: math.Min(math.Max(e.SDRatio, 0.05), 5)})
			}
			if len(xy) == 0 {
				continue
			}
			s, err := plotter.NewScatter(xy)
			if err != nil {
				return err
			}
			s.Radius = vg.Points(2.5)
			s.Color, s.Shape = colorMF, draw.GlyphDrawer(draw.CircleGlyph{})
			if !mf {
				s.Color, s.Shape = colorRich, draw.TriangleGlyph{}
			}
			p.Add(s)
			p.Legend.Add(label, s)
		}
		p.Legend.Top, p.Legend.Left = false, true
		p.Legend.TextStyle.Font.Size = vg.Points(8)
		plots[ci/cols][ci%cols] = p
	}
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] == nil {
				plots[i][j] = plot.New()
				plots[i][j].HideAxes()
			}
		}
	}
	const panel = 6.5 * vg.Centimeter
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(cols)*panel, vg.Length(rows)*panel), vgimg.UseDPI(110))
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 4 * vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		for j := range plots[i] {
			plots[i][j].Draw(canvases[i][j])
		}
	}
	return figure.WritePNG(c, path)
}

// initMark marks the table's rows whose chains started from a fit.
const initMark = "init from fit†"

// initCases lists the cases whose NUTS started from a fit, with the fit.
func (r *Report) initCases() []string {
	var out []string
	for _, x := range r.Rows {
		if c := fmt.Sprintf("%s (from the `%s` fit)", x.Case, x.Init); x.Init != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// cellF formats a table number: NaN as —.
func cellF(format string, v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf(format, v)
}

// markdown is the fragment docs/results.md links to: the method and the
// table; the reading is written by hand below it in docs/results/vi_nuts.md.
func (r *Report) markdown() string {
	var b strings.Builder
	b.WriteString("## How close is SGVB to NUTS? (vi-nuts)\n\n")
	fmt.Fprintf(&b, "Run %s on %s, %s/%s, %d cores (shared with other work). `gpp-experiments vi-nuts`", time.Now().UTC().Format("2006-01-02"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if r.Options.Quick {
		b.WriteString(" (**quick smoke run**, not a result)")
	}
	b.WriteString(".\n\n")
	b.WriteString("**Method.** Each model is fitted by `gpp fit … --seed 1` as examples/README.md runs it: with gpp's defaults (mean-field SGVB) and, where the docs recommend one, with the richer family named in the *fit* column. It is sampled by `gpp sample … --seed 1 --workers 1` (NUTS as Stan runs it; chains × draws after warm-up as in the table) with `--against` the fit, which compares q with the draws element by element. Over the **param** elements (outputs left out: a replicate's sd is mostly the likelihood's noise, which would flatter q), z = (q mean − NUTS mean)/NUTS sd and the sd ratio q sd / NUTS sd; *within* is the share with |z| ≤ 0.1. R̂ is the rank-normalised split R̂, ESS the smaller of bulk and tail. Times are wall-clock on one core of a loaded machine, including loading the model; NUTS's time is that of one sampling run (every run of a model draws the same chains).\n\n")
	fmt.Fprintf(&b, "**Starts.** NUTS starts from gpp's default, Stan's: every unconstrained coordinate uniform on (−2, 2). Where that run fails, does not finish in %v, or leaves a chain stuck (every lp__ of one chain below every lp__ of the others, gpp sample's warning that suggests `--init`; label switching leaves lp__ alone, so the mixture's chains are not stuck), the model is sampled again with `--init` its richer fit (the last in the *fit* column), as a Stan user starts NUTS from Pathfinder or ADVI: chain c starts from draw c of that fit's q (independent draws, spread over q, not q's mean), and every fit of the model is compared with those chains. Such rows are marked *init from fit* (†) and their R̂, ESS and divergences are reported as for the others; the draws kept after warm-up do not depend on the start when the chains mix, and R̂ still compares chains started apart, but chains started inside q cannot find a mode that q does not reach, so on those rows the check for multimodality is weaker than from the default start. ", r.Options.SampleTimeout)
	if inits := r.initCases(); len(inits) == 0 {
		b.WriteString("Every model here was sampled from the default start.\n\n")
	} else {
		fmt.Fprintf(&b, "Started from a fit: %s; every other model from the default start.\n\n", strings.Join(inits, ", "))
	}
	b.WriteString("| model | fit | elements | within \\|z\\| ≤ 0.1 | median \\|z\\| | worst \\|z\\| | median sd ratio | min sd ratio | NUTS chains × draws (warm-up) | divergences | max R̂ | min ESS | fit s | NUTS s |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Rows {
		name := x.Case
		if x.Void != "" {
			name += " (void)"
		}
		start := ""
		if x.Init != "" {
			start = ", " + initMark
		}
		if x.Err != "" {
			fmt.Fprintf(&b, "| %s | %s | error%s: %s |||||||||||\n", name, x.Fit, start, strings.SplitN(x.Err, "\n", 2)[0])
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s (%s) | %s | %s (%s) | %d × %d (%d)%s | %d | %s | %s | %.1f | %.1f |\n",
			name, x.Fit, x.Elements, cellF("%.0f %%", 100*x.Within), cellF("%.3f", x.MedianAbsZ), cellF("%.2f", x.WorstAbsZ), x.WorstName,
			cellF("%.2f", x.MedianRatio), cellF("%.2f", x.MinRatio), x.MinRatioName, x.Chains, x.Draws, x.Warmup, start,
			x.Divergences, cellF("%.3f", x.MaxRhat), cellF("%.0f", x.MinESS), x.FitSeconds, x.NUTSSeconds)
	}
	b.WriteString("\n")
	// One note of each kind a case, from its first row with one (a row whose fit
	// failed has no Init, though the case's later rows may).
	initNoted, voidNoted := map[string]bool{}, map[string]bool{}
	for _, x := range r.Rows {
		if x.Init != "" && !initNoted[x.Case] {
			initNoted[x.Case] = true
			fmt.Fprintf(&b, "† *%s*: from the default start, %s; its %d chains started instead from draws 1–%d of the `%s` fit's q (`gpp sample --init`).\n\n",
				x.Case, strings.SplitN(x.DefaultErr, "\n", 2)[0], x.Chains, x.Chains, x.Init)
		}
		if x.Void != "" && !voidNoted[x.Case] {
			voidNoted[x.Case] = true
			fmt.Fprintf(&b, "*%s*: the comparison is void: %s.", x.Case, x.Void)
			if x.Err == "" {
				fmt.Fprintf(&b, " Its max R̂ %s and min ESS %s measure that: chains that settled in different labellings disagree, and NUTS's element means average the labellings, so its |z| and sd ratios say nothing about q; they are not a failure of NUTS on one mode, and the model is left as it is (an ordering constraint would remove the second labelling).",
					cellF("%.2f", x.MaxRhat), cellF("%.0f", x.MinESS))
			}
			b.WriteString("\n\n")
		}
	}
	if len(r.Skipped) > 0 {
		b.WriteString("Not run:\n\n")
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "* %s: %s.\n", s.Name, s.Reason)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Per element: [%s](%s); per model: [%s](%s). ![sd ratio against |z|](%s)\n", ElementsFile, ElementsFile, ModelsFile, ModelsFile, PlotFile)
	return b.String()
}
