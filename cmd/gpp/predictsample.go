package main

// gpp predict SAMPLE: Stan's standalone generated quantities over the
// draws of a gpp sample. The outputs of the model (in predict mode, as for
// a fit) are evaluated at each saved draw, read to full precision from the
// sample's coords.csv, so that with the sample's model, data and seed they
// are the sample's own outputs bit for bit; left-out observed data are
// drawn as predict draws them for a fit.

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// sampleDir returns the output directory of a gpp sample that arg names
// (the directory, or its coords.csv or draws.csv), or "" when arg is not
// one (a fit's directory has a fit.json).
func sampleDir(arg string) string {
	fi, err := os.Stat(arg)
	if err != nil {
		return ""
	}
	dir := arg
	if !fi.IsDir() {
		if b := filepath.Base(arg); b != coordsFile && b != drawsFile {
			return ""
		}
		dir = filepath.Dir(arg)
	}
	if _, err := os.Stat(filepath.Join(dir, fitFileName)); err == nil {
		return ""
	}
	if _, err := os.Stat(filepath.Join(dir, coordsFile)); err != nil {
		return ""
	}
	return dir
}

// sampleCoords is a sample's coords.csv: per draw its chain and draw
// numbers and, per param, its coordinates.
type sampleCoords struct {
	path        string
	src         []byte
	model, hash string
	types       map[string]string         // param name → type text (fitfile.LatentTypeText)
	levels      map[string]fitfile.Levels // the sample's codings of columns of labels, by data declaration
	sizes       map[string]int            // the sample's sizes bound from numeric ids (data.CodeSizes)
	columns     map[string][]string       // the CSV columns of each matrix, in order (data.MatrixColumns)
	axes        map[string][][]string     // the labels that named its variables' elements (savedAxes)
	params      []string                  // in the file's order
	cols        map[string][]int          // param name → its columns
	chain, draw []int
	rows        [][]float64
}

// readSampleCoords reads coords.csv at path. Errors are positioned in it.
func readSampleCoords(path string) (*sampleCoords, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the sample: %v", err)
	}
	sc := &sampleCoords{path: path, src: src, types: map[string]string{}, cols: map[string][]int{}}
	lines := strings.Split(string(src), "\n")
	at := func(i int, format string, args ...any) error {
		return &ast.Error{Pos: ast.Pos{File: path, Line: i + 1, Col: 1}, Msg: fmt.Sprintf(format, args...)}
	}
	i, err := sc.readComments(lines)
	if err != nil {
		return nil, err
	}
	if i == len(lines) {
		return nil, at(i-1, "no header: not a gpp sample's %s", coordsFile)
	}
	head := strings.Split(lines[i], ",")
	if len(head) < 2 || head[0] != "chain__" || head[1] != "draw__" {
		return nil, at(i, "the header does not start chain__,draw__: not a gpp sample's %s", coordsFile)
	}
	for c, h := range head[2:] {
		k := strings.LastIndexByte(h, '.')
		if k < 0 || sc.types[h[:k]] == "" {
			return nil, at(i, "column %s is no param's coordinate", h)
		}
		sc.cols[h[:k]] = append(sc.cols[h[:k]], c)
	}
	r := csv.NewReader(strings.NewReader(strings.Join(lines[i+1:], "\n")))
	r.FieldsPerRecord = len(head)
	r.ReuseRecord = true
	for line := i + 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, at(line-1, "%v", err)
		}
		c, err1 := strconv.Atoi(rec[0])
		d, err2 := strconv.Atoi(rec[1])
		row := make([]float64, len(rec)-2)
		for j, f := range rec[2:] {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				err1 = err
			}
			row[j] = v
		}
		if err1 != nil || err2 != nil {
			return nil, at(line-1, "not a number in this row")
		}
		sc.chain, sc.draw, sc.rows = append(sc.chain, c), append(sc.draw, d), append(sc.rows, row)
	}
	if len(sc.rows) < 2 {
		return nil, at(len(lines)-1, "%d draws: the summary needs at least 2", len(sc.rows))
	}
	return sc, nil
}

// readCoordsHeader reads only the leading comment lines of coords.csv at
// path (its model, params and codings of labels; src holds those lines),
// not its rows, which run to hundreds of megabytes for a big sample. It
// returns sc with an error in those lines too.
func readCoordsHeader(path string) (*sampleCoords, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the sample: %v", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var src []byte
	for {
		if b, err := br.Peek(1); err != nil || b[0] != '#' {
			break
		}
		line, err := br.ReadBytes('\n')
		src = append(src, line...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the sample: %v", err)
		}
	}
	sc := &sampleCoords{path: path, src: src, types: map[string]string{}, cols: map[string][]int{}}
	_, err = sc.readComments(strings.Split(string(src), "\n"))
	return sc, err // with its error, sc.src shows the line
}

