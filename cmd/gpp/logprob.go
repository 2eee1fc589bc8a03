package main

// gpp logprob: CmdStan's log_prob method. At given points (the params'
// values, as a JSON file or a CSV of draws) it writes the model's log
// density and its gradient on the unconstrained scale, one CSV row per
// point, as CmdStan's method=log_prob and CmdStanPy's model.log_prob do:
// to compare gradients with another implementation, debug a model at a
// known point, or evaluate a fit's draws.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

const logprobSynopsis = "logprob model.gpp [data.csv|data.tsv|data.json|data.R] [NAME=file.csv ...] --params FILE [flags]"

const logprobHelpText = `Evaluates the model's log density and its gradient at given points, as
CmdStan's method=log_prob (CmdStanPy's model.log_prob): one CSV row per point,
lp__ then g_1, ..., g_n, the gradient with respect to the unconstrained
coordinates u (Dim of them: log sigma for a positive sigma, log(a - 1) for
a real<lower=1>, logit for a param bounded on both sides, stick-breaking
coordinates for a simplex, ...; comment lines above the header name each
g_i's element and transform). lp__ is the log density of u, the
log-Jacobian of the transforms included (--jacobian=false: the log joint
at the params' values, without it), every normalising
constant included (BridgeStan's propto=false).

--params FILE gives the points:
  FILE.json  the params' values, as --init FILE.json takes them (Stan's
             inits): every param must be given; one row.
  FILE.csv   draws, as gpp fit's or gpp sample's draws.csv (CmdStan's layout:
             # comment lines, a header, one row per draw): a column per
             param element named as the draws.csv names it (beta.2, W.1.3);
             other columns (lp__, chain__, outputs) are ignored. One row per
             draw; a gpp fit's draws.csv (method = variational) begins with
             the row of q's mean, which is skipped as gpp fit's readers skip
             it, so row d is draw d; the warm-up rows of gpp sample
             --save-warmup (draw__ below 1) are skipped too. draws.csv keeps
             6 significant digits, so a simplex row that sums to 1 within
             K·1e-6 is divided by its sum. A gpp fit's or sample's
             draws.csv, its fit.json or coords.csv beside it, codes a
             column of labels in the data as the run coded it, as gpp
             predict does (a label the run did not see is an error).

A value outside its support, a missing param or column, a wrong shape or a
cell that is not a number is an error at its line and column (exit 1,
nothing written). A point where the log density is not finite is written,
with a gradient of nan: lp__ is -inf where a ~'s density is 0 there or its
log overflows (HalfNormal(1) at 1e200, as Stan's log_prob), else nan. The
model's error at the first such point is printed on stderr as a warning;
the exit code is 0.
`

// cmdLogprob runs gpp logprob.
func cmdLogprob(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("logprob", logprobSynopsis, logprobHelpText, stderr)
	sets := setFlags{}
	params := fs.String("params", "", "the points: a `FILE` of the params' values (.json) or of draws (.csv)")
	jacobian := fs.Bool("jacobian", true, "include the log-Jacobian of the transforms to the unconstrained scale")
	out := fs.String("out", "", "write the CSV to `FILE` instead of stdout")
	fs.Var(sets, "set", "set a constant or scalar data, as `NAME=VALUE` (repeatable)")
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	usageErr := func(format string, args ...any) int {
		return usageError(stderr, "logprob", logprobSynopsis, format, args...)
	}
	ext := strings.ToLower(filepath.Ext(*params))
	switch {
	case len(pos) == 0:
		return usageErr("logprob needs a model file")
	case *params == "":
		return usageErr("logprob needs --params FILE: the params' values (.json) or draws (.csv)")
	case ext != ".json" && ext != ".csv":
		return usageErr("--params %s: give a .json file of the params' values or a .csv file of draws", *params)
	}
	runSrcs := sources{}
	levels, sizes, columns, err := drawsRunLevels(*params, runSrcs)
	if err != nil {
		printError(stderr, err, runSrcs)
		return exitError
	}
	l, err := pipeline.LoadCoded(pos[0], pos[1:], sets, levels, sizes, columns)
	if err != nil {
		printError(stderr, err, sourcesOf(l))
		return exitError
	}
	printLoadWarnings(stderr, l)
	srcs := sources(l.Sources)
	for k, b := range runSrcs {
		srcs[k] = b
	}
	src, err := os.ReadFile(*params)
	if err != nil {
		errorf(stderr, "--params: %v", err)
		return exitError
	}
	srcs[*params] = src
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		printError(stderr, err, srcs)
		return exitError
	}
	var points [][]float64
	if ext == ".json" {
		points, err = logprobJSON(*params, src, l)
	} else {
		points, err = logprobCSV(*params, src, l, u)
	}
	if err != nil {
		printError(stderr, err, srcs)
		return exitError
	}
	write := func(w io.Writer) error {
		return writeLogprob(w, l, u, points, *jacobian, *params, func(i int, lp float64, err error) {
			if math.IsInf(lp, -1) {
				errorf(stderr, "warning: the log density is -inf at point %d of %s, and its gradient, not defined there, is written nan:", i+1, *params)
			} else {
				errorf(stderr, "warning: the log density is not finite at point %d of %s:", i+1, *params)
			}
			printError(stderr, err, srcs)
		})
	}
	return writeOut(*out, stdout, stderr, write)
}

