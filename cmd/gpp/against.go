package main

// gpp sample --against FIT: a variational fit's q set beside the NUTS
// draws, element by element: the point of sampling a model gpp fits. q's
// mean and sd come from the fit's summary.csv (its output draws), NUTS's
// from the chains; each difference is read against both Monte Carlo
// errors, so that a reading names what the draws show and not their noise.

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
)

// againstFile is the comparison's CSV, written beside the sample's files.
const againstFile = "against.csv"

// Tolerances of the readings: a difference is read as q's only when it
// exceeds both the practical tolerance and againstMC Monte Carlo standard
// errors (of NUTS's estimate and of the fit's summary, from its draws).
const (
	againstZ     = 0.1 // |q mean − NUTS mean| / NUTS sd that counts as agreeing
	againstSD    = 0.1 // |q sd / NUTS sd − 1| that counts as agreeing
	againstMC    = 3   // Monte Carlo standard errors a difference must exceed
	againstWorst = 3   // elements named in the summary line
)

// againstNeeds ends fitfile.Match's messages for --against.
var againstNeeds = [2]string{"--against compares a fit of this model, param by param", "--against compares a fit of this model, param by param"}

// againstFit is the fit that --against names: its fit.json and summary.
type againstFit struct {
	summary, fitJSON string
	label            string // what the table's title calls the fit: "fit 2" (the REPL's), else "the fit at DIR"
	// stanNames marks a summary.csv of an older gpp, which named elements
	// by Stan's 1-based indices (z[1] for the language's z[0]): its rows
	// are matched by those names (legacyNames).
	stanNames bool
	ff        *fitfile.File
	names     []string // summary.csv's elements, in order
	mean, sd  map[string]float64
	// qDraws gives the fit's draws of elements by their summary names, for
	// intervals.png (--plots): its draws.csv's, or the REPL's fit's.
	qDraws func(elems []intervalElem) (map[string][]float64, error)
}

// againstRow compares one element.
type againstRow struct {
	name                   string
	qMean, qSD             float64
	mean, sd, mcse         float64
	z, ratio, seZ, seRatio float64
	reading                string
	flagged                bool
	unmixed                bool // NUTS's R̂ above againstRhat: no reference, not read
	binary                 bool // 0/1 draws: read by the mean alone (againstShape)
	output                 bool // an output's element, summed up apart (againstSummary)
	robust                 bool // flagged by the draws' quantiles or tail (againstRobust), not q's mean and sd
}

// againstRhat is the R̂ of NUTS's chains above which an element is not
// compared (againstElem): they disagree, so their pooled draws are no
// reference. Between rhatWarn, gpp sample's own warning, and it the
// element is compared and its reading says the reference is rough: a
// psycholinguist's crossed model read at R̂ 1.02 left out the intercept,
// whose q sd was 0.087 of NUTS's, from the worst elements (2026-12-01).
const againstRhat = 1.05

// againstShape is what the draws of an element say beyond its mean and sd:
// the kurtosis m₄/m₂² of q's draws and of NUTS's (0: unknown, read as a
// normal's 3), by which the sds' Monte Carlo errors grow with heavy tails,
// and whether NUTS's draws are all 0 or 1 (an indicator, whose sd is
// √(p(1 − p)) of its mean p, so that only the mean is compared).
type againstShape struct {
	qKurt, kurt float64
	binary      bool
	// q and nuts are the draws themselves (q nil: unread), for the
	// quantiles that againstRobust reads where the moments cannot tell.
	q, nuts []float64
}

// kurtosis is m₄/m₂² of the finite draws x about their mean (0 when fewer
// than 2 or all equal): 3 for normal draws, larger for heavy tails, and
// for a LogNormal hurdle's single predictive draws in the hundreds.
func kurtosis(x []float64) float64 {
	m, count := finiteSum(x)
	if count < 2 {
		return 0
	}
	n := float64(count)
	m /= n
	m2, m4 := 0.0, 0.0
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			d := (v - m) * (v - m)
			m2 += d
			m4 += d * d
		}
	}
	if !(m2 > 0) {
		return 0
	}
	return m4 / n / (m2 * m2 / n / n)
}

// zeroOrOne reports whether every one of the draws x (at least one) is 0
// or 1, both or one of them.
func zeroOrOne(x []float64) bool {
	for _, v := range x {
		if v != 0 && v != 1 {
			return false
		}
	}
	return len(x) > 0
}