// readComments reads the leading comment lines of a coords.csv split into
// lines into sc and returns the index of the first other line.
func (sc *sampleCoords) readComments(lines []string) (int, error) {
	at := func(i int, format string, args ...any) error {
		return &ast.Error{Pos: ast.Pos{File: sc.path, Line: i + 1, Col: 1}, Msg: fmt.Sprintf(format, args...)}
	}
	i := 0
	for ; i < len(lines) && strings.HasPrefix(lines[i], "#"); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "# model = "):
			sc.model = strings.TrimPrefix(l, "# model = ")
		case strings.HasPrefix(l, "# model_sha256 = "):
			sc.hash = strings.TrimPrefix(l, "# model_sha256 = ")
		case strings.HasPrefix(l, "# param "):
			name, typ, ok := strings.Cut(strings.TrimPrefix(l, "# param "), " = ")
			if !ok {
				return 0, at(i, "a param line without its type")
			}
			sc.types[name] = typ
			sc.params = append(sc.params, name)
		case strings.HasPrefix(l, "# levels "):
			name, text, ok := strings.Cut(strings.TrimPrefix(l, "# levels "), " = ")
			var lv fitfile.Levels
			if !ok || json.Unmarshal([]byte(text), &lv) != nil {
				return 0, at(i, "a levels line that is not NAME = a JSON object of column, first and labels")
			}
			if sc.levels == nil {
				sc.levels = map[string]fitfile.Levels{}
			}
			sc.levels[name] = lv
		case strings.HasPrefix(l, "# size "):
			name, text, ok := strings.Cut(strings.TrimPrefix(l, "# size "), " = ")
			n, err := strconv.Atoi(text)
			if !ok || err != nil {
				return 0, at(i, "a size line that is not NAME = an int")
			}
			if sc.sizes == nil {
				sc.sizes = map[string]int{}
			}
			sc.sizes[name] = n
		case strings.HasPrefix(l, "# columns "):
			name, text, ok := strings.Cut(strings.TrimPrefix(l, "# columns "), " = ")
			var cols []string
			if !ok || json.Unmarshal([]byte(text), &cols) != nil {
				return 0, at(i, "a columns line that is not NAME = a JSON array of column names")
			}
			if sc.columns == nil {
				sc.columns = map[string][]string{}
			}
			sc.columns[name] = cols
		case strings.HasPrefix(l, "# labels "):
			name, text, ok := strings.Cut(strings.TrimPrefix(l, "# labels "), " = ")
			var axes [][]string
			if !ok || json.Unmarshal([]byte(text), &axes) != nil {
				return 0, at(i, "a labels line that is not NAME = a JSON array of each axis's labels or null")
			}
			if sc.axes == nil {
				sc.axes = map[string][][]string{}
			}
			sc.axes[name] = axes
		}
	}
	return i, nil
}

// sampleNeeds ends match's messages for gpp predict.
const sampleNeeds = "predict evaluates the outputs at the sample's draws of every param"

// match checks that the params of m are the sample's, one each, of the
// same type and number of coordinates; the sample's params that m lacks
// must be the missing values of data that it sampled (NAME_missing). need
// ends the messages: why the command needs the sampled params.
func (sc *sampleCoords) match(m *compile.Model, model, need string) error {
	return sc.matchLevels(m, model, need, nil)
}

// matchLevels is match for gpp predict, whose params may be larger than
// the sample's (g collects them; see growth).
func (sc *sampleCoords) matchLevels(m *compile.Model, model, need string, g *growth) error {
	for i := range m.Latents {
		lat := &m.Latents[i]
		typ, ok := sc.types[lat.Name]
		fs, grown := sampleGrows(m, lat, typ)
		if ok && grown && len(sc.cols[lat.Name]) == compile.ShapeLen(fs) {
			if g.Take(m, lat, fs) {
				continue
			}
			need += g.Hint(m, lat, fs)
		}
		switch {
		case !ok:
			return &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("param %s is not in the sample at %s (its params: %s): %s", lat.Name, sc.path, strings.Join(sc.params, ", "), need)}
		case typ != fitfile.LatentTypeText(lat) || len(sc.cols[lat.Name]) != lat.Size:
			return &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("param %s is %s here, but the sample at %s has %s: %s", lat.Name, fitfile.LatentTypeText(lat), sc.path, typ, need)}
		}
	}
	for _, p := range sc.params {
		if latentNamed(m, p) == nil && !m.MissingName(p) {
			return &ast.Error{Pos: fitfile.FindPos(sc.path, sc.src, "# param "+p+" "),
				Msg: fmt.Sprintf("the sample has param %s, which %s does not declare: %s", p, model, need)}
		}
	}
	return nil
}

