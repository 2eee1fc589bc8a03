package main

// The output files of gpp fit, each written atomically:
//
//	summary.csv  name,family,mean,sd,q5,q50,q95 per latent and output element
//	draws.csv    CmdStan's variational CSV: mean row, then one row per draw
//	elbo.csv     iter,elbo,se,seconds per ELBO evaluation
//	fit.json     the fitted factors and diagnostics, readable by --init
//
// Element order. Data and coordinates are row-major in gpp, but CmdStan
// serialises containers in column-major ("Fortran") order with 1-based,
// dot-separated indices (W.1.1, W.2.1, ..., W.1.2, ...), so draws.csv and
// summary.csv list matrix elements column by column, as CmdStan and
// stansummary do. fit.json keeps the parameters row-major, as the
// coordinates are.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// predictStream seeds the draws of predictive outputs (output y ~ D(args)):
// sgvb.OutputStream, which the model package's summaries share.
const predictStream = sgvb.OutputStream

// predictDataStream seeds gpp predict's draws of the data that the new
// data leave out: sgvb.LeftOutStream, which the model package's
// predictions share.
const predictDataStream = sgvb.LeftOutStream

// seedPredictive seeds ev's draws of the outputs' ~ from predictStream and
// those of the data that are missing or left out (NAME_missing: NaN
// without a stream) from predictDataStream, as a fit's table draws them.
func seedPredictive(ev *compile.Evaluator, seed uint64) {
	ev.SetRand(rand.New(rand.NewPCG(seed, predictStream)))
	ev.SetDrawRand(rand.New(rand.NewPCG(seed, predictDataStream)))
}

// looStream seeds the defensive draws of PSIS-LOO (sgvb.Defensive), and
// looStream+1 their predictive outputs, so that they leave the output draws
// as they were.
const looStream = 0x6c6f6f2d64656621

// ---------------------------------------------------------------------------
// Atomic files

// tempFiles tracks the temporary files of a fit's outputs (and the lock
// on its output directory), so that a hard exit on a second signal can
// remove them. Once removeAll has run no file can be created through it, so
// a writer still running while the process exits leaves nothing behind,
// and a commit's renames finish before removeAll starts, so the directory
// is never left with half a set. Safe for concurrent use.
type tempFiles struct {
	commit sync.Mutex // held by staged.commit; removeAll waits for it
	mu     sync.Mutex
	paths  map[string]bool
	dirs   []string // output directories this run created, removed if empty
	closed bool     // removeAll has run
}

// madeDir records that this run created the directory dir, so that
// removeAll removes it when nothing was written there.
func (t *tempFiles) madeDir(dir string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dirs = append(t.dirs, dir)
}

// errExiting is the error of a file operation refused because gpp is
// exiting on a signal.
var errExiting = errors.New("gpp is exiting on a signal")

// create runs mk, which creates a file and returns its path, and tracks
// the path; after removeAll it creates nothing and returns errExiting.
func (t *tempFiles) create(mk func() (string, error)) error {
	if t == nil {
		_, err := mk()
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errExiting
	}
	p, err := mk()
	if err != nil {
		return err
	}
	if t.paths == nil {
		t.paths = map[string]bool{}
	}
	t.paths[p] = true
	return nil
}

// createTemp is os.CreateTemp through create.
func (t *tempFiles) createTemp(dir, pattern string) (*os.File, error) {
	var f *os.File
	err := t.create(func() (string, error) {
		var err error
		f, err = os.CreateTemp(dir, pattern)
		if err != nil {
			return "", err
		}
		return f.Name(), nil
	})
	return f, err
}

func (t *tempFiles) forget(p string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.paths, p)
}

// isClosed reports whether removeAll has run.
func (t *tempFiles) isClosed() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// removeAll removes every file still tracked, after any commit under way,
// and refuses to create more.
func (t *tempFiles) removeAll() {
	if t == nil {
		return
	}
	t.commit.Lock()
	defer t.commit.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	for p := range t.paths {
		os.Remove(p)
	}
	for _, d := range t.dirs {
		os.Remove(d) // only succeeds when nothing is left in it
	}
	t.paths, t.dirs = nil, nil
	t.closed = true
}

// staged writes a set of files atomically: each file goes to a temporary
// file in the target directory and is flushed to disk; commit then renames
// them all into place. On any error abort removes the temporary files, so a
// reader never sees a partial file, and on success no file of the set is
// missing unless a rename itself fails. Files named in stale (an earlier
// set's files that this set does not replace) are removed by a commit that
// succeeds, and only then.
type staged struct {
	dir   string
	temps *tempFiles
	files []stagedFile
	stale []string // names in dir
}

type stagedFile struct {
	tmp, final string
	sum        string // the hex sha256 of the bytes written
}

// commitRenamed is a test hook, called after each rename of a file of
// the set into place by staged.commit with the file's path: a test stops
// the process there as a kill would.
var commitRenamed func(final string)

// commitFiles writes files into cfg.out as one staged set: each rendered
// to a temporary file, all renamed into place once every one is written,
// the files that stale names (an earlier run's that this set does not
// replace) removed with the commit. It returns the names written; on an
// error nothing of the set is left behind. A plot whose data cannot be
// drawn is left out (drawnOrSkipped), and cfg.unplotted says why.
func commitFiles(cfg *fitConfig, files []outputFile, stale func(names []string) []string) ([]string, error) {
	sw := &staged{dir: cfg.out, temps: cfg.temps}
	cfg.unplotted = nil
	cfg.fileSums = map[string]string{}
	drawn := map[string]bool{}
	// the plots first, so that a file listing the set (fit.json) knows
	// which were left out, and the manifest (fit.json) last, so that it
	// knows the others' hashes (cfg.fileSums)
	for pass := range 3 {
		for _, f := range files {
			plot, manifest := isPlot(f.name), f.name == fitFileName
			if pass == 0 && !plot || pass == 1 && (plot || manifest) || pass == 2 && !manifest {
				continue
			}
			render := f.render
			if plot {
				render = drawnOrSkipped(f, &cfg.unplotted)
			}
			err := sw.write(f.name, render)
			if errors.Is(err, errNotDrawn) {
				continue
			}
			if err != nil {
				sw.abort()
				return nil, err
			}
			drawn[f.name] = true
			cfg.fileSums[f.name] = sw.files[len(sw.files)-1].sum
		}
	}
	var names []string // in the files' order
	for _, f := range files {
		if drawn[f.name] {
			names = append(names, f.name)
		}
	}
	sw.stale = stale(names) // a plot left out is an earlier run's no more
	if cfg.beforeCommit != nil {
		cfg.beforeCommit()
	}
	if err := sw.commit(); err != nil {
		return nil, err
	}
	return names, nil
}

// errNotDrawn marks a plot that its data did not let gonum/plot draw.
var errNotDrawn = errors.New("not drawn")

// isPlot reports whether an output file is a plot (a PNG).
func isPlot(name string) bool { return strings.HasSuffix(name, ".png") }

// drawnOrSkipped renders plot f into memory first: a plot whose data
// cannot be drawn (gonum/plot's "infinite data point" for draws near
// ±MaxFloat64) is left out with a note in notes, and does not cost the
// run its other files; only the writing of the bytes can fail the set.
func drawnOrSkipped(f outputFile, skipped *[]unplotted) func(w io.Writer) error {
	return func(w io.Writer) error {
		var buf bytes.Buffer
		if err := f.render(&buf); err != nil {
			*skipped = append(*skipped, unplotted{f.name, err})
			return errNotDrawn
		}
		_, err := w.Write(buf.Bytes())
		return err
	}
}

// unplotted is a plot that commitFiles left out, and why.
type unplotted struct {
	name string
	err  error
}

// warning is the warning that noteUnplotted prints of u.
func (u unplotted) warning() string { return fmt.Sprintf("%s not drawn: %v", u.name, u.err) }

// withoutUnplotted returns names less the plots that commitFiles has left
// out so far (cfg.unplotted).
func withoutUnplotted(names []string, cfg *fitConfig) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool {
		return slices.ContainsFunc(cfg.unplotted, func(u unplotted) bool { return u.name == n })
	})
}

// noteUnplotted warns of the plots that commitFiles left out.
func noteUnplotted(con *console, cfg *fitConfig) {
	for _, u := range cfg.unplotted {
		con.note("warning: %s", u.warning())
	}
}

// writeAtomic writes the one file path with the bytes that fill produces,
// staged and renamed into place: an error leaves no part of it behind.
func writeAtomic(path string, fill func(w io.Writer) error) error {
	s := &staged{dir: filepath.Dir(path)}
	if err := s.write(filepath.Base(path), fill); err != nil {
		return err
	}
	return s.commit()
}

// writeOut writes what fill produces to stdout, or to the file out
// (writeAtomic) when out is set, and returns the exit code.
func writeOut(out string, stdout, stderr io.Writer, fill func(w io.Writer) error) int {
	var err error
	if out == "" {
		err = fill(stdout)
	} else {
		err = writeAtomic(out, fill)
	}
	if err != nil {
		errorf(stderr, "%v", err)
		return exitError
	}
	return exitOK
}

// write stages file name (relative to the directory) with the bytes that
// fill produces.
func (s *staged) write(name string, fill func(w io.Writer) error) error {
	final := filepath.Join(s.dir, name)
	f, err := s.temps.createTemp(s.dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", final, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		s.temps.forget(tmp)
		return fmt.Errorf("cannot write %s: %w", final, err)
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16)
	if err := fill(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		s.temps.forget(tmp)
		return fmt.Errorf("cannot write %s: %w", final, err)
	}
	s.files = append(s.files, stagedFile{tmp, final, hex.EncodeToString(h.Sum(nil))})
	return nil
}