// indicatorDraws reports whether an element whose NUTS draws are nuts and
// q's draws q (nil: unread) is an indicator, read by its mean alone: NUTS's
// draws 0 and 1, or an event NUTS never (or always) saw whose q's draws
// are 0 and 1; not a fixed element (a Cholesky factor's 1 or 0), constant
// in both.
func indicatorDraws(nuts, q []float64) bool {
	return zeroOne(nuts) || zeroOrOne(nuts) && zeroOne(q)
}

// zeroOne reports whether the draws x are all 0 or 1 and not all alike.
func zeroOne(x []float64) bool {
	seen := [2]bool{}
	for _, v := range x {
		switch v {
		case 0:
			seen[0] = true
		case 1:
			seen[1] = true
		default:
			return false
		}
	}
	return seen[0] && seen[1]
}

// sdRelErr is the relative standard error of the sd of n effective draws
// of kurtosis k (0: unknown, a normal's 3): by the delta method on the
// variance's error (m₄ − m₂²)/n, √((k − 1)/(4n)), which is 1/√(2n) for
// normal draws.
func sdRelErr(k, n float64) float64 {
	if !(k > 0) {
		k = 3
	}
	return math.Sqrt((k - 1) / (4 * n))
}

// locateAgainst returns the summary.csv and fit.json of the fit that arg
// names: its output directory, its summary.csv or its fit.json.
func locateAgainst(arg string) (summary, fitJSON string, err error) {
	fi, err := os.Stat(arg)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("--against %s: no such file or directory (give gpp fit's output directory, its %s or its %s)", arg, summaryFile, fitFileName)
	}
	if err != nil {
		return "", "", fmt.Errorf("--against: %v", err)
	}
	dir := arg
	if !fi.IsDir() {
		dir = filepath.Dir(arg)
		if filepath.Base(arg) != fitFileName && filepath.Base(arg) != summaryFile {
			return "", "", fmt.Errorf("--against %s: give gpp fit's output directory, its %s or its %s", arg, summaryFile, fitFileName)
		}
	}
	summary, fitJSON = filepath.Join(dir, summaryFile), filepath.Join(dir, fitFileName)
	if _, err := os.Stat(fitJSON); errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("--against %s: %s has no %s: give the output directory of a gpp fit (a sample's or prior draws' has none)", arg, dir, fitFileName)
	}
	if _, err := os.Stat(summary); errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("--against %s: %s has no %s beside its %s: the fit's q is compared by its summary", arg, dir, summaryFile, fitFileName)
	}
	return summary, fitJSON, nil
}

// readAgainst reads the fit that --against names and checks that it is a
// fit of the model l (its params by name, type, bounds and shape, as gpp
// predict checks them); the files read are added to srcs. Notes on what
// differs but is allowed (an edited model, other data: dataHash, the
// sha256 of the data read, dataHashes's, nil when unknown) go to con.
func readAgainst(arg string, l *pipeline.Loaded, sets setFlags, dataHash []string, srcs sources, con *console) (*againstFit, error) {
	summary, fitJSON, err := locateAgainst(arg)
	if err != nil {
		return nil, err
	}
	ff, src, err := readUsedFit(fitJSON, srcs, "--against", "not to compare: its q approximates no posterior")
	if err != nil {
		return nil, err
	}
	if ff.Method == sgvb.MAP.String() {
		return nil, &ast.Error{Pos: fitfile.FindPos(fitJSON, src, `"method"`), Msg: "--against: a MAP estimate has no q to compare with the posterior (its sd is not one); give an SGVB, --family laplace or --family pathfinder fit"}
	}
	if err := fitfile.Match(ff.FirstFactors(), fitJSON, src, ff.Sets, sets, l.Path, l.Model, againstNeeds, nil); err != nil {
		return nil, err
	}
	if ff.ModelSHA256 != fitfile.ModelHash(l.Source) {
		con.note("note: --against: the fit at %s is of another model file (%s, other contents) whose params match this one's", fitJSON, ff.Model)
	}
	if ff.Resample != nil && ff.Resample.Resampled {
		con.note("note: --against: the fit at %s resampled its draws (--psis-resample): its summary, compared here as q's, is of the resampled draws, not of q itself", fitJSON)
	}
	if ff.DataSHA256 != nil && dataHash != nil && !slices.Equal(dataHash, ff.DataSHA256) {
		con.note("warning: --against: the fit at %s read other data (%s): its q approximates another posterior", fitJSON, strings.Join(ff.Data, " "))
	}
	af := &againstFit{summary: summary, fitJSON: fitJSON, ff: ff, mean: map[string]float64{}, sd: map[string]float64{}}
	draws := filepath.Join(filepath.Dir(fitJSON), drawsFile)
	af.qDraws = func(elems []intervalElem) (map[string][]float64, error) {
		return readDrawsColumns(draws, elems)
	}
	if kept := keptDrawsParams(fileHead(draws)); kept != "" {
		con.note("note: --against: the fit's %s keeps the draws of %s alone (its --draws-params): the others are compared by the summary's means and sds, their sds' errors taken as a normal's, and --plots' intervals.png shows NUTS's alone for them", draws, kept)
	}
	if err := af.readSummary(srcs); err != nil {
		return nil, err
	}
	if af.stanNames = legacyNames(af.names); af.stanNames {
		con.note("note: --against: %s names elements 1-based (an older gpp's summary): its z[1] is read as the language's z[0]", summary)
	}
	return af, nil
}

