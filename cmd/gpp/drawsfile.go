package main

// Reading saved draws for gpp summary: gpp sample's and gpp fit's
// draws.csv and CmdStan's output CSVs (sample, variational, pathfinder,
// laplace), told apart by their header row, read into columns with each
// problem a positioned error.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// drawsKind is what wrote a draws file, as its header row's first columns
// say.
type drawsKind int

const (
	gppSampleKind   drawsKind = iota // gpp sample's draws.csv: chain__, draw__, then CmdStan's sample columns
	stanSampleKind                   // CmdStan's sample CSV, one chain: lp__, accept_stat__, ...
	variationalKind                  // gpp fit's draws.csv or CmdStan's variational CSV: lp__, log_p__, log_g__, the first row q's mean
	pathfinderKind                   // CmdStan's pathfinder CSV: lp_approx__, lp__
	laplaceKind                      // CmdStan's laplace CSV: log_p__, log_g__
)

// drawsKinds are the kinds' header prefixes and descriptions.
var drawsKinds = []struct {
	prefix []string
	what   string
}{
	gppSampleKind:   {[]string{"chain__", "draw__", "lp__", "accept_stat__"}, "a gpp sample's draws.csv"},
	stanSampleKind:  {[]string{"lp__", "accept_stat__"}, "a CmdStan sample CSV"},
	variationalKind: {[]string{"lp__", "log_p__", "log_g__"}, "a variational CSV (gpp fit's draws.csv or CmdStan's)"},
	pathfinderKind:  {[]string{"lp_approx__", "lp__"}, "a CmdStan pathfinder CSV"},
	laplaceKind:     {[]string{"log_p__", "log_g__"}, "a CmdStan laplace CSV"},
}

// mcmc reports whether the kind holds Markov chains (else independent
// draws of an approximation).
func (k drawsKind) mcmc() bool { return k == gppSampleKind || k == stanSampleKind }

// bookkeeping are the columns that number the draws rather than measure
// them: left out of a summary.
var bookkeeping = []string{"chain__", "draw__", "restart__"}

// drawsFileData is one draws file read: its columns, the rows after
// warm-up (and after a variational file's mean row), split into chains,
// and the settings its comment lines give.
type drawsFileData struct {
	path       string
	kind       drawsKind
	method     string   // "# method = ..." (sample, variational, ...), or ""
	algorithm  string   // "# algorithm = ..." (hmc, fixed_param, ...), or ""
	modelHash  string   // gpp's "# model_sha256 = ...", or ""
	gpp        bool     // written by gpp ("# gpp_version = ..."): a gpp model's, named 0-based
	dataHash   []string // gpp's "# file_sha256 = ..." lines, one per data file
	header     []string // the column names
	headerLine int
	// chains[c][j] are chain c's draws of column j.
	chains [][][]float64
	// comments' settings: CmdStan's defaults where a file says none.
	warmup, thin, maxDepth int
	saveWarmup             bool
	delta                  float64
	warmupDropped          int // warm-up rows left out (save_warmup = 1)
}