// sampleRunSettings reads the --set values and the seed of a sample from
// its draws.csv header (writeRunHeader), and whether it ran the
// fixed_param sampler ("algorithm = fixed_param": its params are held by
// design, so their R̂ is NaN (heldByDesign), not frozen NUTS chains'
// +Inf); seed 0 and no sets when there is none to read.
func sampleRunSettings(dir string) (sets map[string]string, seed uint64, fixedParam bool) {
	meta := readSampleMeta(filepath.Join(dir, drawsFile), sources{})
	if meta != nil {
		sets = meta.Sets
	}
	for _, l := range strings.Split(string(fileHead(filepath.Join(dir, drawsFile))), "\n") {
		if l == "#     algorithm = "+fixedParamAlgorithm {
			fixedParam = true
		}
		if v, ok := strings.CutPrefix(l, "#   seed = "); ok { // after the algorithm
			seed, _ = strconv.ParseUint(v, 10, 64)
			break
		}
	}
	return sets, seed, fixedParam
}

// runPredictSample is gpp predict over the draws of the gpp sample in dir.
func runPredictSample(cfg *fitConfig, dir string, v predictFlags, set map[string]bool, stdout io.Writer, con *console) int {
	path := filepath.Join(dir, coordsFile)
	if set["output-draws"] {
		con.note("--output-draws: the draws of a sample are its rows (%s): give --output-draws only with a fit", path)
		return exitError
	}
	sc, err := readSampleCoords(path)
	srcs := sources{}
	if sc != nil {
		srcs[path] = sc.src
	}
	if err != nil {
		printError(con, err, sources{path: mustRead(path)})
		return exitError
	}
	cfg.predict = path
	sets, seed, fixedParam := sampleRunSettings(dir)
	for _, k := range inheritSets(cfg, &fitfile.File{Head: fitfile.Head{Sets: sets}}) {
		con.info("--set %s=%s from the sample (a const of the model; --set %s=... chooses another)", k, cfg.sets[k], k)
	}
	opt, _ := v.drawOptions(set["draw"])
	l, ok := loadPredictModel(con, cfg, opt, sets, growLevels(fitfile.DataLevels(sc.levels), v.newLevels), sc.sizes, sc.columns, srcs)
	if !ok {
		return exitError
	}
	m := l.Model
	g := &growth{allow: v.newLevels}
	if err := sc.matchLevels(m, l.Path, sampleNeeds, g); err != nil {
		printError(con, err, srcs)
		return exitError
	}
	otherModel(con, l, sc.hash, sc.model, "the sample in "+dir)
	cfg.settings.Seed = seed
	if set["seed"] {
		cfg.settings.Seed = v.seed
	}
	var lv *levelDraws
	if len(g.shapes) > 0 {
		if lv, err = newLevelDraws(m, g, cfg.settings.Seed); err != nil {
			printError(con, levelsErr(err), srcs)
			return exitError
		}
	}
	cfg.outputDraws = len(sc.rows)
	if !predictOutOK(cfg, l, con, "the sample's", dir, inputFile{"the sample's coordinates", path}) {
		return exitError
	}
	lock, removeIfEmpty, ok := openOutDir(cfg, con)
	if !ok {
		return exitError
	}
	defer lock.release()
	for _, n := range m.Drawn {
		con.info("gpp: note: %s", n)
	}
	levelNotes(con, lv, v.newLevels, l.Path)
	con.info("evaluating the outputs of %s at the %d draws of the sample in %s, seed %d", l.Path, len(sc.rows), dir, cfg.settings.Seed)
	sd, err := evalSampleCoords(sc, m, cfg.settings.Seed, lv)
	if err != nil {
		printError(con, err, srcs)
		removeIfEmpty()
		return exitError
	}
	nameByLabels(sd.ds.vars, l)
	sd.fixedParam = fixedParam
	st, ms := summariseChains(sd, runtime.NumCPU(), cfg.hdi, cfg.probs)
	h := drawsHeader{model: l.Path, modelHash: fitfile.ModelHash(l.Source), data: cfg.data, cfg: cfg}
	files := []outputFile{
		{summaryFile, func(w io.Writer) error { return writeSampleSummaryCSV(w, cfg, sd, st, ms) }},
		{drawsFile, func(w io.Writer) error { return writePredictSampleDrawsCSV(w, h, sd) }},
	}
	ho := heldOutLPPD(sd.ds) // lppd.csv's terms and the summary's line
	files = append(files, ho.files()...)
	if cfg.plots {
		files = append(files, ppcFiles(cfg.ppc, sd.ds, "posterior predictive check on new data")...)
	}
	names, err := commitFiles(cfg, files, func(names []string) []string { return staleInDir(cfg.out, names) })
	if err != nil {
		con.note("%v", err)
		removeIfEmpty()
		return exitError
	}
	lock.release()
	printSampleTable(stdout, cfg, sd, st, ms)
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "predicted    %d chain%s × %d draws of the sample in %s (seed %d): the outputs on this data, nothing sampled\n", sd.chains, plural(sd.chains), sd.n, dir, cfg.settings.Seed)
	if line := ho.text(); line != "" {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "written      %s: %s\n", cfg.out, strings.Join(names, " "))
	for _, w := range outputWarnings(sd.ds, st, l.Info, "draws had an output that is not finite (written as it is)") {
		con.note("warning: %s", w)
	}
	return exitOK
}