// readSummary reads the name, mean and sd columns of the fit's summary.csv.
func (af *againstFit) readSummary(srcs sources) error {
	src, err := os.ReadFile(af.summary)
	if err != nil {
		return fmt.Errorf("--against: cannot read the fit's summary: %v", err)
	}
	srcs[af.summary] = src
	r := csv.NewReader(strings.NewReader(string(src)))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: not a gpp summary: %v", af.summary, err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: empty: not a gpp summary", af.summary)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, need := range []string{"name", "mean", "sd"} {
		if _, ok := col[need]; !ok {
			return &ast.Error{Pos: fitfile.OffsetPos(af.summary, src, 0), Msg: fmt.Sprintf("no column %s: not a gpp fit's summary", need)}
		}
	}
	for i, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			return &ast.Error{Pos: ast.Pos{File: af.summary, Line: i + 2, Col: 1}, Msg: fmt.Sprintf("%d fields, the header has %d", len(row), len(rows[0]))}
		}
		name := row[col["name"]]
		m, err1 := strconv.ParseFloat(row[col["mean"]], 64)
		s, err2 := strconv.ParseFloat(row[col["sd"]], 64)
		if err1 != nil || err2 != nil {
			return &ast.Error{Pos: ast.Pos{File: af.summary, Line: i + 2, Col: 1}, Msg: fmt.Sprintf("%s: the mean or sd is not a number", name)}
		}
		af.names = append(af.names, name)
		af.mean[name], af.sd[name] = m, s
	}
	return nil
}

// compareAgainst compares every element of the sample that the fit's
// summary has too, in the sample's order; missing counts the sample's
// elements that the fit lacks.
func compareAgainst(af *againstFit, sd *sampleDraws, st []stats, ms []mcmcStats) (rows []againstRow, missing int) {
	qDraws := againstDraws(af.ff)
	qCols := againstQDraws(af, sd)
	for _, v := range sd.ds.vars {
		for j, k := range v.elems {
			name := v.elemName(k) // by label when the sample's data name them
			sv := v
			sv.stanNames = af.stanNames
			key := sv.elemName(k)
			qm, ok := af.mean[key]
			if !ok && v.axes != nil { // a fit summarised by numbers (the REPL's last fit)
				sv.axes = nil
				key = sv.elemName(k)
				qm, ok = af.mean[key]
			}
			if !ok {
				missing++
				continue
			}
			c := v.first + j
			q, ok := qCols[name]
			if !ok {
				q, ok = qCols[key]
			}
			sh := againstShape{kurt: kurtosis(sd.ds.cols[c]), binary: indicatorDraws(sd.ds.cols[c], q), nuts: sd.ds.cols[c]}
			if ok {
				sh.qKurt, sh.q = kurtosis(q), q
			}
			r := againstElem(name, qm, af.sd[key], qDraws, st[c].mean, st[c].sd, ms[c], sh)
			r.output = v.output
			rows = append(rows, r)
		}
	}
	return rows, missing
}

// againstQDraws returns the fit's draws of the sample's elements, by name,
// for their kurtosis; nil when they cannot be read (its draws.csv removed
// since), and the sds' errors are then a normal's on q's side.
func againstQDraws(af *againstFit, sd *sampleDraws) map[string][]float64 {
	if af.qDraws == nil {
		return nil
	}
	var elems []intervalElem
	for i := range sd.ds.vars {
		v := &sd.ds.vars[i]
		for j, k := range v.elems {
			elems = append(elems, intervalElem{name: v.elemName(k), col: v.first + j, v: v, k: k})
		}
	}
	q, err := af.qDraws(elems)
	if err != nil {
		return nil
	}
	return q
}

