package main

// CmdStan's sampler options of gpp sample: --save-warmup (save_warmup=1),
// --stepsize, --metric-file and --save-metric (metric_file and
// save_metric=1: CmdStan's JSON of the step size and inverse metric),
// --adapt=false (adapt engaged=0) and per-chain --init files.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// warmupStream seeds the draws of predictive outputs at the warm-up
// iterations that --save-warmup writes: a stream of its own, so that the
// kept draws' outputs are those of a run without it.
const warmupStream = 0x7761726d75702121

// metricFileName is the file --save-metric writes for chain c (from 1):
// CmdStan's output_metric.json, one per chain.
func metricFileName(c int) string { return fmt.Sprintf("metric_%d.json", c) }

// metricFileRe matches the names metricFileName gives.
var metricFileRe = regexp.MustCompile(`^metric_[0-9]+\.json$`)

// chainFiles returns the files of --init or --metric-file (flag) arg for
// chains chains: a comma-separated list of one file (every chain's) or
// one per chain; for one FILE.json and more than one chain, CmdStan's
// FILE_1.json, ..., FILE_C.json beside it when they all exist.
func chainFiles(flag, arg string, chains int) ([]string, error) {
	files := strings.Split(arg, ",")
	for _, f := range files {
		if f == "" {
			return nil, fmt.Errorf("--%s %s: an empty file name in the list", flag, arg)
		}
	}
	if len(files) > 1 && len(files) != chains {
		return nil, fmt.Errorf("--%s lists %d files for --chains %d: give one file (for every chain) or %d (one per chain)", flag, len(files), chains, chains)
	}
	if len(files) > 1 || chains == 1 {
		return files, nil
	}
	base, ext := strings.TrimSuffix(arg, filepath.Ext(arg)), filepath.Ext(arg)
	if !strings.EqualFold(ext, ".json") {
		return files, nil
	}
	per := make([]string, chains)
	for c := range per {
		per[c] = fmt.Sprintf("%s_%d%s", base, c+1, ext)
		if fi, err := os.Stat(per[c]); err != nil || fi.IsDir() {
			return files, nil
		}
	}
	return per, nil
}

// valuesOf returns the params' values chain c starts from (nil: none).
func (sc *sampleConfig) valuesOf(c int) *initValues {
	if sc.chainValues != nil {
		return sc.chainValues[c]
	}
	return sc.values
}

// describeValues says where the chains start when they start from files
// of values, for the console and the report.
func (sc *sampleConfig) describeValues() string {
	if sc.chainValues == nil {
		return sc.values.describe(sc.initRadius())
	}
	files := make([]string, len(sc.chainValues))
	for c, v := range sc.chainValues {
		files[c] = v.file
	}
	return "the values in " + strings.Join(files, ", ") + " (chain by chain)"
}

// readStarts reads what --init names (readInit): one fit or file of
// values for every chain, or a file of values per chain (chainFiles).
func (sc *sampleConfig) readStarts(l *pipeline.Loaded, sets setFlags, srcs sources) error {
	sc.start, sc.values, sc.chainValues = nil, nil, nil
	if sc.init == "" {
		return nil
	}
	files, err := chainFiles("init", sc.init, sc.nuts.Chains)
	if err != nil {
		return err
	}
	if len(files) == 1 {
		sc.start, sc.values, err = readInit(files[0], l, sets, srcs)
		return err
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() || !mayHoldValues(f) {
			return fmt.Errorf("--init %s: %s: a list of --init files gives each chain a .json file of the params' values (a fit is given alone)", sc.init, f)
		}
		start, v, err := readInit(f, l, sets, srcs)
		if err != nil {
			return err
		}
		if start != nil {
			return fmt.Errorf("--init %s: %s is a gpp fit: a list of --init files gives each chain a file of the params' values (a fit is given alone)", sc.init, f)
		}
		sc.chainValues = append(sc.chainValues, v)
	}
	sc.values = sc.chainValues[0]
	return nil
}

// readMetricFiles reads --metric-file's files (chainFiles) for the d
// unconstrained coordinates, into sc.nuts.InvMetric.
func (sc *sampleConfig) readMetricFiles(d int, srcs sources) error {
	sc.nuts.InvMetric = nil
	if sc.metricFile == "" {
		return nil
	}
	files, err := chainFiles("metric-file", sc.metricFile, sc.nuts.Chains)
	if err != nil {
		return err
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("--metric-file: %v", err)
		}
		srcs[f] = src
		m, err := parseMetricFile(f, src, d, sc.nuts.Metric)
		if err != nil {
			return err
		}
		sc.nuts.InvMetric = append(sc.nuts.InvMetric, m)
	}
	return nil
}

// jsonNode is a value of a metric file with where it starts (a byte
// offset, from 1, for fitfile.OffsetPos): a number, a string or an array.
type jsonNode struct {
	off   int
	num   json.Number
	str   *string
	elems []jsonNode
	array bool
}