// drawsRunLevels returns the codings of columns of labels of the gpp run
// whose draws.csv file is, its fit.json or coords.csv beside it (an empty
// map where the run coded none), for pipeline.LoadCoded: the draws' groups
// are the run's codes, so data holding a few of its labels in another
// order must get them, not codes of their own; and a fit's sizes bound
// from numeric ids (fitfile.File.Sizes), which data holding a few of the groups
// must not make smaller than the draws' params, and the CSV columns of its
// matrices (fitfile.File.DataColumns), bound by name. It returns nil (code
// afresh) for another file: a JSON point, a CSV of draws from elsewhere.
// The run's file read is added to srcs.
func drawsRunLevels(file string, srcs sources) (map[string]data.Levels, map[string]int, map[string][]string, error) {
	if filepath.Base(file) != drawsFile {
		return nil, nil, nil, nil
	}
	dir := filepath.Dir(file)
	if path := filepath.Join(dir, fitFileName); isRegular(path) {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--params: cannot read the fit of %s: %v", file, err)
		}
		srcs[path] = src
		ff, err := fitfile.Read(path, src)
		if err != nil {
			return nil, nil, nil, err
		}
		return fitfile.DataLevels(ff.Levels), ff.Sizes, ff.DataColumns, nil
	}
	if path := filepath.Join(dir, coordsFile); isRegular(path) {
		sc, err := readCoordsHeader(path)
		if sc != nil {
			srcs[path] = sc.src
		}
		if err != nil {
			return nil, nil, nil, err
		}
		return fitfile.DataLevels(sc.levels), sc.sizes, sc.columns, nil
	}
	return nil, nil, nil, nil
}