// legacyNames reports whether a summary's element names are an older
// gpp's 1-based ones: some name has a numbered index and none numbers one
// 0, which every numbered axis of a 0-based summary has, or separates its
// indices by ", " (an older gpp's "W[1,2]" has no space).
func legacyNames(names []string) bool {
	numbered := false
	for _, n := range names {
		_, idx, ok := strings.Cut(n, "[")
		if !ok || !strings.HasSuffix(idx, "]") {
			continue
		}
		if strings.Contains(idx, ", ") && !strings.Contains(idx, `"`) {
			return false
		}
		for _, p := range strings.Split(strings.TrimSuffix(idx, "]"), ",") {
			i, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil {
				continue // a label
			}
			if i == 0 {
				return false
			}
			numbered = true
		}
	}
	return numbered
}

// againstDraws is the number of independent draws that the Monte Carlo
// error of the fit's summary counts: its S output draws, or, when they
// were importance-resampled (--psis-resample) from candidates whose
// weights have an ESS of E, 1/(1/S + 1/E): resampling with replacement
// adds the error of S draws to that of the weighted candidates.
func againstDraws(ff *fitfile.File) float64 {
	s := float64(ff.Settings.OutputDraws)
	if rs := ff.Resample; rs != nil && rs.Resampled && rs.ESS > 0 && s > 0 {
		return 1 / (1/s + 1/float64(rs.ESS))
	}
	return s
}

// againstElem reads one element: z = (q mean − NUTS mean)/NUTS sd and the
// sd ratio q sd / NUTS sd, with their Monte Carlo standard errors. z's
// error is that of the two means (NUTS's mcse, q's sd/√S of the fit's S
// output draws) over NUTS's sd. The ratio's relative error adds NUTS's
// sd's, mcse_sd/sd (posterior's, from the ESS of the squared centred draws
// and their 4th moment, so right for heavy tails, where the normal
// 1/√(2·ESS) is too small: half the size for Student-t ν = 5), and q's,
// √((k − 1)/(4S)) of the draws' kurtosis k (a normal's 1/√(2S) when
// neither side's draws are at hand). k is the larger of q's draws' and
// NUTS's (sh): where q agrees with the posterior both estimate one
// kurtosis, and a sample's estimate of a heavy tail falls short more often
// than not (it misses the rare large draws; a LogNormal hurdle's 3000
// predictive draws read "q too wide" or "too narrow" in 526 elements with
// a normal's error on q's side, 73 with each side's own k, 14 with the
// larger), so NUTS's mcse_sd is scaled up to it too. Without an mcse_sd
// (NaN) NUTS's side is √((k − 1)/(4n)), n the smaller of the bulk and
// tail ESS. An element whose NUTS draws are all 0 or 1 (sh.binary: an
// indicator such as p == max(p)) is read by its mean alone: its sd is
// √(p(1 − p)) of its mean, so that a ratio off 1 is the means' difference
// again, and q's side of z's error is the binomial √(p(1 − p)/S).
func againstElem(name string, qm, qs, qDraws, m, s float64, mc mcmcStats, sh againstShape) againstRow {
	r := againstRow{name: name, qMean: qm, qSD: qs, mean: m, sd: s, mcse: mc.mcse, binary: sh.binary}
	if r.binary && s == 0 {
		// NUTS's draws all 0 (or all 1): an event it never (always) saw,
		// q's draws 0 and 1 (indicatorDraws). Its mean has no sd to scale
		// by; q's own binomial sd √(p(1 − p)) does, and NUTS's Monte Carlo error is negligible beside q's (a
		// probability below 3/n for n draws all 0).
		s = math.Sqrt(qm * (1 - qm))
		if math.IsNaN(mc.mcse) {
			mc.mcse = 0
		}
	}
	r.z, r.ratio = (qm-m)/s, qs/s
	if !(qDraws > 1) {
		qDraws = math.Inf(1)
	}
	qVar := qs * qs
	if r.binary {
		qVar = qm * (1 - qm)
	}
	r.seZ = math.Sqrt(mc.mcse*mc.mcse+qVar/qDraws) / s
	k := math.Max(sh.qKurt, sh.kurt)
	relSD := mc.mcseSD / s
	nutsRel := relSD // NUTS's own, for againstRobust's tail bound
	if math.IsNaN(nutsRel) {
		nutsRel = sdRelErr(sh.kurt, math.Min(mc.essBulk, mc.essTail))
	}
	switch {
	case math.IsNaN(relSD):
		relSD = sdRelErr(k, math.Min(mc.essBulk, mc.essTail))
	case sh.kurt > 1 && k > sh.kurt:
		relSD *= math.Sqrt((k - 1) / (sh.kurt - 1)) // mcse_sd ∝ √(kurtosis − 1) at its ESS
	}
	qRel := 0.0
	if !math.IsInf(qDraws, 1) {
		qRel = sdRelErr(k, qDraws)
	}
	r.seRatio = r.ratio * math.Sqrt(relSD*relSD+qRel*qRel)
	switch {
	case !r.binary && s > 0 && nuts.RoundingSD(s, m):
		// constant to rounding (a correlation matrix's diagonal, sd
		// 1.2e-16): read as an sd of 0, which it is but for rounding
		r.z, r.ratio, r.seZ, r.seRatio = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		r.reading = "not compared (an sd is 0 to rounding)"
		return r
	case !(s > 0) || math.IsInf(s, 0) || math.IsNaN(qm) || math.IsNaN(qs) || math.IsNaN(r.seZ) || (math.IsNaN(r.seRatio) && !r.binary):
		r.reading = "not compared (an sd is 0 or a value not finite)"
		return r
	case mc.rhat > againstRhat:
		// Chains that disagree (not mixed, or in modes that are one
		// another's labels permuted) give no posterior to read q against:
		// their pooled sd is the spread between the modes.
		r.reading, r.unmixed = "not compared: NUTS's chains disagree (R̂ "+numText(mc.rhat, "%.3f")+", above "+rhatText(againstRhat)+"), no reference", true // three decimals: 1.013 is not "1.01"
		return r
	}

	var say []string
	shifted, spread := math.Abs(r.z) > againstZ && math.Abs(r.z) > againstMC*r.seZ, false
	if shifted {
		dir := "above"
		if r.z < 0 {
			dir = "below"
		}
		say = append(say, "q shifted "+dir)
	}
	switch {
	case r.binary:
	case r.ratio < 1-againstSD && 1-r.ratio > againstMC*r.seRatio:
		say, spread = append(say, "q too narrow"), true
	case r.ratio > 1+againstSD && r.ratio-1 > againstMC*r.seRatio:
		say, spread = append(say, "q too wide"), true
	}
	agrees := math.Abs(r.z) <= againstZ && math.Abs(r.ratio-1) <= againstSD
	if !r.binary && !agrees { // what the moments do not show, or their errors swallow
		if more := againstRobust(r.ratio, s, nutsRel, !shifted, !spread, sh, qDraws, mc); len(more) > 0 {
			say, r.robust = append(say, more...), true
		}
	}
	switch {
	case len(say) > 0:
		r.reading, r.flagged = strings.Join(say, ", "), true
	case math.Abs(r.z) <= againstZ && (r.binary || math.Abs(r.ratio-1) <= againstSD):
		r.reading = "agrees"
	default:
		r.reading = "within Monte Carlo error (longer chains or more --output-draws would tell)"
	}
	if r.binary {
		r.reading = "0/1, by the mean alone: " + r.reading
	}
	if mc.rhat > rhatWarn {
		r.reading += "; NUTS's R̂ " + numText(mc.rhat, "%.3f") + " (above " + rhatText(rhatWarn) + "): a rough reference"
	}
	return r
}