// mustRead returns the file at path, or nil.
func mustRead(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// evalSampleCoords evaluates m's outputs at every row of sc, in the order
// of the rows (chain after chain, as gpp sample evaluates them), the
// replicates and drawn data from the streams of seed that gpp sample uses.
// The chains must be of equal length, each numbered from 1.
//
// With lv (gpp predict --new-levels) not nil, a grown param's columns are
// its elements that the sample saw, and the new ones are drawn (lv).
func evalSampleCoords(sc *sampleCoords, m *compile.Model, seed uint64, lv *levelDraws) (*sampleDraws, error) {
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil, err
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		return nil, err
	}
	total := len(sc.rows)
	chains := sc.chain[total-1]
	n := total / chains
	for d := range total {
		if sc.chain[d] != d/n+1 || sc.draw[d] != d%n+1 {
			return nil, &ast.Error{Pos: fitfile.FindPos(sc.path, sc.src, "chain__"), Msg: fmt.Sprintf("row %d is chain %d draw %d, want chain %d draw %d: the chains must follow each other, of equal length", d+1, sc.chain[d], sc.draw[d], d/n+1, d%n+1)}
		}
	}
	ds := modelDrawSet(m, "nuts", total)
	sd := &sampleDraws{ds: ds, n: n, chains: chains, chain: sc.chain, draw: sc.draw}
	x, z := make([]float64, u.TargetDim()), make([]float64, u.TargetDim())
	seedPredictive(ev, seed)
	var xf []float64 // the sample's layout (lv)
	if lv != nil {
		xf = make([]float64, lv.dim)
		lv.markPrior(ds.vars)
	}
	for d, row := range sc.rows {
		for i, lat := range m.Latents {
			for k, c := range sc.cols[lat.Name] {
				if lv != nil {
					xf[lv.offs[i]+k] = row[c]
				} else {
					x[lat.Offset+k] = row[c]
				}
			}
		}
		if lv != nil {
			if err := lv.expand(lv.rng, xf, nil, x, z); err != nil {
				return nil, err
			}
		}
		ds.evalDraw(ev, u, x, z, d)
		ds.logp[d] = math.NaN()
	}
	return sd, nil
}

// writePredictSampleDrawsCSV writes the draws.csv of predictions over a
// sample: CmdStan's standalone generated quantities, chain__ and draw__
// then the params and outputs.
func writePredictSampleDrawsCSV(w io.Writer, h drawsHeader, sd *sampleDraws) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format+"\n", args...) }
	p("# gpp_version = %s", version)
	p("# model = %s", h.model)
	p("# model_sha256 = %s", h.modelHash)
	p("# method = generate_quantities")
	p("#   generate_quantities")
	p("#     fitted_params = %s", h.cfg.predict)
	p("#     gpp_method = predict")
	writeRunHeader(p, h)
	p("# PREDICTIONS: each row's params are a draw of the sample in fitted_params (nothing sampled) and its outputs are")
	p("# evaluated at it on this run's data.")
	bw.WriteString("chain__,draw__")
	writeColumnNames(bw, sd.ds.vars)
	for d := range sd.ds.logp {
		fmt.Fprintf(bw, "%d,%d", sd.chain[d], sd.draw[d])
		sd.ds.writeRow(bw, d)
	}
	return bw.Flush()
}