// readDrawsFile reads the draws file path, whose bytes are src.
func readDrawsFile(path string, src []byte) (*drawsFileData, error) {
	f := &drawsFileData{path: path, warmup: 1000, thin: 1, maxDepth: 10, delta: 0.8, headerLine: -1}
	pos := func(line, col int) ast.Pos { return ast.Pos{File: path, Line: line, Col: col} }
	lines := strings.Split(string(src), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var rows [][]float64
	var rowLine []int
	for i, l := range lines {
		line := i + 1
		l = strings.TrimSuffix(l, "\r")
		if strings.HasPrefix(l, "#") {
			if f.header == nil {
				if err := f.setting(l, pos(line, 1)); err != nil {
					return nil, err
				}
			}
			continue
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		cells := strings.Split(l, ",")
		if f.header == nil {
			if err := f.setHeader(cells, pos(line, 1)); err != nil {
				return nil, err
			}
			f.headerLine = line
			continue
		}
		if len(cells) != len(f.header) {
			col := len(l) + 1 // after the last cell: one is missing
			if len(cells) > len(f.header) {
				col = cellCol(cells, len(f.header))
			}
			return nil, ast.Errorf(pos(line, col), "this row has %d cell%s, the header %d", len(cells), plural(len(cells)), len(f.header))
		}
		row := make([]float64, len(cells))
		for j, c := range cells {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				what := fmt.Sprintf("%q is not a number", c)
				if c == "" {
					what = "an empty cell"
				}
				return nil, ast.Errorf(pos(line, cellCol(cells, j)), "column %q: %s", f.header[j], what)
			}
			row[j] = v
		}
		rows, rowLine = append(rows, row), append(rowLine, line)
	}
	if f.header == nil {
		return nil, ast.Errorf(pos(max(len(lines), 1), 1), "no header row: a draws file names its columns (lp__, ...) in its first line that is not a comment")
	}
	if f.kind == gppSampleKind {
		return f, f.splitChains(rows, rowLine)
	}
	if f.saveWarmup && f.kind.mcmc() {
		f.warmupDropped = f.warmup / f.thin // rows 0, thin, 2·thin, ... of the warm-up: ⌈num_warmup / thin⌉
		if f.warmup%f.thin != 0 {
			f.warmupDropped++
		}
	}
	skip := f.warmupDropped
	if f.kind == variationalKind {
		skip = 1 // q's mean, not a draw
	}
	if len(rows) <= skip {
		return nil, ast.Errorf(pos(f.headerLine, 1), "no draws after the header%s", skipNote(f, skip))
	}
	chain := make([][]float64, len(f.header))
	for j := range chain {
		chain[j] = make([]float64, len(rows)-skip)
		for d, r := range rows[skip:] {
			chain[j][d] = r[j]
		}
	}
	f.chains = [][][]float64{chain}
	return f, nil
}

// skipNote says which rows were left out before the draws.
func skipNote(f *drawsFileData, skip int) string {
	switch {
	case f.kind == variationalKind:
		return " but the row of q's mean"
	case skip > 0:
		return fmt.Sprintf(" but the %d rows of warm-up", skip)
	}
	return ""
}

// splitChains splits a gpp sample's rows into its chains by chain__, each
// chain's rows together, leaving out its warm-up rows (--save-warmup):
// gpp numbers them by draw__ from −n to −1, the kept draws from 1.
func (f *drawsFileData) splitChains(rows [][]float64, rowLine []int) error {
	var ids []float64
	var byChain [][][]float64
	warm := 0
	for i, r := range rows {
		id := r[0]
		if n := len(ids); n == 0 || ids[n-1] != id {
			if slices.Contains(ids, id) {
				return ast.Errorf(ast.Pos{File: f.path, Line: rowLine[i], Col: 1}, "chain__ %s again after chain %s: a gpp sample's draws.csv holds each chain's draws together", formatNum(id), formatNum(ids[n-1]))
			}
			ids, byChain = append(ids, id), append(byChain, nil)
			warm = 0
		}
		if r[1] < 1 {
			warm++
			f.warmupDropped = max(f.warmupDropped, warm)
			continue
		}
		byChain[len(byChain)-1] = append(byChain[len(byChain)-1], r)
	}
	for c, rs := range byChain {
		if len(rs) == 0 {
			return ast.Errorf(ast.Pos{File: f.path, Line: f.headerLine, Col: 1}, "chain %s has no draws%s", formatNum(ids[c]), skipNote(f, f.warmupDropped))
		}
		chain := make([][]float64, len(f.header))
		for j := range chain {
			chain[j] = make([]float64, len(rs))
			for d, r := range rs {
				chain[j][d] = r[j]
			}
		}
		f.chains = append(f.chains, chain)
	}
	if len(f.chains) == 0 {
		return ast.Errorf(ast.Pos{File: f.path, Line: f.headerLine, Col: 1}, "no draws after the header")
	}
	return nil
}

// cellCol is the 1-based column of cell j of a row split at commas.
func cellCol(cells []string, j int) int {
	col := 1
	for _, c := range cells[:j] {
		col += len(c) + 1
	}
	return col
}

// setHeader reads the header row: the kind of file its first columns
// say, its names unique and not numbers.
func (f *drawsFileData) setHeader(cells []string, at ast.Pos) error {
	for j, c := range cells {
		p := at
		p.Col = cellCol(cells, j)
		switch {
		case c == "":
			return ast.Errorf(p, "column %d has an empty name in the header", j+1)
		case isNumber(c):
			return ast.Errorf(p, "no header row: the first line that is not a comment is numbers (%q), not the columns' names", c)
		case slices.Contains(cells[:j], c):
			return ast.Errorf(p, "column name %q appears twice in the header", c)
		}
	}
	for k, d := range drawsKinds {
		if len(cells) >= len(d.prefix) && slices.Equal(cells[:len(d.prefix)], d.prefix) {
			f.kind, f.header = drawsKind(k), cells
			return nil
		}
	}
	var starts []string
	longest := 0
	for _, d := range drawsKinds {
		starts = append(starts, strings.Join(d.prefix, ","))
		longest = max(longest, len(d.prefix))
	}
	return ast.Errorf(at, "the header begins %s: not a draws file of gpp sample, gpp fit or CmdStan (their headers begin %s)",
		strings.Join(cells[:min(len(cells), longest)], ","), strings.Join(starts, "; "))
}

// isNumber reports whether s reads as a number.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// setting reads a comment line before the header: the method and the
// sampler's settings a summary needs ("#     num_warmup = 1000").
func (f *drawsFileData) setting(l string, at ast.Pos) error {
	key, val, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(l, "#")), " = ")
	if !ok {
		return nil
	}
	val, _, _ = strings.Cut(strings.TrimSpace(val), " ") // "1000 (Default)"
	whole := func(dst *int, least int) error {
		n, err := strconv.Atoi(val)
		if err != nil || n < least {
			return ast.Errorf(at, "%s = %s: expected a whole number of at least %d", key, val, least)
		}
		*dst = n
		return nil
	}
	switch key {
	case "method":
		f.method = val
	case "algorithm":
		f.algorithm = val
	case "gpp_version":
		f.gpp = true
	case "model_sha256":
		f.modelHash = val
	case "file_sha256":
		f.dataHash = append(f.dataHash, val)
	case "num_warmup":
		return whole(&f.warmup, 0)
	case "thin":
		return whole(&f.thin, 1)
	case "max_depth":
		return whole(&f.maxDepth, 1)
	case "save_warmup": // 0 or 1; newer CmdStans write false or true
		switch val {
		case "0", "false":
			f.saveWarmup = false
		case "1", "true":
			f.saveWarmup = true
		default:
			return ast.Errorf(at, "save_warmup = %s: expected 0 or 1", val)
		}
	case "delta":
		if v, err := strconv.ParseFloat(val, 64); err == nil && v > 0 && v < 1 && !math.IsNaN(v) {
			f.delta = v
		}
	}
	return nil
}