// againstTailAlpha is the chance, that of a normal's 3 standard errors,
// at which againstRobust's tail bound may name q too wide when it is not.
const againstTailAlpha = 0.0027

// againstRobust reads an element whose q mean or sd is off beyond the
// tolerance where the mean (shiftUnsure) or the sd (spreadUnsure) was not
// read as differing: by what heavy tails do not swamp. The moments' errors come from
// the draws' own sd and kurtosis, which a few far draws inflate with the
// difference itself: a GEV's full-rank q put one of 1000 draws of a return
// level at 4·10¹¹ (NUTS's 211 ± 24), so that a mean 1.7·10⁷ sds off and an
// sd ratio of 5.4·10⁸ were read "within Monte Carlo error" (a climate
// scientist's trial). It compares the medians (z of NUTS's sd) and the
// widths of the 5%–95% intervals, each quantile with its distribution-free
// interval of order statistics (againstQuantile), beyond the tolerances
// of z and the sd ratio (a mean that agrees hid a median 1.2 sds below,
// the GEV's xi_tau with 10 000 draws); where the sd ratio is above 1 +
// againstSD it bounds q's sd from
// below by Chebyshev's inequality, which holds for any distribution: j of
// S draws at least d from q's median make q's sd σ at least
// d·c/(1 + c), c = √(jα/S), at chance α (againstTailAlpha, shared by the
// j tried), against NUTS's sd plus 3 of its own errors (relSD relative,
// of its draws' kurtosis, not widened by q's as the moments' are). NUTS's
// order statistics count its bulk (median) or tail (5%, 95%) ESS.
func againstRobust(ratio, s, relSD float64, shiftUnsure, spreadUnsure bool, sh againstShape, qDraws float64, mc mcmcStats) []string {
	if !shiftUnsure && !spreadUnsure || len(sh.nuts) == 0 {
		return nil
	}
	var say []string
	q, n := finiteSorted(sh.q), finiteSorted(sh.nuts)
	if len(q) < 2 || len(n) < 2 {
		return nil
	}
	qn := float64(len(q))
	if qDraws > 1 && qDraws < qn { // resampled: fewer independent draws
		qn = qDraws
	}
	if shiftUnsure {
		qm, qlo, qhi := againstQuantile(q, 0.5, qn)
		m, lo, hi := againstQuantile(n, 0.5, mc.essBulk)
		zMed := (qm - m) / s
		if err := math.Hypot(qhi-qlo, hi-lo) / 2; math.Abs(zMed) > againstZ && math.Abs(qm-m) > err {
			dir := "above"
			if zMed < 0 {
				dir = "below"
			}
			say = append(say, fmt.Sprintf("q shifted %s (its median, z %s)", dir, num3(zMed)))
		}
	}
	if !spreadUnsure {
		return say
	}
	width := func(x []float64, neff float64) (w, err float64) {
		a, alo, ahi := againstQuantile(x, 0.05, neff)
		b, blo, bhi := againstQuantile(x, 0.95, neff)
		return b - a, math.Hypot(ahi-alo, bhi-blo) / 2
	}
	wq, eq := width(q, qn)
	wn, en := width(n, mc.essTail)
	narrow := ""
	if wn > 0 && wq > 0 {
		wr := wq / wn
		err := wr * math.Hypot(eq/wq, en/wn)
		switch {
		case wr < 1-againstSD && 1-wr > err:
			narrow = fmt.Sprintf("q too narrow (its 5%%–95%% interval %s of NUTS's)", num3(wr))
		case wr > 1+againstSD && wr-1 > err:
			return append(say, fmt.Sprintf("q too wide (its 5%%–95%% interval %s of NUTS's)", num3(wr)))
		}
	}
	tail := ""
	if ratio > 1+againstSD {
		if lo := chebyshevSD(q, qn) / (s * (1 + againstMC*relSD)); lo > 1+againstSD {
			tail = fmt.Sprintf("draws far in its tail: its sd at least %s of NUTS's, whatever its tails", num3(lo))
		}
	}
	switch {
	case narrow != "" && tail != "": // a narrow bulk, a heavy tail
		say = append(say, narrow+", too wide in its tail ("+tail+")")
	case narrow != "":
		say = append(say, narrow)
	case tail != "":
		say = append(say, "q too wide ("+tail+")")
	}
	return say
}