// parseJSONValue reads the next value from dec (other objects are
// skipped, as a string "an object" node).
func parseJSONValue(dec *json.Decoder) (jsonNode, error) {
	t, err := dec.Token()
	if err != nil {
		return jsonNode{}, err
	}
	end := int(dec.InputOffset())
	switch t := t.(type) {
	case json.Number:
		return jsonNode{off: end - len(t) + 1, num: t}, nil
	case string:
		return jsonNode{off: end - len(strconv.Quote(t)) + 1, str: &t}, nil
	case json.Delim:
		n := jsonNode{off: end, array: t == '['}
		if t == '{' {
			obj := "an object"
			n.str = &obj
			for dec.More() {
				if _, err := dec.Token(); err != nil {
					return n, err
				}
				if _, err := parseJSONValue(dec); err != nil {
					return n, err
				}
			}
			_, err := dec.Token()
			return n, err
		}
		for dec.More() {
			e, err := parseJSONValue(dec)
			if err != nil {
				return n, err
			}
			n.elems = append(n.elems, e)
		}
		_, err := dec.Token()
		return n, err
	}
	what := fmt.Sprint(t)
	return jsonNode{off: end - len(what) + 1, str: &what}, nil
}

// what names a node's kind for errors.
func (n *jsonNode) what() string {
	switch {
	case n.array:
		return "an array"
	case n.str != nil && *n.str == "an object":
		return "an object"
	case n.str != nil:
		return "the string " + strconv.Quote(*n.str)
	}
	return "a number"
}

// parseMetricFile reads CmdStan's metric file src (at path): a JSON object
// whose inv_metric is the inverse metric, a vector for --metric diag and a
// matrix (an array of rows) for dense, of the model's d unconstrained
// coordinates; metric_type, where given, must be the metric's, and other
// keys (stepsize, as --save-metric writes it) are not read. Every error is
// at its place in the file.
func parseMetricFile(path string, src []byte, d int, metric nuts.Metric) ([]float64, error) {
	errAt := func(off int, format string, args ...any) error {
		return &ast.Error{Pos: fitfile.OffsetPos(path, src, off), Msg: "--metric-file: " + fmt.Sprintf(format, args...)}
	}
	if metric == nuts.UnitE {
		return nil, errAt(1, "--metric unit adapts no metric and takes none: give --metric diag or dense")
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return errAt(int(se.Offset), "invalid JSON: %v", err)
		}
		return errAt(len(src), "invalid JSON: %v", err)
	}
	t, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if t != json.Delim('{') {
		return nil, errAt(int(dec.InputOffset()), "want a JSON object with the key inv_metric (CmdStan's metric file)")
	}
	var inv *jsonNode
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, _ := k.(string)
		v, err := parseJSONValue(dec)
		if err != nil {
			return nil, syntax(err)
		}
		switch key {
		case "inv_metric":
			inv = &v
		case "metric_type":
			if v.str == nil || *v.str != metricName(metric) {
				return nil, errAt(v.off, "metric_type is %s, but --metric %s is %s", v.what(), metricFlagName(metric), metricName(metric))
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errAt(int(dec.InputOffset()), "text after the JSON object")
	}
	if inv == nil {
		return nil, errAt(1, "no inv_metric: CmdStan's metric file is {\"inv_metric\": [...]}")
	}
	num := func(n *jsonNode, name string) (float64, error) {
		if n.array || n.str != nil {
			return 0, errAt(n.off, "%s is %s: want a number", name, n.what())
		}
		v, err := strconv.ParseFloat(string(n.num), 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, errAt(n.off, "%s is %s: want a finite number", name, n.num)
		}
		return v, nil
	}
	coords := fmt.Sprintf("the model has %d unconstrained coordinate%s", d, plural(d))
	if metric == nuts.DiagE {
		if !inv.array {
			return nil, errAt(inv.off, "inv_metric is %s: --metric diag takes a vector, the inverse metric's diagonal", inv.what())
		}
		if len(inv.elems) > 0 && inv.elems[0].array {
			return nil, errAt(inv.off, "inv_metric is a matrix: --metric diag takes a vector, its diagonal (--metric dense takes a matrix)")
		}
		if len(inv.elems) != d {
			return nil, errAt(inv.off, "inv_metric has %d entr%s, %s", len(inv.elems), pluralY(len(inv.elems)), coords)
		}
		out := make([]float64, d)
		for i := range inv.elems {
			name := fmt.Sprintf("inv_metric[%d]", i) // 0-based, as the language and jq index
			v, err := num(&inv.elems[i], name)
			if err != nil {
				return nil, err
			}
			if !(v > 0) {
				return nil, errAt(inv.elems[i].off, "%s is %s: a diagonal inverse metric's entries are variances, positive", name, inv.elems[i].num)
			}
			out[i] = v
		}
		return out, nil
	}
	if !inv.array || len(inv.elems) > 0 && !inv.elems[0].array {
		return nil, errAt(inv.off, "inv_metric is %s: --metric dense takes a matrix, an array of %d rows (--metric diag takes a vector)", map[bool]string{true: "a vector", false: inv.what()}[inv.array], d)
	}
	if len(inv.elems) != d {
		return nil, errAt(inv.off, "inv_metric has %d row%s, %s", len(inv.elems), plural(len(inv.elems)), coords)
	}
	out := make([]float64, d*d)
	for i := range inv.elems {
		row := &inv.elems[i]
		if !row.array {
			return nil, errAt(row.off, "row %d of inv_metric is %s: want an array of %d numbers", i, row.what(), d)
		}
		if len(row.elems) != d {
			return nil, errAt(row.off, "row %d of inv_metric has %d entr%s, %s", i, len(row.elems), pluralY(len(row.elems)), coords)
		}
		for j := range row.elems {
			v, err := num(&row.elems[j], fmt.Sprintf("inv_metric[%d][%d]", i, j))
			if err != nil {
				return nil, err
			}
			out[i*d+j] = v
		}
	}
	for i := range d {
		if !(out[i*d+i] > 0) {
			return nil, errAt(inv.elems[i].elems[i].off, "inv_metric[%d][%d] is %s: a diagonal element of an inverse metric is a variance, positive", i, i, inv.elems[i].elems[i].num)
		}
		for j := range i {
			if a, b := out[i*d+j], out[j*d+i]; !(math.Abs(a-b) <= nuts.SymTol*max(1, math.Abs(a), math.Abs(b))) {
				return nil, errAt(inv.elems[i].elems[j].off, "inv_metric[%d][%d] is %s, but inv_metric[%d][%d] %s: an inverse metric is symmetric", i, j, inv.elems[i].elems[j].num, j, i, inv.elems[j].elems[i].num)
			}
		}
	}
	if err := nuts.CheckInvMetric(out, d, nuts.DenseE); err != nil {
		return nil, errAt(inv.off, "inv_metric is not positive definite: an inverse metric is a covariance matrix")
	}
	return out, nil
}