// commit renames every staged file into place and syncs the directory.
// A directory in the way of any file fails the commit before anything is
// renamed, so that the set is not left half replaced. The manifest
// (fit.json) decides which files are a run's: the old one is moved aside
// first when this set writes one or removes it as stale, then the stale
// files (an earlier run's that this set does not replace), then the set's
// files are renamed into place, its manifest last. So a directory whose fit.json
// exists holds exactly the files that it lists, of the run that wrote it,
// however the commit ends (a kill between two renames leaves none). What
// was moved aside is put back if the commit fails before a file of the
// new set is in place, and removed once every file is, or once one is and
// a later one fails; a stale name that is not a regular file is left
// alone. A hard exit (temps.removeAll) waits for the commit, and one that
// came first fails it.
func (s *staged) commit() error {
	if s.temps != nil {
		s.temps.commit.Lock()
		defer s.temps.commit.Unlock()
	}
	if s.temps.isClosed() {
		s.abort()
		return fmt.Errorf("cannot write the outputs in %s: %w", s.dir, errExiting)
	}
	for _, f := range s.files {
		if fi, err := os.Stat(f.final); err == nil && fi.IsDir() {
			s.abort()
			return fmt.Errorf("cannot write %s: it is a directory", f.final)
		}
	}
	// the manifest last
	slices.SortStableFunc(s.files, func(a, b stagedFile) int {
		return b2i(filepath.Base(a.final) == fitFileName) - b2i(filepath.Base(b.final) == fitFileName)
	})
	var aside []stagedFile // tmp: where a file was moved; final: its name
	restore := func() {
		for _, a := range aside {
			os.Rename(a.tmp, a.final)
			s.temps.forget(a.tmp)
		}
	}
	drop := func() {
		for _, a := range aside {
			os.Remove(a.tmp)
			s.temps.forget(a.tmp)
		}
	}
	// the old manifest first, when this set replaces or removes it: once
	// it is gone, the directory is incomplete until the new one is in place
	var moving []string
	if s.writes(fitFileName) || slices.Contains(s.stale, fitFileName) {
		moving = append(moving, fitFileName)
	}
	for _, name := range s.stale {
		if name != fitFileName {
			moving = append(moving, name)
		}
	}
	for _, name := range moving {
		p := filepath.Join(s.dir, name)
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		f, err := s.temps.createTemp(s.dir, "."+name+".old-*")
		if err == nil {
			f.Close()
			err = os.Rename(p, f.Name())
			if err != nil {
				os.Remove(f.Name())
				s.temps.forget(f.Name())
			}
		}
		if err != nil {
			restore()
			s.abort()
			return fmt.Errorf("cannot remove %s, an output of the earlier run in %s: %w", p, s.dir, err)
		}
		aside = append(aside, stagedFile{tmp: f.Name(), final: p})
	}
	for i, f := range s.files {
		if err := os.Rename(f.tmp, f.final); err != nil {
			if i == 0 {
				restore()
			} else {
				drop()
			}
			s.files = s.files[i:]
			s.abort()
			return fmt.Errorf("cannot write %s: %w", f.final, err)
		}
		s.temps.forget(f.tmp)
		if commitRenamed != nil {
			commitRenamed(f.final)
		}
	}
	s.files = nil
	drop()
	if d, err := os.Open(s.dir); err == nil {
		d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
	return nil
}

// writes reports whether the set has the file name.
func (s *staged) writes(name string) bool {
	return slices.ContainsFunc(s.files, func(f stagedFile) bool { return filepath.Base(f.final) == name })
}

// abort removes the staged temporary files.
func (s *staged) abort() {
	for _, f := range s.files {
		os.Remove(f.tmp)
		s.temps.forget(f.tmp)
	}
	s.files = nil
}

// The files every fit writes, in writeOutputs' order, and its ELBO plot.
const (
	summaryFile = "summary.csv"
	drawsFile   = "draws.csv"
	elboFile    = "elbo.csv"
	fitFileName = fitfile.FileName
	elboPlot    = "elbo.png"
	looFile     = "loo.csv" // with an output log_lik (wantsLOO)
)

// outputName matches the names of the files gpp fit writes: the fixed
// files, loo.csv, evidence.json, profile.csv, elbo.png, intervals.png, the heatmap of a matrix latent
// (meanPlotName), the predictive checks (ppcPlotName, ppcStatName) and
// the LOO-PIT checks (pitPlotName).
var outputName = regexp.MustCompile(`^(` + strings.Join([]string{
	regexp.QuoteMeta(summaryFile), regexp.QuoteMeta(drawsFile), regexp.QuoteMeta(elboFile),
	regexp.QuoteMeta(fitFileName), regexp.QuoteMeta(looFile), regexp.QuoteMeta(evidenceFile), regexp.QuoteMeta(profileFile), regexp.QuoteMeta(elboPlot), regexp.QuoteMeta(intervalsPlot), `[A-Za-z_][A-Za-z0-9_]*_mean\.png`, `ppc_[A-Za-z_][A-Za-z0-9_]*\.png`,
	`loo_pit_[A-Za-z_][A-Za-z0-9_]*\.png`,
}, "|") + `)$`)

// plannedOutputs returns the names of the files that a fit of m writes
// with cfg, as writeOutputs and plotFiles name them.
func plannedOutputs(cfg *fitConfig, m *compile.Model) []string {
	if cfg.prior || cfg.predict != "" || cfg.sample {
		names := []string{summaryFile, drawsFile}
		if cfg.sample {
			names = append(names, coordsFile)
			if cfg.plots {
				names = append(names, tracePlot, rankPlot, pairsPlot, intervalsPlot, energyPlot)
			}
		}
		if cfg.prior && cfg.plots {
			names = append(names, intervalsPlot)
		}
		if cfg.sample && hasLOOOutput(m) {
			names = append(names, looFile)
		}
		if cfg.sample && heldOutData(m) != nil {
			names = append(names, lppdFile)
		}
		if cfg.predict != "" && hasHeldOutLogLik(m) {
			names = append(names, lppdFile)
		}
		if cfg.against != "" {
			names = append(names, againstFile)
		}
		if cfg.plots {
			names = append(names, ppcNames(cfg.ppc)...)
		}
		if cfg.sample && cfg.profile {
			names = append(names, profileFile)
		}
		if cfg.sample && cfg.evidence {
			names = append(names, evidenceFile)
		}
		if cfg.sample && cfg.plots {
			names = append(names, pitNames(cfg.ppc, m)...)
		}
		return append(names, cfg.metricFiles...)
	}
	names := []string{summaryFile, drawsFile, elboFile, fitFileName}
	if wantsLOO(m, cfg.settings.Method) {
		names = append(names, looFile)
	}
	if heldOutData(m) != nil {
		names = append(names, lppdFile)
	}
	if cfg.evidence {
		names = append(names, evidenceFile)
	}
	if cfg.profile {
		names = append(names, profileFile)
	}
	if cfg.plots {
		names = append(names, elboPlot, intervalsPlot)
		for _, l := range m.Latents {
			if len(l.Shape) == 2 {
				names = append(names, meanPlotName(l.Name))
			}
		}
		names = append(names, ppcNames(cfg.ppc)...)
		if wantsLOO(m, cfg.settings.Method) {
			names = append(names, pitNames(cfg.ppc, m)...)
		}
	}
	return names
}

// inputFile is a file that a fit reads: what it is ("the data file") and
// its path as given.
type inputFile struct{ what, path string }

// modelAndData are the inputs of a command on the model at path with cfg's
// data files: what its outputs must not overwrite.
func modelAndData(cfg *fitConfig, path string) []inputFile {
	inputs := []inputFile{{"the model", path}}
	for _, arg := range cfg.data {
		_, file := pipeline.DataArg(arg)
		inputs = append(inputs, inputFile{"the data file", file})
	}
	return inputs
}

// overwriteClash reports an input that writing the files names into dir
// would overwrite, or that the commit would remove as a file of the
// earlier run there (staleInDir): a data file named dir/draws.csv, say.
// A path is the same file as another when both name it alike (cleaned
// absolute paths) or os.SameFile says so (links, case-insensitive file
// systems).
func overwriteClash(dir string, names []string, inputs []inputFile) error {
	stale := staleInDir(dir, names)
	for _, name := range append(slices.Clip(names), stale...) {
		out := filepath.Join(dir, name)
		for _, in := range inputs {
			if !sameFile(out, in.path) {
				continue
			}
			if slices.Contains(stale, name) {
				// fit.json is read again only here, to name the earlier run
				earlier := "run"
				if ff, err := readFitMeta(filepath.Join(dir, fitFileName), sources{}); err == nil && ff != nil {
					earlier = "fit"
				}
				return fmt.Errorf("--out %s: %s %s would be removed, as a file that the earlier %s there wrote (%s): give another --out directory", dir, in.what, in.path, earlier, name)
			}
			return fmt.Errorf("--out %s: %s %s would be overwritten by the output %s: give another --out directory", dir, in.what, in.path, name)
		}
	}
	return nil
}

// outputClash reports an input that a fit of m with cfg would destroy by
// writing its outputs (plannedOutputs) into cfg.out, or by removing the
// earlier run's files there (overwriteClash), cfg's --init file among
// the inputs.
func outputClash(cfg *fitConfig, m *compile.Model, inputs []inputFile) error {
	if cfg.init != "" {
		inputs = append(slices.Clip(inputs), inputFile{"the --init file", cfg.init})
	}
	return overwriteClash(cfg.out, plannedOutputs(cfg, m), inputs)
}

// sameFile reports whether paths a and b name the same file.
func sameFile(a, b string) bool {
	aa, errA := filepath.Abs(a)
	bb, errB := filepath.Abs(b)
	if errA == nil && errB == nil && aa == bb {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// prepareOutDir creates the output directory if needed and checks that
// files can be created in it. created reports whether it did not exist.
func prepareOutDir(dir string) (created bool, err error) {
	fi, statErr := os.Stat(dir)
	if errors.Is(statErr, os.ErrNotExist) {
		created = true
	}
	if statErr == nil && !fi.IsDir() {
		return false, fmt.Errorf("--out %s is a file, not a directory: give a directory for the outputs (it is made if need be)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("cannot create output directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".gpp-probe-*")
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return false, fmt.Errorf("cannot write in output directory %s: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return created, nil
}

// ---------------------------------------------------------------------------
// Names and columns

// writeColumnNames ends a draws CSV's header line: a comma and the CmdStan
// column name (compile.CSVName) of every element of vars, then the newline.
func writeColumnNames(bw *bufio.Writer, vars []variable) {
	for _, v := range vars {
		for _, k := range v.elems {
			bw.WriteByte(',')
			bw.WriteString(compile.CSVName(v.name, v.shape, k))
		}
	}
	bw.WriteByte('\n')
}

// variable is one latent or output as reported: its columns in CmdStan
// order.
type variable struct {
	name   string
	family string // the factor's family, or "output"
	shape  []int
	output bool
	index  int   // latent index in the Result, or output index
	off    int   // a latent's first coordinate
	elems  []int // row-major element index of each column, column-major order
	first  int   // index of its first column
	// corrK is K for a cholesky_factor_corr[K], corr_matrix[K] or
	// cholesky_factor_cov[K] or cov_matrix[K] latent (corrSupport its
	// support; corrL holds a corr_matrix's or cov_matrix's factor), reported as its K×K value (a factor L with
	// its upper zeros, as CmdStan, or Ω = L L') made from its coordinates
	// by dist.MatrixValues into corr; else 0. A sum_to_zero_vector[K]'s
	// and a sum_to_zero_matrix[M, N]'s (K and M) are reported as their
	// values likewise.
	corrK       int
	corrSupport dist.Support
	corrL       []float64
	corr        []float64
	// logScale marks a param whose elements are positive with no shift (a
	// positive or positive_ordered param, or real<lower=0>), which the
	// pairs plot shows on the log scale that NUTS moves on (set by
	// modelDrawSet).
	logScale bool
	// ordered marks a param of an ordered or positive_ordered type,
	// whatever its family column says (a positive_ordered's "gamma", a
	// joint factor's "fullrank" or "pathfinder"): its restarts cannot hold
	// it in another order (labelSwitchHint).
	ordered bool
	// fromPrior, when not nil, marks by row-major index the elements
	// drawn from the param's prior (gpp predict --new-levels), whose
	// family column is priorFamily (familyOf)
	fromPrior []bool
	// axes, when not nil, holds the labels that name the elements of each
	// axis sized by a column of labels (nil for an axis named by numbers;
	// labelAxes), for the summaries' names (elemName).
	axes [][]string
	// stanNames marks a variable of a CmdStan CSV (a Stan model's, read by
	// gpp summary): elemName names its elements 1-based, as Stan indexes.
	stanNames bool
}

// partsFamily names the family of an ordered factor by its parts': the
// one they share (a positive_ordered's one positive factor; MAP's points),
// else "ordered" (a normal x_0 and gamma increments).
func partsFamily(f *sgvb.Factor) string {
	if len(f.Parts) == 0 {
		return f.Family.String()
	}
	for _, p := range f.Parts[1:] {
		if p.Family != f.Parts[0].Family {
			return f.Family.String()
		}
	}
	return f.Parts[0].Family.String()
}

// reportVariables lists the latents and then the outputs of a model. The
// family a summary shows is the factor's, except for a Laplace or
// Pathfinder fit, whose one joint full-rank factor (as fit.json keeps it,
// for --init, predict and --against) is shown as the method, "laplace" or
// "pathfinder", as MAP's is "point".
func reportVariables(r *sgvb.Result, m *compile.Model) ([]variable, int) {
	var vars []variable
	ncol := 0
	for i := range r.Factors {
		f := &r.Factors[i]
		family := f.Family.String()
		switch {
		case r.Method.JointNormal():
			family = r.Method.String()
		case f.Family == sgvb.FamilyOrdered:
			family = partsFamily(f)
		}
		var value []int
		if f.Support.IsCoords() {
			for _, l := range m.Latents {
				if l.Name == f.Name && l.Value != nil {
					value = l.Value
				}
			}
		}
		v := latentVariable(f.Name, family, f.Shape, i, f.Offset, ncol, value, f.Support)
		ncol += len(v.elems)
		vars = append(vars, v)
	}
	return withOutputs(vars, ncol, m)
}

// latentVariable is the report of a latent from column first on: its
// elements, or for a matrix-valued latent (value, its shape, not nil) the
// K×K values its coordinates give.
func latentVariable(name, family string, shape []int, index, off, first int, value []int, sup dist.Support) variable {
	v := variable{name: name, family: family, shape: shape, index: index, off: off, elems: compile.ColumnMajor(shape), first: first, ordered: sup.IsOrdered()}
	if value != nil {
		v.shape, v.elems, v.corrK, v.corrSupport = value, compile.ColumnMajor(value), value[0], sup
		v.corr = make([]float64, compile.ShapeLen(value))
		if sup == dist.CorrMatrix || sup == dist.CovMatrix {
			v.corrL = make([]float64, compile.ShapeLen(value))
		}
	}
	return v
}

// withOutputs appends the reports of m's outputs to vars, the first from
// column ncol on, and returns them with the number of columns in all.
func withOutputs(vars []variable, ncol int, m *compile.Model) ([]variable, int) {
	for i, o := range m.Outputs {
		v := variable{name: o.Name, family: "output", shape: o.Shape, output: true, index: i, elems: compile.ColumnMajor(o.Shape), first: ncol}
		ncol += len(v.elems)
		vars = append(vars, v)
	}
	return vars, ncol
}

// ---------------------------------------------------------------------------
// Draws

// drawSet holds the output draws of a fit, one slice per column.
type drawSet struct {
	vars   []variable
	ncol   int
	mean   []float64   // the mean row: latents' means under q, outputs at that mean
	cols   [][]float64 // cols[c][d]
	logp   []float64   // log p at each draw (NaN where it is not finite)
	logq   []float64   // log q at each draw
	comp   []int       // the restart each draw came from (nil: one fit)
	R      int         // the number of restarts (1: one fit)
	bad    int         // draws where the log joint or an output was not finite
	badErr error       // the first such error
	// badLogp counts the draws whose log joint was not finite (an
	// output's failure aside), logpErr the first one's error (nil: a
	// value of ±Inf or NaN without one): mostlyNonFinite's test.
	badLogp int
	logpErr error
	loo     *sgvb.LOO // PSIS-LOO from the log_lik output (nil: none; see wantsLOO)
	// heldOut is the held-out lppd of a log_lik that scores data the
	// model does not observe (heldOutData), in place of loo (nil: none).
	heldOut *heldOut
	looObs  []int // the log_lik elements (j of its v.elems) that loo's Points are, in order
	// waic is the WAIC of the output draws' log_lik at looObs (nil: no
	// LOO), unweighted: for a fit, q's and not the posterior's.
	waic *sgvb.WAIC
	// looCond are the params with an element per observation that log_lik
	// reads, on which loo is conditional (looConditional; nil: none).
	looCond []looCondParam
	// pitDraws are loo's draws for the LOO-PIT (loopit.go; nil: no LOO),
	// and pits its checks once made (pitChecks).
	pitDraws *looDraws
	pits     []pitCheck
	// mm is what --moment-match did to loo (nil: no --moment-match).
	mm *mmReport
	// rl is what --reloo did to loo (nil: no --reloo).
	rl *relooReport
	// observed holds the Bernoulli ~ statements on data at the mean row
	// (compile.Evaluator.Observed), which separationWarnings reads.
	observed []compile.Observed
}

// checkDrawsSize reports n output draws of model m, or stepDraws draws per
// gradient step, that would hold more numbers than a model may store
// (autodiff.MaxElements), before any time is spent fitting: makeDraws keeps
// every draw of every column in memory, and a step keeps a gradient and a
// control variate's record of q's parameters (about two per coordinate)
// for each of its draws.
func checkDrawsSize(n, stepDraws int, m *compile.Model) error {
	cols := m.Dim + 2 // the latents, log p and log q
	for _, l := range m.Latents {
		if l.Value != nil { // a cholesky_factor_corr latent: K·K columns from K(K−1)/2 coordinates (and so on)
			cols += compile.ShapeLen(l.Value) - l.Size
		}
	}
	var loo []int
	hasLOO := false
	for _, o := range m.Outputs {
		if o.Name == looOutput {
			loo, hasLOO = o.Shape, true
		}
	}
	for _, o := range m.Outputs {
		cols += compile.ShapeLen(o.Shape)
		// PSIS-LOO's draws of the companion of q: as many again of log_lik,
		// and of the replicates of its shape, which the LOO-PIT weighs
		if hasLOO && sameShape(o.Shape, loo) {
			cols += compile.ShapeLen(o.Shape)
		}
	}
	if n > autodiff.MaxElements/cols {
		return fmt.Errorf("--output-draws %d: %d draws of %d columns would take more than %d numbers (%d GiB); ask for at most %d",
			n, n, cols, autodiff.MaxElements, autodiff.MaxElements>>27, autodiff.MaxElements/cols)
	}
	if per := 4 * max(m.Dim, 1); stepDraws > autodiff.MaxElements/per {
		return fmt.Errorf("--draws %d: a step keeps about %d numbers per draw for %d coordinate%s, more than %d numbers (%d GiB) in all; ask for at most %d",
			stepDraws, per, m.Dim, plural(m.Dim), autodiff.MaxElements, autodiff.MaxElements>>27, autodiff.MaxElements/per)
	}
	return nil
}

// makeDraws draws n samples from q, evaluates the log joint and the
// outputs at each, and evaluates the outputs at the mean of q. With a
// mixture of restarts (mix not nil; r is its restart 0), q is the mixture
// and draw d comes from restart d mod R.
func makeDraws(r *sgvb.Result, mix *sgvb.Mixture, m *compile.Model, n int, seed uint64) (*drawSet, error) {
	return makeDrawsAt(r, mix, m, n, seed, nil, false, nil)
}

// drawBatch is the number of draws makeDrawsAt draws from q at once.
const drawBatch = 16

// makeDrawsAt is makeDraws at the candidates of an importance resampling
// (pick not nil: draw d is candidate pick[d] of sgvb.Resample with seed,
// drawn again, and comes from restart pick[d] mod R of a mixture). Such
// draws estimate no LOO: their duplicates would bias it, and the fit's
// LOO is that of q's own draws (makeDraws). keepX keeps the coordinates of
// the LOO draws for --moment-match (momentMatchFit). With lv (gpp predict
// --new-levels) not nil, q is of the fit's layout, and each draw is laid
// out as m's with its new elements drawn (no LOO: predict has none).
func makeDrawsAt(r *sgvb.Result, mix *sgvb.Mixture, m *compile.Model, n int, seed uint64, pick []int, keepX bool, lv *levelDraws) (*drawSet, error) {
	return makeDrawsPaced(r, mix, m, n, seed, pick, keepX, lv, nil)
}

// drawsPace paces gpp fit's output draws by the time the row of q's mean
// took, which costs what a draw does: where all the draws would take
// slowAfter or more (an ODE solved at every draw), a line says how long,
// and after an interrupted fit fewer are made, as many as take about
// slowAfter but at least least (a trial's 1000 draws of a stiff ODE ran
// 80–300 s after Ctrl-C), as after an interrupt during the draws (live).
// The first draws are those a full run makes.
type drawsPace struct {
	now         func() time.Time // the clock; tests inject one
	con         *console
	interrupted bool
	// live reports an interrupt that comes during the draws (nil: none
	// comes); checked before each draw.
	live  func() bool
	least int           // the fewest draws an interrupted fit keeps
	one   time.Duration // what the row of q's mean took (plan)
	kept  int           // the draws made (set by makeDrawsPaced)
	// done counts the draws made, for their progress line
	// (phaseProgress, shown once they have run phaseQuiet); stop ends
	// that line.
	done atomic.Int64
	stop func()
}

// started starts the progress line of n draws (evals evaluations each),
// shown once they have run phaseQuiet.
func (p *drawsPace) started(n, evals int) {
	what := "output draws"
	if evals > 1 {
		what = "output draws (then the LOO's, as many again)"
	}
	p.stop = phaseProgress(p.con, what, "draws", n, func() int { return int(p.done.Load()) }, time.Now)
}

// ended ends the progress line, if any.
func (p *drawsPace) ended() {
	if p != nil && p.stop != nil {
		p.stop()
		p.stop = nil
	}
}

// plan returns how many of n draws to make, each costing evals
// evaluations of one's time, and says so where that is long.
func (p *drawsPace) plan(one time.Duration, n, evals int) int {
	p.one = one
	each := one * time.Duration(evals)
	all := each * time.Duration(n)
	if all < slowAfter {
		return n
	}
	what := ""
	if evals > 1 {
		what = fmt.Sprintf(" (%d evaluations each, with the LOO's)", evals)
	}
	if !p.interrupted {
		p.con.info("output draws: %d draws of q%s at about %s each will take about %s (the row of q's mean took %s)", n, what, humanSpan(each), humanSpan(all), humanSpan(one))
		return n
	}
	keep := n
	if each > 0 {
		keep = int(slowAfter / each)
	}
	keep = min(max(keep, p.least), n)
	if keep < n {
		p.con.note("interrupted: making %d of the %d output draws of q%s, which would take about %s at %s each; the summary and draws.csv are of these %d", keep, n, what, humanSpan(all), humanSpan(each), keep)
	}
	return keep
}

// cut returns how many of n draws to make after an interrupt that came
// when made of them had taken spent, each costing evals evaluations: as
// many as take about slowAfter more at their pace (which may keep fewer
// than were made, where the LOO's as many again would take long), at
// least least; and says so where that is fewer than n.
func (p *drawsPace) cut(spent time.Duration, made, n, evals int) int {
	one := p.one // before the first draw, the mean row's time
	if made > 0 {
		one = spent / time.Duration(made)
	}
	if one <= 0 {
		return n
	}
	// the draws made to keep, and evals-1 more LOO draws each
	keep := (int(slowAfter/one) + made) / evals
	keep = min(max(keep, p.least), n)
	if keep < n {
		what := ""
		if evals > 1 {
			what = fmt.Sprintf(" (%d evaluations each, with the LOO's)", evals)
		}
		rest := one * time.Duration(n*evals-made)
		p.con.note("interrupted: making %d of the %d output draws of q%s (%d made), which would take about %s more at %s each; the summary and draws.csv are of these %d", keep, n, what, made, humanSpan(rest), humanSpan(one*time.Duration(evals)), keep)
	}
	return keep
}

// makeDrawsPaced is makeDrawsAt with the draws paced by pace (nil: all n
// draws, silently).
func makeDrawsPaced(r *sgvb.Result, mix *sgvb.Mixture, m *compile.Model, n int, seed uint64, pick []int, keepX bool, lv *levelDraws, pace *drawsPace) (*drawSet, error) {
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil, err
	}
	defer pace.ended()
	vars, ncol := reportVariables(r, m)
	if lv != nil {
		vars, ncol = lv.relayout(vars)
	}
	x := make([]float64, r.Dim)
	z := make([]float64, r.Dim)
	// xm, zm: a draw laid out as m's (lv), else x and z themselves
	xm, zm := x, z
	if lv != nil {
		xm, zm = make([]float64, m.Dim), make([]float64, m.Dim)
	}

	// the mean row
	zmean := r.Mean()
	if mix != nil {
		zmean = mix.Mean()
	}
	r.Coords(x, zmean)
	ev.SetRand(rand.New(rand.NewPCG(seed, predictStream+1)))
	ev.SetDrawRand(rand.New(rand.NewPCG(seed, predictDataStream+1)))
	xmean := x
	if lv != nil {
		if err := lv.expand(lv.mean, x, zmean, xm, zm); err != nil {
			return nil, err
		}
		xmean, zmean = xm, zm
	}
	var t0 time.Time
	if pace != nil {
		t0 = pace.now()
	}
	_, outs, _ := ev.Eval(xmean)
	evals := 1
	if pace != nil {
		if pick == nil && lv == nil && mix == nil && wantsLOO(m, r.Method) && r.Defensive() != nil {
			evals = 2 // the LOO's defensive draws, as many again
		}
		n = pace.plan(pace.now().Sub(t0), n, evals)
		pace.kept = n
		// the progress line whether plan found the draws slow or not: the
		// mean row can under-read them (a Skellam output per row of 1900
		// matches, 1000 draws: 10 s after a mean row that foretold less),
		// and phaseProgress shows nothing before phaseQuiet
		pace.started(n, evals)
	}
	// the draws' columns, of the n that pace planned
	ds := &drawSet{vars: vars, ncol: ncol, mean: make([]float64, ncol), cols: make([][]float64, ncol),
		logp: make([]float64, n), logq: make([]float64, n), R: 1}
	if mix != nil {
		ds.R, ds.comp = len(mix.Components), make([]int, n)
	}
	for c := range ds.cols {
		ds.cols[c] = make([]float64, n)
	}
	ds.fill(zmean, outs, func(c int, v float64) { ds.mean[c] = v })
	ds.observed = ev.Observed()

	var lw *looWeights
	if pick == nil && lv == nil {
		lw = newLOOWeights(ds, r, mix, m, n, seed)
		if lw != nil && keepX && lw.miss == nil {
			lw.xs = make([]float64, 0, 2*n*r.Dim)
		}
	}
	rng := rand.New(rand.NewPCG(seed, sgvb.DrawStream))
	seedPredictive(ev, seed)
	// the draws of q a batch at a time (the same as one at a time, faster
	// for a full-rank q), each batch's buffers starting as x
	xs := make([][]float64, min(n, drawBatch))
	for k := range xs {
		xs[k] = slices.Clone(x)
	}
	// live: an interrupt during the draws cuts them (cut); faults records
	// each draw's failures (1: log p, 2: any, 4: with an error), to
	// recount those kept
	var live func() bool
	var faults []uint8
	var t1 time.Time
	if pace != nil && !pace.interrupted && pace.live != nil {
		live, faults, t1 = pace.live, make([]uint8, n), pace.now()
	}
	for d := 0; d < n; d++ {
		if live != nil && live() {
			live = nil
			if k := pace.cut(pace.now().Sub(t1), d, n, evals); k < n {
				pace.ended()
				n, pace.kept = k, k
				pace.started(n, evals)
			}
			if d >= n {
				break
			}
		}
		if d%drawBatch == 0 {
			hi := min(d+drawBatch, n)
			xb, lq := xs[:hi-d], ds.logq[d:hi]
			switch {
			case pick != nil && mix != nil:
				for j := d; j < hi; j++ {
					ds.comp[j] = pick[j] % ds.R
				}
				mix.Candidates(seed, pick[d:hi], xb, lq)
			case pick != nil:
				r.Candidates(seed, pick[d:hi], xb, lq)
			case mix != nil:
				for j := d; j < hi; j++ {
					ds.comp[j] = j % ds.R
				}
				mix.SampleCoordsBatch(rng, xb, ds.comp[d:hi], lq)
			default:
				r.SampleCoordsBatch(rng, xb, lq)
			}
			lw.batch(xb)
		}
		x = xs[d%drawBatch]
		if lv != nil {
			r.Natural(z, x)
			if err := lv.expand(lv.rng, x, z, xm, zm); err != nil {
				return nil, err
			}
		} else {
			xm = x
		}
		lp, outs, err := ev.Eval(xm)
		lw.add(x, ds.logq[d], lp)
		badLogp := err != nil || math.IsNaN(lp) || math.IsInf(lp, 0)
		if badLogp {
			ds.badLogp++
			if ds.badLogp == 1 {
				ds.logpErr = err
			}
		}
		if err == nil {
			err = ev.OutputErr() // log p stands; the output is written as it is
		}
		if badLogp || err != nil {
			ds.bad++
			if ds.badErr == nil {
				ds.badErr = err
			}
		}
		if faults != nil {
			faults[d] = uint8(b2i(badLogp) | 2*b2i(badLogp || err != nil) | 4*b2i(err != nil))
		}
		if math.IsInf(lp, 0) {
			lp = math.NaN()
		}
		ds.logp[d] = lp
		if lv == nil {
			r.Natural(z, x)
			zm = z
		}
		ds.fill(zm, outs, func(c int, v float64) { ds.cols[c][d] = v })
		if pace != nil {
			pace.done.Store(int64(d + 1))
		}
	}
	if n < len(ds.logp) {
		ds.keep(n, faults)
		lw.keep(ds, n, r.Dim)
	}
	if lw != nil {
		ds.waic = outputWAIC(ds, lw.v, lw.obs) // before the defensive draws join log_lik's columns
		lw.defensiveDraws(ev, x, n, seed)
		ds.loo, ds.looObs = lw.loo(), lw.obs
		ds.pitDraws = lw.pitDraws(ds)
	}
	ds.setHeldOut(m)
	return ds, nil
}

// keep cuts ds to its first n draws, recounting the failures among them
// from faults (makeDrawsPaced's, one per draw).
func (ds *drawSet) keep(n int, faults []uint8) {
	ds.logp, ds.logq = ds.logp[:n], ds.logq[:n]
	if ds.comp != nil {
		ds.comp = ds.comp[:n]
	}
	for c := range ds.cols {
		ds.cols[c] = ds.cols[c][:n]
	}
	ds.bad, ds.badLogp = 0, 0
	errs := false
	for _, f := range faults[:n] {
		ds.badLogp += int(f & 1)
		ds.bad += int(f >> 1 & 1)
		errs = errs || f&4 != 0
	}
	// the first error is a kept draw's if one of them had one
	if ds.badLogp == 0 {
		ds.logpErr = nil
	}
	if !errs {
		ds.badErr = nil
	}
}

// fill passes the values of one row to set, column by column: latents
// from z (natural scale), outputs from outs (nil: NaN).
func (ds *drawSet) fill(z []float64, outs [][]float64, set func(c int, v float64)) {
	for _, v := range ds.vars {
		for j, k := range v.elems {
			val := math.NaN()
			switch {
			case v.corrK > 0 && v.corrSupport == dist.SumToZeroMatrix:
				if j == 0 {
					m, n := v.shape[0], v.shape[1]
					dist.SumToZeroMatrixValues(v.corr, z[v.off:v.off+(m-1)*(n-1)], m, n)
				}
				val = v.corr[k]
			case v.corrK > 0:
				if j == 0 {
					dist.MatrixValues(v.corrSupport, v.corr, v.corrL, z[v.off:v.off+v.corrSupport.MatrixSize(v.corrK)], v.corrK)
				}
				val = v.corr[k]
			case !v.output:
				val = z[v.off+k]
			case outs != nil && v.index < len(outs) && k < len(outs[v.index]):
				val = outs[v.index][k]
			}
			set(v.first+j, val)
		}
	}
}

// ---------------------------------------------------------------------------
// Summary statistics

// stats summarises one column of draws.
type stats struct {
	mean, sd, q5, q50, q95 float64
	rhat                   float64    // R̂ across restarts (NaN: one fit)
	nan                    int        // draws left out as NaN
	n, finite              int        // draws, and those finite (finiteCell)
	hdi                    [2]float64 // the HDI's ends with --hdi (percentiles.hdiCells)
	// qs are the quantiles at --percentiles' probabilities (summarise's
	// probs), nil for the default, which q5, q50 and q95 hold
	// (statPercentiles).
	qs []float64
}

// summariseColumns summarises every column of ds, with its HDI of
// probability hdi (0: none), its quantiles at probs (--percentiles; nil:
// the default) and R̂ across the restarts when there are several.
func summariseColumns(ds *drawSet, hdi float64, probs []float64) []stats {
	st := make([]stats, ds.ncol)
	for c := range ds.cols {
		st[c] = summarise(ds.cols[c], hdi, probs...)
		st[c].rhat = math.NaN()
		if ds.comp != nil {
			st[c].rhat = sgvb.RestartRhat(ds.cols[c], ds.comp, ds.R)
		}
	}
	return st
}

// summarise computes the mean, the standard deviation and the 5 %, 50 % and
// 95 % quantiles (R's type 7, as the posterior package) of the values of
// xs that are not NaN, and counts the NaNs (nanWarnings reports them).
// Infinities take part: an output that is +Inf in most draws has the
// median +Inf, and the mean ±Inf (NaN with both signs) and sd NaN. With
// hdi > 0 (--hdi) it gives the HDI of that probability of the same draws
// (nuts.HDI), and the quantiles at probs (--percentiles: stats.qs), of the
// same sorted draws, once for the table and summary.csv. An sd below
// 1e-12 of the largest draw's size is rounding, and is 0.
func summarise(xs []float64, hdi float64, probs ...float64) stats {
	v, nan := nuts.SortedFinite(xs)
	s := stats{rhat: math.NaN(), nan: nan, n: len(xs), finite: len(v)}
	for _, x := range v {
		if math.IsInf(x, 0) {
			s.finite--
		}
	}
	s.mean, s.sd = nuts.MeanSD(v)
	if len(v) > 1 && s.sd < 1e-12*max(math.Abs(v[0]), math.Abs(v[len(v)-1])) {
		s.sd = 0 // rounding: R = L * L''s unit diagonal spreads by 1e-16
	}
	s.q5, s.q50, s.q95 = nuts.Quantile(v, 0.05), nuts.Quantile(v, 0.5), nuts.Quantile(v, 0.95)
	if len(probs) > 0 {
		s.qs = make([]float64, len(probs))
		for i, p := range probs {
			s.qs[i] = nuts.Quantile(v, p)
		}
	}
	if hdi > 0 {
		s.hdi[0], s.hdi[1] = nuts.HDI([][]float64{v}, hdi)
	}
	return s
}

// finiteCell is the table's note on an element not finite in some draws
// (empty where every draw is): a mean over 66 of 1000 draws must not read
// as an ordinary summary, as NaN's left out (summarise) would otherwise.
func finiteCell(s stats) string {
	switch {
	case s.finite == s.n:
		return ""
	case s.nan == s.n:
		return "(NaN in every draw)"
	case s.finite == 0:
		return fmt.Sprintf("(no finite draw of %d)", s.n)
	}
	return fmt.Sprintf("(%d of %d draws finite)", s.finite, s.n)
}

// markFinite appends finiteCell's note to a table row of an element
// summarised as s; an element NaN in every draw has its number cells, from
// the from-th on, blank rather than all NaN.
func markFinite(row []string, from int, s stats) []string {
	note := finiteCell(s)
	if note == "" {
		return row
	}
	if s.nan == s.n {
		for i := from; i < len(row); i++ {
			row[i] = ""
		}
	}
	return append(row, note)
}

// anyNotFinite reports whether an element of cols, summarised as st, is
// not finite in some draw: summary.csv then has a column n_finite.
func anyNotFinite(st []stats, cols []int) bool {
	for _, c := range cols {
		if st[c].finite < st[c].n {
			return true
		}
	}
	return false
}

// badDrawsWarning returns the warning for the draws of ds where the log
// joint or an output was not finite ("N of M " what, and the first
// error), or "" if there were none.
func badDrawsWarning(ds *drawSet, what string) string {
	if ds.bad == 0 {
		return ""
	}
	msg := fmt.Sprintf("%d of %d %s", ds.bad, len(ds.logp), what)
	if ds.badErr != nil {
		msg += "; the first: " + ds.badErr.Error()
	}
	return msg
}

// outputWarnings returns the warnings about the values of the draws ds
// (summarised as st) that every command writing draws of outputs gives:
// badDrawsWarning's (what says what was not finite), nanWarnings',
// inexactWarnings' and indexWarnings'.
func outputWarnings(ds *drawSet, st []stats, info *check.Info, what string) []string {
	var out []string
	if w := badDrawsWarning(ds, what); w != "" {
		out = append(out, w)
	}
	out = append(out, nanWarnings(ds, st)...)
	out = append(out, inexactWarnings(ds, info)...)
	return append(out, indexWarnings(ds, info)...)
}

// nanWarnings returns, for every variable with an element that is NaN in
// some draws, how many, naming the first nanNamed such elements of an
// array: its rows summarise the other draws. Naming only the worst
// element hid an lxu[3] NaN in 935 of 1000 draws behind lxu[2] NaN in all.
func nanWarnings(ds *drawSet, st []stats) []string {
	var out []string
	for _, v := range ds.vars {
		if len(v.elems) == 0 {
			continue // a zero-length output (head(y, 0)) has no column
		}
		n := len(ds.cols[v.first])
		count := func(nan int) string {
			if nan == n {
				return "in every draw"
			}
			return fmt.Sprintf("in %d of %d draws", nan, n)
		}
		var named []string
		bad := 0
		for j, k := range v.elems {
			nan := st[v.first+j].nan
			if nan == 0 {
				continue
			}
			bad++
			if len(named) < nanNamed {
				named = append(named, v.elemName(k)+" "+count(nan))
			}
		}
		switch {
		case bad == 0:
		case len(v.elems) == 1 && st[v.first].nan == n:
			out = append(out, fmt.Sprintf("%s is NaN in every draw", v.name))
		case len(v.elems) == 1:
			out = append(out, fmt.Sprintf("%s is NaN %s; its summary is over the other draws", v.name, count(st[v.first].nan)))
		default:
			if bad > len(named) {
				named = append(named, fmt.Sprintf("and %d more: summary.csv's n_finite", bad-len(named)))
			}
			out = append(out, fmt.Sprintf("%s is NaN in some draws of %d of its %d elements (%s); their rows summarise the other draws", v.name, bad, len(v.elems), strings.Join(named, ", ")))
		}
	}
	return out
}

// nanNamed is how many elements of a variable nanWarnings names.
const nanNamed = 3

// inexactWarnings returns, for every output of type int (a replicate of a
// discrete distribution, or an expression of them) with a draw past 2^53 in
// magnitude, how many: a float64 holds no exact integer there, so those
// draws are written as reals rounded to 6 digits (formatNum), not as
// counts.
func inexactWarnings(ds *drawSet, info *check.Info) []string {
	isInt := map[string]bool{}
	for _, o := range info.Outputs {
		isInt[o.Name] = o.Type.Elem == check.Int
	}
	var out []string
	for _, v := range ds.vars {
		if !v.output || !isInt[v.name] {
			continue
		}
		n := 0
		for j := range v.elems {
			for _, x := range ds.cols[v.first+j] {
				if math.Abs(x) > 1<<53 {
					n++
				}
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s is an int past 2^53 in %d of %d values, where a float64 holds no exact integer: they are written as rounded reals", v.name, n, len(v.elems)*len(ds.logp)))
		}
	}
	return out
}

// isSortIndices reports whether e is a call of sort_indices_asc or
// sort_indices_desc.
func isSortIndices(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	return ok && (c.Fun.Name == "sort_indices_asc" || c.Fun.Name == "sort_indices_desc")
}

// indexWarnings returns, for every output whose values are indices that
// sort_indices_asc or sort_indices_desc gives (the output itself, or an
// element of it: the best of N, sort_indices_desc(u)[0]), that the
// summary's mean and sd are of the index numbers, which label elements
// and measure nothing (a mean index 13.5 names none); a scalar's most
// frequent index is given instead.
func indexWarnings(ds *drawSet, info *check.Info) []string {
	from := map[string]string{}
	for _, o := range info.Outputs {
		if o.Value == nil {
			continue
		}
		e := ast.Unparen(o.Value)
		if ix, ok := e.(*ast.IndexExpr); ok {
			e = ast.Unparen(ix.X)
		}
		if c, ok := e.(*ast.CallExpr); ok && isSortIndices(c) && !(c.Fun.Name == "sort_indices_asc" && len(c.Args) == 1 && isSortIndices(ast.Unparen(c.Args[0]))) {
			// sort_indices_asc of sort_indices_*(x) inverts the permutation:
			// each element's rank, a count whose mean is meaningful
			from[o.Name] = ast.FormatExpr(o.Value)
		}
	}
	var out []string
	for _, v := range ds.vars {
		expr, ok := from[v.name]
		if !v.output || !ok {
			continue
		}
		if len(v.elems) > 1 {
			out = append(out, fmt.Sprintf("%s = %s holds indices: the mean and sd of each element are of index numbers, which name elements and measure nothing; read how often each index is drawn (the draws file)", v.name, expr))
			continue
		}
		drawn := slices.DeleteFunc(slices.Clone(ds.cols[v.first]), math.IsNaN)
		if len(drawn) == 0 {
			continue
		}
		mode, most, _ := sgvb.Mode(drawn)
		out = append(out, fmt.Sprintf("%s = %s is an index: its mean and sd are of index numbers, which name elements and measure nothing; its most frequent value is %s, in %s%% of draws", v.name, expr, formatNum(mode), numSig(100*float64(most)/float64(len(drawn)), 2)))
	}
	return out
}

// ---------------------------------------------------------------------------
// CSV files

// formatNum formats a number for the CSV files (fitfile.FormatNum).
func formatNum(v float64) string { return fitfile.FormatNum(v) }

// formatExact is formatNum with the shortest digits that read back as v.
func formatExact(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return formatNum(v)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// familyOf is the family column of row-major element k of v.
func (v *variable) familyOf(k int) string {
	if v.fromPrior != nil && v.fromPrior[k] {
		return priorFamily
	}
	return v.family
}

// writeSummaryCSV writes summary.csv, a column qP for each percentile P
// of pc (q5, q50 and q95 by default); with restarts it has a column rhat;
// where an element is not finite in some draw, a last column n_finite.
func writeSummaryCSV(w io.Writer, ds *drawSet, st []stats, pc percentiles) error {
	cw := csv.NewWriter(w)
	head := pc.hdiHead(pc.head([]string{"name", "family", "mean", "sd"}, "q", ""))
	if ds.comp != nil {
		head = append(head, "rhat")
	}
	var cols []int
	for _, v := range ds.vars {
		for j := range v.elems {
			cols = append(cols, v.first+j)
		}
	}
	nFinite := anyNotFinite(st, cols)
	if nFinite {
		head = append(head, "n_finite")
	}
	cw.Write(head)
	for _, v := range ds.vars {
		for j, k := range v.elems {
			s := st[v.first+j]
			row := pc.cells([]string{v.elemName(k), v.familyOf(k), formatNum(s.mean), formatNum(s.sd)}, v.first+j, formatNum)
			row = pc.hdiCells(row, s, formatNum)
			if ds.comp != nil {
				row = append(row, formatNum(s.rhat))
			}
			if nFinite {
				row = append(row, strconv.Itoa(s.finite))
			}
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeElboCSV writes elbo.csv from the fit's trace; with restarts, the
// traces of all of them, after a column restart.
func writeElboCSV(w io.Writer, h drawsHeader) error {
	cw := csv.NewWriter(w)
	if h.mix == nil && h.r.Method == sgvb.Pathfinder { // each iterate's normal
		cw.Write([]string{"iter", "elbo_estimate", "se", "seconds"})
		for _, t := range h.r.Trace {
			cw.Write([]string{strconv.Itoa(t.Iter), formatNum(t.ELBO), formatNum(t.SE), strconv.FormatFloat(t.Seconds, 'f', 3, 64)})
		}
	} else if h.mix == nil && h.r.Method != sgvb.SGVB { // L-BFGS's iterates
		obj := "log_joint"
		if h.r.Method == sgvb.Laplace { // of the unconstrained coordinates, Jacobian included
			obj = "log_density"
		}
		cw.Write([]string{"iter", obj, "seconds"})
		for _, t := range h.r.Trace {
			cw.Write([]string{strconv.Itoa(t.Iter), formatNum(t.ELBO), strconv.FormatFloat(t.Seconds, 'f', 3, 64)})
		}
	} else if h.mix == nil {
		cw.Write([]string{"iter", elboColumn(h), "se", "seconds"})
		for _, t := range h.r.Trace {
			cw.Write([]string{strconv.Itoa(t.Iter), formatNum(t.ELBO), formatNum(t.SE), strconv.FormatFloat(t.Seconds, 'f', 3, 64)})
		}
	} else {
		cw.Write([]string{"restart", "iter", elboColumn(h), "se", "seconds"})
		for r, c := range h.mix.Components {
			for _, t := range c.Trace {
				cw.Write([]string{strconv.Itoa(h.mix.Restarts[r]), strconv.Itoa(t.Iter), formatNum(t.ELBO), formatNum(t.SE), strconv.FormatFloat(t.Seconds, 'f', 3, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// elboColumn names elbo.csv's ELBO column: batch_elbo for a minibatch
// fit's estimates from its batches (noisier than the final full-data ELBO
// that the console and fit.json give), else elbo.
func elboColumn(h drawsHeader) string {
	if h.cfg != nil && h.cfg.settings.Minibatch != nil {
		return "batch_elbo"
	}
	return "elbo"
}

// drawsHeader is the configuration written as comment lines at the top of
// draws.csv, in CmdStan's "key = value" layout.
type drawsHeader struct {
	model, modelHash string
	data             []string
	dataHash         []string // sha256 of each data file's contents (dataHashes), or nil
	// observed is the sha256 of each observed data's values, by name
	// (fitfile.ObservedHashes), or nil.
	observed map[string]string
	// covariates is the sha256 of the other data's values
	// (fitfile.CovariateHashes), or nil.
	covariates map[string]string
	cfg        *fitConfig
	r          *sgvb.Result  // the fit, or restart 0 of a mixture
	mix        *sgvb.Mixture // the restarts, or nil
	stepSize   float64
	// missing says which data cell each fitted missing value is.
	missing []data.Missing
	// levels are the codings of the data's columns of labels (data.Coded),
	// which gpp predict codes new data by.
	levels map[string]data.Levels
	// sizes are the int data sizes bound from the largest value of the
	// numeric ids they bound (data.CodeSizes), which gpp predict binds
	// new data's to.
	sizes map[string]int
	// columns are the CSV columns each matrix was bound from, in order
	// (data.MatrixColumns), which gpp predict binds new data's by name.
	columns map[string][]string
	// resample is what --psis-resample did (nil: not asked for, or the
	// fit was interrupted).
	resample *resampleOutcome
	// evidence is --evidence's estimate (nil: not asked for, or the fit
	// was interrupted).
	evidence *evidenceOutcome
	// curv is the curvature check of a mean-field fit (nil: it did not
	// run, meanFieldCurvature).
	curv *curvCheck
	// notices are fit.json's warnings and hints, every one the run
	// prints (nil: the engine's warnings and no hints).
	notices *fileNotices
	// narrow names the elements whose sds the curvature hint calls too
	// small, which the console's table marks (narrowSds; nil: none).
	narrow map[string]bool
	// unchecked names the elements whose sds a partial curvature check
	// could not judge, which the table marks ? (narrowSds; nil: none).
	unchecked map[string]bool
	// mild names the elements whose sds the curvature check reads
	// mildRatio to curvRatio times too small, which the table marks ~
	// (narrowSds; nil: none).
	mild map[string]bool
	// heldOut is gpp predict's held-out lppd (heldOutLPPD), computed once
	// for lppd.csv and the summary's held-out line (nil: none).
	heldOut *heldOut
}

// writeDrawsCSV writes draws.csv in CmdStan's variational layout: comment
// lines with the configuration, the header row lp__,log_p__,log_g__ and the
// columns, CmdStan's adaptation comment lines, the mean row (lp__, log_p__
// and log_g__ zero), then one row per draw with lp__ = 0, log_p__ the log
// joint and log_g__ the log density of q at the draw. Both densities are of
// the latents on their natural scale (gpp adds no Jacobian), so
// log_p__ − log_g__ is the log importance ratio of the draw. With restarts,
// log_g__ is the mixture's density and a column restart__ after it names
// the restart each draw came from.
func writeDrawsCSV(w io.Writer, h drawsHeader, ds *drawSet) error {
	bw := bufio.NewWriter(w)
	r := h.r
	p := func(format string, args ...any) { fmt.Fprintf(bw, format+"\n", args...) }
	writeModelHeader(p, h)
	switch {
	case h.cfg != nil && h.cfg.predict != "":
		writePredictHeader(p, h)
	case r == nil:
		writePriorHeader(p, h)
	default:
		writeFitHeader(p, h)
	}
	bw.WriteString("lp__,log_p__,log_g__")
	if ds.comp != nil {
		bw.WriteString(",restart__")
	}
	writeColumnNames(bw, ds.vars)
	if r != nil {
		p("# Stepsize adaptation complete.")
		p("# eta = %s", formatNum(h.stepSize))
	}
	bw.WriteString("0,0,0")
	if ds.comp != nil {
		bw.WriteString(",NaN") // the mean is the mixture's, of no one restart
	}
	for _, v := range ds.mean {
		bw.WriteByte(',')
		bw.WriteString(formatNum(v))
	}
	bw.WriteByte('\n')
	for d := range ds.logp {
		// the densities in full: their difference is a draw's log
		// importance ratio, which 6 digits of a log joint of −10⁶ would
		// round by up to 0.5
		bw.WriteString("0,")
		bw.WriteString(formatExact(ds.logp[d]))
		bw.WriteByte(',')
		bw.WriteString(formatExact(ds.logq[d]))
		if ds.comp != nil {
			bw.WriteByte(',')
			bw.WriteString(strconv.Itoa(ds.comp[d]))
		}
		ds.writeRow(bw, d)
	}
	return bw.Flush()
}

// writeRow ends draw d's row of a draws.csv: a comma and each column's
// value, then the newline (every writer's, after its own leading columns).
func (ds *drawSet) writeRow(bw *bufio.Writer, d int) {
	for c := range ds.cols {
		bw.WriteByte(',')
		bw.WriteString(formatNum(ds.cols[c][d]))
	}
	bw.WriteByte('\n')
}

// writeModelHeader writes the comment lines that open every draws.csv:
// gpp's version, the model and its sha256, and the data cells fitted as
// params (missing values).
func writeModelHeader(p func(string, ...any), h drawsHeader) {
	p("# gpp_version = %s", version)
	p("# model = %s", h.model)
	p("# model_sha256 = %s", h.modelHash)
	for _, m := range h.missing {
		p("# %s = %s at %s", m.Latent, m.Data, strings.Join(fitfile.CellTexts(m.Cells), ", "))
	}
}

// writeRunHeader writes the comment lines of draws.csv that a fit and
// prior draws share: the seed, the data files and --set values, the file.
// The data arguments share one line, separated by spaces, as the REPL's
// :data reads them (quoteArgs: a space in a path escaped, my\ data/y.csv),
// so that gpp compare reads them back one by one (readSampleMeta); a line
// of plain paths is CmdStan's, and reads as the lines written before the
// escaping did.
func writeRunHeader(p func(string, ...any), h drawsHeader) {
	c := h.cfg
	p("# random")
	p("#   seed = %d", c.settings.Seed)
	p("# data")
	p("#   file = %s", quoteArgs(h.data))
	if len(h.dataHash) == len(h.data) { // as fit.json's data_sha256: gpp compare reads them (readSampleMeta)
		for _, x := range h.dataHash {
			p("#   file_sha256 = %s", x)
		}
	}
	for _, k := range sortedKeys(h.observed) { // as fit.json's observed_sha256 (readSampleMeta)
		p("#   observed_sha256 %s = %s", k, h.observed[k])
	}
	for _, k := range sortedKeys(h.covariates) {
		p("#   covariate_sha256 %s = %s", k, h.covariates[k])
	}
	for _, k := range sortedKeys(c.sets) {
		p("#   set %s = %s", k, c.sets[k])
	}
	p("# output")
	p("#   file = %s", filepath.Join(c.out, drawsFile))
	if l := drawsParamsLine(c); l != "" {
		p("%s", l)
	}
}

// writeFitHeader writes the comment lines of a fit's draws.csv after the
// model's.
func writeFitHeader(p func(string, ...any), h drawsHeader) {
	c, r := h.cfg, h.r
	// method and algorithm are the values CmdStan writes, which its tools
	// (cmdstanpy's from_csv) dispatch on; gpp's own choices follow
	if r.Method == sgvb.MAP {
		p("# method = optimize")
		p("#   optimize")
		p("#     algorithm = lbfgs")
		p("#     jacobian = 0")
		p("#     iter = %d", c.settings.MaxIter)
	} else if r.Method == sgvb.Laplace {
		// CmdStan's laplace header; the rows keep gpp's variational layout
		// (lp__ = 0, the mean row first), as every gpp fit's draws.csv
		p("# method = laplace")
		p("#   laplace")
		p("#     jacobian = 1")
		p("#     draws = %d", c.outputDraws)
		p("#     gpp_mode = lbfgs")
		p("#     gpp_hessian = central differences of the gradient")
		p("#     iter = %d", c.settings.MaxIter)
		p("#     output_samples = %d", c.outputDraws)
		if c.resample {
			p("#     psis_resample = 1")
		}
	} else if r.Method == sgvb.Pathfinder {
		// CmdStan's pathfinder header, its defaults gpp's; the rows keep
		// gpp's variational layout, as Laplace's
		p("# method = pathfinder")
		p("#   pathfinder")
		p("#     history_size = %d", sgvb.PathfinderHistory)
		p("#     max_lbfgs_iters = %d", c.settings.MaxIter)
		p("#     num_draws = %d", c.outputDraws)
		p("#     num_elbo_draws = %d", sgvb.PathfinderDraws)
		p("#     num_paths = %d", max(c.restarts, 1))
		p("#     psis_resample = %d", b2i(c.resample))
		p("#     jacobian = 1")
	} else {
		p("# method = variational")
		p("#   variational")
		algo := "meanfield" // Stan's fullrank: one joint factor over every latent (--fullrank all)
		if len(r.Groups) == 1 && len(r.Groups[0].Names) == len(r.Factors) {
			algo = "fullrank"
			if r.Groups[0].Rank > 0 { // no Stan algorithm: gpp's own name
				algo = "lowrank"
			}
			if r.Groups[0].Band > 0 {
				algo = "banded"
			}
		}
		p("#     algorithm = %s", algo)
		p("#     gpp_method = sgvb")
		p("#     gpp_families = %s", c.family)
		if c.fullRank != "" { // the factors algorithm does not say: --fullrank beta, alpha+tau
			p("#     gpp_fullrank = %s", c.fullRank)
		}
		if c.rank > 0 {
			p("#     gpp_rank = %d", c.rank)
		}
		if c.band > 0 {
			p("#     gpp_band = %d", c.band)
		}
		if mb := minibatchSetting(c); mb != "" {
			p("#     gpp_minibatch = %s", mb)
		}
		p("#     iter = %d", c.settings.MaxIter)
		p("#     grad_samples = %d", max(c.settings.DrawsPerStep, 1))
		p("#     elbo_samples = %d", 100)
		p("#     eta = %s", formatNum(h.stepSize))
		p("#     optimizer = %s", c.settings.Optimizer)
		p("#     gamma_grad = %s", c.gammaGrad)
		p("#     gamma_param = %s", c.gammaParam)
		p("#     estimator = %s", c.estimator)
		p("#     tol_rel_obj = %s", formatNum(c.tol))
		p("#     eval_elbo = %d", max(c.settings.EvalEvery, 1))
		p("#     output_samples = %d", c.outputDraws)
		if c.resample {
			p("#     psis_resample = 1")
		}
		if h.mix != nil {
			p("#     restarts = %d", len(h.mix.Components))
			p("#     jitter = %s", formatNum(c.jitter))
			if c.initRadius > 0 {
				p("#     init_radius = %s", formatNum(c.initRadius))
			}
		}
	}
	writeRunHeader(p, h)
	if m := h.mix; m != nil {
		conv, iters := true, 0
		for i, rc := range m.Components {
			p("# restart %d: seed = %s, iterations = %d, converged = %d, interrupted = %d, elbo = %s, pareto_k = %s (%s)",
				m.Restarts[i], sgvb.RestartSeedText(m.Seeds[i], m.Restarts[i]), rc.Iterations, b2i(rc.Converged), b2i(rc.Interrupted), formatNum(rc.ELBO), formatNum(rc.ParetoK), rc.ParetoReading)
			conv, iters = conv && rc.Converged, max(iters, rc.Iterations)
		}
		for _, f := range m.Failed {
			p("# restart %d: seed = %s, failed and left out: %s", f.Restart, sgvb.RestartSeedText(f.Seed, f.Restart), strings.Join(strings.Fields(f.Err.Error()), " "))
		}
		p("# iterations = %d", iters)
		p("# converged = %d", b2i(conv))
		p("# interrupted = %d", b2i(m.Interrupted))
		if m.Interrupted {
			p("# INTERRUPTED: the fits were stopped by Ctrl-C; these draws are from the mixture of the q's they had reached")
		}
		p("# elbo = %s", formatNum(m.ELBO))
		p("# (elbo and pareto_k are the mixture's; each restart's are on its line above)")
		p("# pareto_k = %s (%s)", formatNum(m.ParetoK), m.ParetoReading)
	} else {
		p("# iterations = %d", r.Iterations)
		p("# converged = %d", b2i(r.Converged))
		p("# averaged_iterates = %d (q is their mean; 0: the last iterate)", r.Averaged)
		p("# interrupted = %d", b2i(r.Interrupted))
		if r.Interrupted {
			p("# INTERRUPTED: the fit was stopped by Ctrl-C at iteration %d; these draws are from the q it had reached", r.Iterations)
		}
		if r.Method == sgvb.MAP {
			p("# log_joint = %s (at the MAP estimate)", formatNum(r.ELBO))
		} else {
			p("# elbo = %s", formatNum(r.ELBO))
			p("# pareto_k = %s (%s)", formatNum(r.ParetoK), r.ParetoReading)
		}
	}
	if o := h.resample; o != nil {
		p("# psis_resample: candidates = %d, pareto_k = %s (%s), ess = %s, distinct = %d, resampled = %d",
			o.rs.Candidates, formatNum(o.rs.K), sgvb.ParetoReading(o.rs.K), formatNum(o.rs.ESS), o.distinct, b2i(o.used))
		if o.used {
			p("# (the draws below are drawn with replacement from the candidates, draws of q, by their Pareto-smoothed weights p/q; the mean row is q's)")
		} else {
			p("# (the candidates' weights are unusable, too few finite or of pareto_k above 0.7 and ess below the draws: the draws below are q's own, not resampled)")
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ---------------------------------------------------------------------------
// fit.json: its types, reader and writer are internal/fitfile's; here, what
// the commands record in it

// newFitHead is the head of a file of format for the fit of h.
func newFitHead(format string, h drawsHeader) fitfile.Head {
	fh := fitfile.Head{Format: format, GppVersion: version, Model: h.model, ModelSHA256: h.modelHash,
		Data: append([]string{}, h.data...), DataSHA256: h.dataHash, ObservedSHA256: h.observed, CovariateSHA256: h.covariates}
	if len(h.cfg.sets) > 0 {
		fh.Sets = map[string]string(h.cfg.sets)
	}
	return fh
}

// minibatchSetting is --minibatch as the fit used it (N=B), or "" for a
// full-data fit (B ≥ N included).
func minibatchSetting(c *fitConfig) string {
	if c.settings.Minibatch == nil {
		return ""
	}
	return fmt.Sprintf("%s=%d", c.batchSize, c.batchRows)
}

// annealSetting is --anneal as a minibatch fit used it (-1: none), or 0
// (omitted) for a full-data fit, which does not anneal.
func annealSetting(c *fitConfig) int {
	if c.settings.Minibatch == nil {
		return 0
	}
	if c.settings.Anneal < 0 {
		return -1
	}
	return c.settings.Anneal
}

// recordData sets h's missing cells, codings of columns of labels and
// sizes bound from numeric ids from the data l bound: what fit.json and
// coords.csv record for gpp predict, logprob and sensitivity; and the
// hashes of the observed data's values, which gpp compare reads.
func (h *drawsHeader) recordData(l *pipeline.Loaded) {
	b := fitfile.BoundOf(l.Info, l.Data, l.Model.NotLeaves(), l.Model.Skipped())
	h.missing, h.levels, h.sizes, h.columns = b.Missing, b.Levels, b.Sizes, b.Columns
	h.observed = fitfile.ObservedHashes(l.Model.Observed(), l.Data)
	h.covariates = fitfile.CovariateHashes(l.Model.Observed(), l.Data)
}

// newFitFile describes a fit for fit.json, with the warnings and hints
// of h.notices where known.
func newFitFile(h drawsHeader) *fitfile.File {
	ff := fitFileOf(h)
	ff.Hints = []string{}
	if n := h.notices; n != nil {
		// the plots left out are printed after the commit, which renders
		// them before fit.json
		ws := append([]string{}, n.before...)
		for _, u := range h.cfg.unplotted {
			ws = append(ws, u.warning())
		}
		ff.Warnings, ff.Hints = append(ws, n.after...), n.hints
	}
	return ff
}

// fitFileOf describes a fit for fit.json, its warnings the engine's.
func fitFileOf(h drawsHeader) *fitfile.File {
	c, r := h.cfg, h.r
	settings := fitfile.Settings{
		Family: c.family, Optimizer: c.settings.Optimizer.String(), StepSize: fitfile.Float(c.settings.StepSize),
		Seed: c.settings.Seed, Iter: c.settings.MaxIter, DrawsPerStep: c.settings.DrawsPerStep,
		GammaGrad: c.gammaGrad, GammaParam: c.gammaParam, Estimator: c.estimator, Tol: fitfile.Float(c.tol), LastIterate: c.settings.LastIterate, EvalEvery: c.settings.EvalEvery,
		Workers: c.settings.Workers, OutputDraws: c.outputDraws, Init: initSetting(c), FullRank: c.fullRank, Rank: c.rank, Band: c.band,
		PSISResample: c.resample,
		Minibatch:    minibatchSetting(c),
		Anneal:       annealSetting(c),
	}
	ff := fitfile.New(newFitHead(fitfile.Format, h), settings, r, h.stepSize,
		fitfile.Bound{Missing: h.missing, Levels: h.levels, Sizes: h.sizes, Columns: h.columns})
	if h.curv != nil {
		ff.MeanFieldSDRatio = h.curv.maxByLatent()
		ff.MeanFieldSDRatioOutputs = h.curv.maxByOutput()
		ff.MeanFieldSDUnchecked = h.curv.uncheckedNames()
	}
	if o := h.resample; o != nil {
		ff.Resample = &fitfile.Resample{Candidates: o.rs.Candidates, ParetoK: fitfile.Float(o.rs.K), ESS: fitfile.Float(o.rs.ESS), Distinct: o.distinct, Bad: o.rs.Bad, Resampled: o.used}
	}
	if h.mix != nil {
		ff.SetMixture(h.mix, h.stepSize)
		ff.Settings.Jitter = &c.jitter
		ff.Settings.InitRadius = c.initRadius
	}
	return ff
}

// initSetting is fit.json's record of --init: the file, path, or "".
func initSetting(c *fitConfig) string {
	if c.settings.InitPath {
		return initPath
	}
	return c.init
}