// finiteSorted returns the finite values of x, sorted.
func finiteSorted(x []float64) []float64 {
	out := make([]float64, 0, len(x))
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	sort.Float64s(out)
	return out
}

// againstQuantile is the p-quantile of the sorted draws x with its
// distribution-free interval of againstMC standard errors: the order
// statistics p·n ± againstMC·√(neff·p(1 − p)) draws away, counted in
// effective draws (neff; the draws' own number when not above 0).
func againstQuantile(x []float64, p, neff float64) (q, lo, hi float64) {
	n := float64(len(x))
	if !(neff > 0) || neff > n {
		neff = n
	}
	at := func(r float64) float64 {
		return x[int(math.Max(0, math.Min(n-1, math.Round(r))))]
	}
	c := p * (n - 1)
	d := againstMC * math.Sqrt(neff*p*(1-p)) * n / neff
	return at(c), at(c - d), at(c + d)
}

// chebyshevSD is a lower bound on the sd of the distribution that gave the
// sorted draws x (n independent ones), at chance againstTailAlpha: the
// largest over j = 1, 2, 4, … of d_j·c/(1 + c), d_j the j-th largest
// distance from the median and c = √(jα/n), α shared by the j tried.
func chebyshevSD(x []float64, n float64) float64 {
	med := x[len(x)/2]
	d := make([]float64, len(x))
	for i, v := range x {
		d[i] = math.Abs(v - med)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(d)))
	tries := math.Floor(math.Log2(float64(len(d)))) + 1
	best := 0.0
	for j := 1; j <= len(d); j *= 2 {
		c := math.Sqrt(float64(j) * againstTailAlpha / tries / n)
		best = math.Max(best, d[j-1]*c/(1+c))
	}
	return best
}

// badness orders the elements for the summary line: the larger of |z| and
// the sd ratio's distance from 1 on the log scale.
func (r againstRow) badness() float64 {
	b := math.Max(math.Abs(r.z), math.Abs(math.Log(r.ratio)))
	if r.binary {
		b = math.Abs(r.z)
	}
	if math.IsNaN(b) {
		return -1
	}
	return b
}