// pluralY is "y" for 1 and "ies" otherwise: entry, entries.
func pluralY(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

// metricFlagName is --metric's value for m.
func metricFlagName(m nuts.Metric) string {
	switch m {
	case nuts.DenseE:
		return "dense"
	case nuts.UnitE:
		return "unit"
	}
	return "diag"
}

// metricJSON is the file --save-metric writes, CmdStan's (save_metric=1).
type metricJSON struct {
	StepSize   float64 `json:"stepsize"`
	MetricType string  `json:"metric_type"`
	InvMetric  any     `json:"inv_metric"`
}

// writeMetricJSON writes chain ch's step size and inverse metric (kind m,
// d coordinates) as CmdStan's metric file: a vector for diag_e and
// unit_e, a matrix of rows for dense_e, every number to full precision.
func writeMetricJSON(w io.Writer, ch *nuts.Chain, m nuts.Metric, d int) error {
	f := metricJSON{StepSize: ch.StepSize, MetricType: metricName(m), InvMetric: ch.InvMetric}
	if m == nuts.DenseE {
		rows := make([][]float64, d)
		for i := range rows {
			rows[i] = ch.InvMetric[i*d : (i+1)*d]
		}
		f.InvMetric = rows
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// metricOutputs returns --save-metric's files, one per chain.
func metricOutputs(sc *sampleConfig, res *nuts.Result) []outputFile {
	var files []outputFile
	for c := range res.Chains {
		ch := &res.Chains[c]
		files = append(files, outputFile{metricFileName(c + 1), func(w io.Writer) error { return writeMetricJSON(w, ch, sc.nuts.Metric, res.Dim) }})
	}
	return files
}

// warmupDraws evaluates the warm-up iterations that --save-warmup kept
// (each chain's Warm) as makeSampleDraws does the kept draws, their
// outputs' draws from a stream of their own, each row with the step size
// it was made with and draw__ from −n to −1 (n a chain's warm-up draws):
// the rows draws.csv writes before each chain's kept draws. Nil without
// --save-warmup.
func warmupDraws(u *sgvb.Unconstrained, m *compile.Model, res *nuts.Result, seed uint64) (*sampleDraws, error) {
	if len(res.Chains) == 0 || res.Chains[0].Warm == nil {
		return nil, nil
	}
	warm := &nuts.Result{Dim: res.Dim, Chains: make([]nuts.Chain, len(res.Chains))}
	for c := range res.Chains {
		warm.Chains[c] = *res.Chains[c].Warm
	}
	wd, err := evalSampleDraws(u, m, warm, seed, warmupStream)
	if err != nil {
		return nil, err
	}
	for d := range wd.draw {
		c := wd.chain[d] - 1
		wd.stepSize[d] = warm.Chains[c].StepSizes[wd.draw[d]-1]
		wd.draw[d] -= wd.n + 1
	}
	return wd, nil
}

// isWarmupRow reports whether fields, a row of a gpp sample's draws.csv
// whose draw__ is column drawCol (-1: none), is a warm-up iteration of
// --save-warmup: draw__ below 1.
func isWarmupRow(fields []string, drawCol int) bool {
	if drawCol < 0 || drawCol >= len(fields) {
		return false
	}
	n, err := strconv.Atoi(fields[drawCol])
	return err == nil && n < 1
}