// isRegular reports whether path is a regular file.
func isRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// logprobJSON reads the one point of a JSON file of the params' values
// (pipeline.Loaded.InitValues, --init's reader), every param given.
func logprobJSON(file string, src []byte, l *pipeline.Loaded) ([][]float64, error) {
	vals, err := data.ReadJSON(file, bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	s, err := l.InitValues(vals, "--params: ", jsonKeyPos(file, src, vals))
	if err != nil {
		return nil, err
	}
	if !s.All() {
		var missing []string
		for _, lat := range l.Model.Latents {
			if vals[lat.Name] == nil {
				missing = append(missing, lat.Name)
			}
		}
		return nil, &ast.Error{Pos: ast.Pos{File: file, Line: 1, Col: 1},
			Msg: fmt.Sprintf("--params: no value for %s: a point gives every param (the params: %s)", strings.Join(missing, ", "), strings.Join(latentNames(l.Model), ", "))}
	}
	return [][]float64{s.U}, nil
}

// latentNames lists the model's params.
func latentNames(m *compile.Model) []string {
	var out []string
	for _, lat := range m.Latents {
		out = append(out, lat.Name)
	}
	return out
}

// logprobCSV reads the points of a CSV of draws: per data row, the params'
// columns (named as draws.csv names them) mapped to u's coordinates. A
// gpp fit's draws.csv (a "# method = variational" comment, CmdStan's
// variational layout) has q's mean as its first row, which is skipped,
// as are the warm-up rows of gpp sample --save-warmup (isWarmupRow).
func logprobCSV(file string, src []byte, l *pipeline.Loaded, u *sgvb.Unconstrained) ([][]float64, error) {
	m := l.Model
	at := func(line, col int, format string, args ...any) error {
		return &ast.Error{Pos: ast.Pos{File: file, Line: line, Col: col}, Msg: "--params: " + fmt.Sprintf(format, args...)}
	}
	// per latent, per element (row-major k), the CSV column; -1 unknown
	type latCols struct {
		shape []int
		cols  []int
	}
	lats := make([]latCols, len(m.Latents))
	var header []string
	headerLine, drawCol := 0, -1 // drawCol: draw__'s column, -1 none
	variational, skipped := false, false
	kept := "" // the run's --draws-params, which left out the other params' columns
	var points [][]float64
	x := make([]float64, u.TargetDim())
	lines := strings.Split(string(src), "\n")
	for li, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		lineNo := li + 1
		if strings.HasPrefix(line, "#") {
			if header == nil && strings.TrimSpace(strings.TrimPrefix(line, "#")) == "method = variational" {
				variational = true
			}
			if header == nil && strings.HasPrefix(line, drawsParamsLead) {
				kept = strings.TrimPrefix(line, drawsParamsLead)
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, ",")
		if header == nil {
			header, headerLine = fields, lineNo
			index := map[string]int{}
			for i, h := range fields {
				h = strings.TrimSpace(h)
				if _, dup := index[h]; !dup {
					index[h] = i
				}
			}
			if c, ok := index["draw__"]; ok {
				drawCol = c
			}
			var missing []string
			for i, lat := range m.Latents {
				shape := lat.Shape
				if lat.Value != nil {
					shape = lat.Value
				}
				n := 1
				for _, d := range shape {
					n *= d
				}
				lc := latCols{shape: shape, cols: make([]int, n)}
				for k := range n {
					name := compile.CSVName(lat.Name, shape, k)
					c, ok := index[name]
					if !ok {
						missing = append(missing, name)
						c = -1
					}
					lc.cols[k] = c
				}
				lats[i] = lc
			}
			if len(missing) > 0 {
				if len(missing) > 5 {
					missing = append(missing[:5], fmt.Sprintf("... (%d in all)", len(missing)))
				}
				msg := fmt.Sprintf("the header has no column %s: a CSV of draws has a column per param element, named as draws.csv names them", strings.Join(missing, ", "))
				if kept != "" {
					msg += fmt.Sprintf("; this run's --draws-params %s kept only those: run it again without --draws-params", kept)
				}
				return nil, at(lineNo, 1, "%s", msg)
			}
			continue
		}
		if variational && !skipped {
			skipped = true // the row of q's mean
			continue
		}
		if isWarmupRow(fields, drawCol) {
			continue // a warm-up iteration of gpp sample --save-warmup
		}
		if len(fields) != len(header) {
			return nil, at(lineNo, 1, "the row has %d fields, the header (line %d) %d", len(fields), headerLine, len(header))
		}
		cols := make([]int, len(fields)) // each field's 1-based column in the line
		c := 1
		for i, f := range fields {
			cols[i] = c
			c += len(f) + 1
		}
		for i, lat := range m.Latents {
			lc := lats[i]
			vals := make([]float64, len(lc.cols))
			for k, col := range lc.cols {
				cell := strings.TrimSpace(fields[col])
				v, err := strconv.ParseFloat(cell, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, at(lineNo, cols[col], "%s is %q, not a finite number", header[col], cell)
				}
				vals[k] = v
			}
			xx := x[lat.Offset : lat.Offset+lat.Size]
			err := u.ValueCoords(i, vals, xx)
			if err != nil { // maybe rounded: exact values are kept bit for bit
				fixed := slices.Clone(vals)
				if unround(fixed, lat.Support, lat.Shape) && u.ValueCoords(i, fixed, xx) == nil {
					err = nil
				}
			}
			if err != nil {
				if ve, ok := err.(*sgvb.ValueError); ok {
					col := lc.cols[ve.Elem]
					name := header[col]
					if compile.ShapeLen(lat.Shape) == len(vals) { // the value's element, as gpp names it
						name += " (" + latentNamer(m, l)(lat.Name, lat.Shape, ve.Elem) + ")"
					}
					return nil, at(lineNo, cols[col], "%s is %v, outside %s's support: want %s", name, ve.Value, lat.Name, ve.Want)
				}
				return nil, at(lineNo, 1, "%v", err)
			}
		}
		pt := make([]float64, u.Dim())
		u.UCoords(x, pt)
		points = append(points, pt)
	}
	if header == nil {
		return nil, at(1, 1, "no header: a CSV of draws has a header naming its columns")
	}
	if len(points) == 0 {
		return nil, at(headerLine, 1, "no rows of draws after the header")
	}
	return points, nil
}

// simplexRounding is how far from 1, per component, a simplex row of a
// CSV of draws may sum and still be taken as rounded: draws.csv keeps 6
// significant digits, each component off by up to 5e-7.
const simplexRounding = 1e-6

// drawsRounding is the relative error of a value in draws.csv, whose 6
// significant digits put 0.1000004 at 0.1: at most 5e-6 of its size.
const drawsRounding = 5e-6

// unround puts the values of a draw of a param of the support back on its
// equality constraint where they miss it by no more than draws.csv's
// rounding (simplexRounding, drawsRounding): a simplex's rows divided by their sums, a
// cholesky_factor_corr's rows by their norms, a sum_to_zero vector's or
// matrix's mean taken out. It reports whether it changed anything; values
// further off are left for the support check to report.
func unround(vals []float64, sup dist.Support, shape []int) bool {
	switch sup {
	case dist.Simplex:
		return renormalise(vals, shape[len(shape)-1])
	case dist.CholCorr:
		k := int(math.Round(math.Sqrt(float64(len(vals)))))
		changed := false
		for r := range k {
			row := vals[r*k : r*k+r+1]
			sq := 0.0
			for _, v := range row {
				sq += v * v
			}
			if sq == 1 || math.Abs(sq-1) > 2*drawsRounding*sq { // Σ 2|v|·δ, δ ≤ drawsRounding·|v|
				continue
			}
			norm := math.Sqrt(sq)
			for j := range row {
				row[j] /= norm
			}
			changed = true
		}
		return changed
	case dist.SumToZero:
		return centre(vals, 0, 1, len(vals))
	case dist.SumToZeroMatrix:
		if len(shape) != 2 || (shape[0]+1)*(shape[1]+1) != len(vals) {
			return false
		}
		m, n := shape[0]+1, shape[1]+1
		changed := false
		for r := range m {
			changed = centre(vals, r*n, 1, n) || changed
		}
		for c := range n {
			changed = centre(vals, c, n, m) || changed
		}
		return changed
	}
	return false
}

// centre takes their mean out of the n values v[off], v[off+stride], …
// where their sum is 0 within draws.csv's rounding of them, and reports
// whether it did.
func centre(v []float64, off, stride, n int) bool {
	sum, abs := 0.0, 0.0
	for j := range n {
		sum += v[off+j*stride]
		abs += math.Abs(v[off+j*stride])
	}
	if sum == 0 || math.Abs(sum) > drawsRounding*abs {
		return false
	}
	mean := sum / float64(n)
	for j := range n {
		v[off+j*stride] -= mean
	}
	return true
}

// renormalise divides each row of k components of a simplex's values by
// its sum where that is 1 within the rounding of draws.csv, so that a
// rounded draw is in the support, and reports whether it changed a row;
// a row further off is left for the support check to report.
func renormalise(vals []float64, k int) bool {
	changed := false
	for r := 0; r+k <= len(vals); r += k {
		row := vals[r : r+k]
		sum := 0.0
		for _, v := range row {
			sum += v
		}
		if sum == 1 || math.Abs(sum-1) > simplexRounding*float64(k) {
			continue
		}
		for j := range row {
			row[j] /= sum
		}
		changed = true
	}
	return changed
}

// logprobCoords names each coordinate of u: its param element, named by
// name as gpp's tables name it (latentNamer: 0-based, a labelled axis's
// labels), and transform: "log sigma", "beta[1]" (the value itself),
// "logit p", "log(c[1] - c[0])" (an ordered param's increment).
func logprobCoords(m *compile.Model, u *sgvb.Unconstrained, elemName func(string, []int, int) string) []string {
	out := make([]string, u.Dim())
	for i, lat := range m.Latents {
		off, n := u.LatentRange(i)
		switch {
		case lat.Support == dist.Simplex:
			k := lat.Shape[len(lat.Shape)-1]
			for j := range n {
				row, c := j/(k-1), j%(k-1)
				what := lat.Name
				if len(lat.Shape) > 1 {
					what = fmt.Sprintf("%s row %d", lat.Name, row)
				}
				out[off+j] = fmt.Sprintf("%s: stick-breaking coordinate %d", what, c+1)
			}
			continue
		case lat.Value != nil || lat.Support == dist.SumToZero || lat.Support == dist.SumToZeroMatrix:
			for j := range n {
				out[off+j] = fmt.Sprintf("%s: coordinate %d of its transform", lat.Name, j+1)
				if e, scale, ok := transformCoord(lat.Name, lat.Shape, lat.Support, j, elemName); ok {
					out[off+j] = coordLabel(e, scale)
				}
			}
			continue
		}
		for k := range n {
			name := elemName(lat.Name, lat.Shape, k)
			what := name
			switch {
			case lat.Support.IsOrdered() && k > 0:
				e, scale, _ := transformCoord(lat.Name, lat.Shape, lat.Support, k, elemName)
				what = coordLabel(e, scale)
			case lat.Support == dist.Positive, lat.Support == dist.PositiveOrdered:
				what = "log" + boundedValue(&lat, k, name)
			case lat.Support == dist.Unit:
				what = "logit" + boundedValue(&lat, k, name)
			}
			out[off+k] = what
		}
	}
	return out
}

// boundedValue writes, after a transform's name, the value on the base
// support of element k (named name) of a bounded param: " sigma" where
// there is no affine map, "(a - 1)" for real<lower=1>, "(3 - a)" for
// real<upper=3>, "((b + 1) / 4)" for real<lower=-1, upper=3>.
func boundedValue(lat *compile.Latent, k int, name string) string {
	loc, scale := lat.AffineAt(k)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case scale == 0 || loc == 0 && scale == 1:
		return " " + name
	case scale == -1:
		return "(" + num(loc) + " - " + name + ")"
	}
	b := name + " - " + num(loc)
	if loc < 0 {
		b = name + " + " + num(-loc)
	}
	if scale == 1 {
		return "(" + b + ")"
	}
	if loc == 0 {
		return "(" + name + " / " + num(scale) + ")"
	}
	return "((" + b + ") / " + num(scale) + ")"
}