// againstSummary is the line after the comparison: how many elements are
// within againstZ sd, the median sd ratio and the worst flagged elements,
// of those whose NUTS chains agree, and how many were left out as theirs
// do not. Where the rows hold both params' and outputs' elements, the
// params' come first and the outputs' follow in a clause of their own: a
// log_lik output's 4800 elements made "4141 of 4920 elements within 0.1
// sd, median sd ratio 1.01" of a fit whose params' sd ratios were all
// 0.21–0.56 (a psycholinguist's trial).
func againstSummary(rows []againstRow) string {
	var params, outs []againstRow
	for _, r := range rows {
		if r.output {
			outs = append(outs, r)
		} else {
			params = append(params, r)
		}
	}
	if len(params) == 0 || len(outs) == 0 {
		return againstRowsSummary(rows)
	}
	return "params: " + againstRowsSummary(params) + "; outputs: " + againstRowsSummary(outs)
}

// againstNegligible is the sd, relative to the largest of its variable's
// elements', below which an element's sd ratio is left out of the median:
// a changepoint's posterior probabilities of years far from it (sds of
// 1e-17 beside 0.3) read a median ratio of 2.74 while every element near
// the change read 1.02–1.06 (an ecologist's trial).
const againstNegligible = 1e-4

// againstRowsSummary is againstSummary of one kind of element.
func againstRowsSummary(rows []againstRow) string {
	within, flagged, unmixed := 0, 0, 0
	var ratios []float64
	var vars []string               // the variables with ratios, in the rows' order
	byVar := map[string][]float64{} // their elements' ratios
	scale := map[string]float64{}   // the largest NUTS sd of each variable's elements
	variable := func(r againstRow) string { v, _, _ := strings.Cut(r.name, "["); return v }
	for _, r := range rows {
		if r.sd > scale[variable(r)] { // not max: one NaN sd would leave out all
			scale[variable(r)] = r.sd
		}
	}
	for _, r := range rows {
		if r.unmixed {
			unmixed++
			continue
		}
		if math.Abs(r.z) <= againstZ {
			within++
		}
		if r.flagged {
			flagged++
		}
		if !math.IsNaN(r.ratio) && !r.binary && r.sd >= againstNegligible*scale[variable(r)] {
			ratios = append(ratios, r.ratio)
			v := variable(r)
			if _, ok := byVar[v]; !ok {
				vars = append(vars, v)
			}
			byVar[v] = append(byVar[v], r.ratio)
		}
	}
	n := len(rows) - unmixed
	if n == 0 && unmixed > 0 {
		return fmt.Sprintf("none of %d element%s compared: NUTS's chains disagree for every one (R̂ above %.2f: not mixed, or a mixture's or factor model's labels switched between chains), so its draws are no reference", unmixed, plural(unmixed), againstRhat)
	}
	s := fmt.Sprintf("%d of %d element%s within %.1f sd of NUTS's mean, median sd ratio %s", within, n, plural(n), againstZ, num3(median(ratios)))
	if len(vars) > 1 && len(vars) < len(ratios) { // not scalars alone, whose median is theirs
		kind := "param"
		if rows[0].output {
			kind = "output"
		}
		s += " (" + againstByVar(vars, byVar, kind) + ")"
	}
	if unmixed > 0 {
		s = fmt.Sprintf("%d of %d element%s not compared, as NUTS's chains disagree there (R̂ above %.2f: not mixed, or a mixture's or factor model's labels switched between chains), so its draws are no reference; of the others, ", unmixed, len(rows), plural(len(rows)), againstRhat) + s
	}
	if flagged == 0 {
		return s + "; no element's q differs beyond tolerance and Monte Carlo error"
	}
	worst := slices.Clone(rows)
	sort.SliceStable(worst, func(i, j int) bool { return worst[i].badness() > worst[j].badness() })
	var parts []string
	for _, r := range worst {
		if !r.flagged {
			continue
		}
		if len(parts) == againstWorst {
			break
		}
		if r.binary {
			parts = append(parts, fmt.Sprintf("%s (z %s, 0/1: by the mean)", r.name, num3(r.z)))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (z %s, sd ratio %s)", r.name, num3(r.z), num3(r.ratio)))
	}
	return s + fmt.Sprintf("; %d differ%s in mean or sd beyond tolerance and Monte Carlo error, the worst: %s", flagged, map[bool]string{true: "s", false: ""}[flagged == 1], strings.Join(parts, ", "))
}

// againstByVarMax is the most variables whose median sd ratios the
// summary line names (againstByVar).
const againstByVarMax = 6

// againstByVar names each variable's median sd ratio, in the rows' order,
// as "by param: mu 0.64, tau 0.338, z 1.02", so that the median over all
// elements cannot hide a few variables behind many: a hierarchical
// logit's 2400 z elements made the params' median 1.01 while every mu
// and tau element read 0.22–0.81 (a market researcher's trial). Past
// againstByVarMax variables, those farthest from 1 (on the log scale)
// are named and the rest counted.
func againstByVar(vars []string, byVar map[string][]float64, kind string) string {
	med := make(map[string]float64, len(vars))
	for _, v := range vars {
		med[v] = median(byVar[v])
	}
	shown := vars
	if len(vars) > againstByVarMax {
		far := slices.Clone(vars)
		sort.SliceStable(far, func(i, j int) bool {
			return math.Abs(math.Log(med[far[i]])) > math.Abs(math.Log(med[far[j]]))
		})
		keep := map[string]bool{}
		for _, v := range far[:againstByVarMax] {
			keep[v] = true
		}
		shown = slices.DeleteFunc(slices.Clone(vars), func(v string) bool { return !keep[v] })
	}
	parts := make([]string, len(shown))
	for i, v := range shown {
		parts[i] = v + " " + num3(med[v])
	}
	s := "by " + kind + ": " + strings.Join(parts, ", ")
	if rest := len(vars) - len(shown); rest > 0 {
		s += fmt.Sprintf("; %d more %s%s, none farther from 1", rest, kind, plural(rest))
	}
	return s
}

// median is the median of x (sorted in place), NaN for none.
func median(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	sort.Float64s(x)
	return (x[(n-1)/2] + x[n/2]) / 2
}

// printAgainst prints the comparison table (at most maxTableRows elements
// of each variable without --verbose) and its summary line; written says
// whether against.csv, which has every element, was written.
func printAgainst(w io.Writer, cfg *fitConfig, af *againstFit, sd *sampleDraws, rows []againstRow, missing int, am *againstModes, written bool) {
	label := af.label
	if label == "" {
		label = "the fit at " + filepath.Dir(af.fitJSON)
	}
	fmt.Fprintf(w, "\nq of %s against %s (z = (q mean − mean)/sd, sd ratio = q sd / sd):\n", label, am.chainsKept())
	t := &table{right: []bool{false, true, true, true, true, true, true, true, false}}
	t.row("name", "q mean", "q sd", "mean", "sd", "mcse", "z", "sd ratio", "reading")
	byName := map[string]int{}
	for i, r := range rows {
		byName[r.name] = i
	}
	for _, v := range sd.ds.vars {
		var idx []int // the rows of v's elements, in its order
		for _, k := range v.elems {
			if i, ok := byName[v.elemName(k)]; ok {
				idx = append(idx, i)
			}
		}
		for shown, i := range idx {
			if shown == maxTableRows && !cfg.verbose {
				where := "all in " + filepath.Join(cfg.out, againstFile)
				if !written {
					where = ":sample --verbose shows all" // the REPL's, without --out
				}
				t.note(fmt.Sprintf("... %d more elements of %s (%s)", len(idx)-shown, v.name, where))
				break
			}
			r := rows[i]
			t.row(r.name, num3(r.qMean), num3(r.qSD), num3(r.mean), num3(r.sd), num3(r.mcse), num3(r.z), num3(r.ratio), r.reading)
		}
	}
	t.print(w)
	fmt.Fprintf(w, "against      %s%s\n", am.text(), againstSummary(rows))
	if missing > 0 {
		fmt.Fprintf(w, "             %d element%s of the sample not in the fit's summary (outputs the fit's model lacks)\n", missing, plural(missing))
	}
}

// writeAgainstCSV writes against.csv: one row per compared element, its
// reading ending with which of NUTS's chains it was read against where
// they sit in different modes (am, nil: none).
func writeAgainstCSV(w io.Writer, rows []againstRow, am *againstModes) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "q_mean", "q_sd", "mean", "sd", "mcse_mean", "z", "sd_ratio", "se_z", "se_sd_ratio", "reading"})
	for _, r := range rows {
		cw.Write([]string{r.name, formatNum(r.qMean), formatNum(r.qSD), formatNum(r.mean), formatNum(r.sd), formatNum(r.mcse),
			formatNum(r.z), formatNum(r.ratio), formatNum(r.seZ), formatNum(r.seRatio), r.reading + am.csvNote(r)})
	}
	cw.Flush()
	return cw.Error()
}