// writeLogprob writes the CSV: a comment line naming the model, the file
// and the jacobian switch, one naming each g_i, the header lp__,g_1,...,
// then a row per point. bad is called with the first point whose log
// density is not finite, its lp__ (−Inf where a ~'s density is 0 there or
// its log overflows, else NaN) and the model's error there.
func writeLogprob(w io.Writer, l *pipeline.Loaded, u *sgvb.Unconstrained, points [][]float64, jacobian bool, file string, bad func(int, float64, error)) error {
	bw := bufio.NewWriter(w)
	jac := 0
	if jacobian {
		jac = 1
	}
	fmt.Fprintf(bw, "# gpp logprob: model = %s, params = %s, jacobian = %d; g_i is the gradient in the unconstrained coordinate u_i\n", l.Path, file, jac)
	for i, c := range logprobCoords(l.Model, u, latentNamer(l.Model, l)) {
		fmt.Fprintf(bw, "# g_%d: %s\n", i+1, c)
	}
	bw.WriteString("lp__")
	for i := range u.Dim() {
		fmt.Fprintf(bw, ",g_%d", i+1)
	}
	bw.WriteByte('\n')
	grad := make([]float64, u.Dim())
	warned := false
	for i, pt := range points {
		lp, err := logprobAt(u, pt, grad, jacobian)
		if err != nil { // no gradient of a density that is not finite
			lp = nanUnlessInf(lp)
			if !warned {
				warned = true
				bad(i, lp, err)
			}
			for j := range grad {
				grad[j] = math.NaN()
			}
		}
		bw.WriteString(stanFloat(lp))
		for _, g := range grad {
			bw.WriteByte(',')
			bw.WriteString(stanFloat(g))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// logprobAt is the log density at u and its gradient (model.Model's
// LogDensityGradient): with the Jacobian, the density of u; without, the
// log joint at the params' values. A density that is not finite is an
// error, the model's own where it has one.
func logprobAt(u *sgvb.Unconstrained, pt, grad []float64, jacobian bool) (float64, error) {
	lp, err := u.Density(pt, grad, jacobian)
	if err == nil && (math.IsNaN(lp) || math.IsInf(lp, 0)) {
		err = fmt.Errorf("the log density is %s", stanFloat(lp))
	}
	return lp, err
}

// nanUnlessInf returns lp if it is infinite, else NaN: the lp__ of a
// point where the density is not finite.
func nanUnlessInf(lp float64) float64 {
	if math.IsInf(lp, 0) {
		return lp
	}
	return math.NaN()
}

// stanFloat formats x with full precision, non-finite values as Stan's
// CSV writes them (inf, -inf, nan).
func stanFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
