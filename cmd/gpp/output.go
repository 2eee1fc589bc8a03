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
	"encoding/json"
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
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// fitFormat names the layout of fit.json.
const fitFormat = "gpp-fit/1"

// predictStream seeds the draws of predictive outputs (output y ~ D(args)):
// sgvb.OutputStream, which the model package's summaries share.
const predictStream = sgvb.OutputStream

// predictDataStream seeds gpp predict's draws of the data that the new
// data leave out: sgvb.LeftOutStream, which the model package's
// predictions share.
const predictDataStream = sgvb.LeftOutStream

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
	fitFileName = "fit.json"
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
	looObs  []int     // the log_lik elements (j of its v.elems) that loo's Points are, in order
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
// 80–300 s after Ctrl-C). The first draws are those a full run makes.
type drawsPace struct {
	now         func() time.Time // the clock; tests inject one
	con         *console
	interrupted bool
	least       int // the fewest draws an interrupted fit keeps
	kept        int // the draws made (set by makeDrawsPaced)
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
	if pace != nil {
		evals := 1
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
	ev.SetRand(rand.New(rand.NewPCG(seed, predictStream)))
	ev.SetDrawRand(rand.New(rand.NewPCG(seed, predictDataStream)))
	// the draws of q a batch at a time (the same as one at a time, faster
	// for a full-rank q), each batch's buffers starting as x
	xs := make([][]float64, min(n, drawBatch))
	for k := range xs {
		xs[k] = slices.Clone(x)
	}
	for d := range n {
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
	if lw != nil {
		lw.defensiveDraws(ev, x, n, seed)
		ds.loo, ds.looObs = lw.loo(), lw.obs
		ds.pitDraws = lw.pitDraws(ds)
	}
	return ds, nil
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
// same sorted draws, once for the table and summary.csv.
func summarise(xs []float64, hdi float64, probs ...float64) stats {
	v, nan := nuts.SortedFinite(xs)
	s := stats{rhat: math.NaN(), nan: nan, n: len(xs), finite: len(v)}
	for _, x := range v {
		if math.IsInf(x, 0) {
			s.finite--
		}
	}
	s.mean, s.sd = nuts.MeanSD(v)
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
// badDrawsWarning's (what says what was not finite), nanWarnings' and
// inexactWarnings'.
func outputWarnings(ds *drawSet, st []stats, info *check.Info, what string) []string {
	var out []string
	if w := badDrawsWarning(ds, what); w != "" {
		out = append(out, w)
	}
	out = append(out, nanWarnings(ds, st)...)
	return append(out, inexactWarnings(ds, info)...)
}

// nanWarnings returns, for every variable with an element that is NaN in
// some draws, how many, naming the first nanNamed such elements of an
// array: its rows summarise the other draws. Naming only the worst
// element hid an lxu[3] NaN in 935 of 1000 draws behind lxu[2] NaN in all.
func nanWarnings(ds *drawSet, st []stats) []string {
	var out []string
	for _, v := range ds.vars {
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

// ---------------------------------------------------------------------------
// CSV files

// formatNum formats a number for the CSV files: 6 significant digits as
// CmdStan writes by default, and NaN, inf, -inf as Stan CSV spells them.
func formatNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	if s, ok := formatWhole(v); ok {
		return s
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// formatWhole writes a whole number in an int's range (at most 2^53 in
// magnitude) with all its digits (a size N = 1234567, an int output, a
// count's quantile), where 6 significant digits would print 1.23457e+06;
// -0 is 0.
func formatWhole(v float64) (string, bool) {
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return "", false
	}
	if v == 0 {
		v = 0 // -0
	}
	return strconv.FormatFloat(v, 'f', -1, 64), true
}

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
	cfg              *fitConfig
	r                *sgvb.Result  // the fit, or restart 0 of a mixture
	mix              *sgvb.Mixture // the restarts, or nil
	stepSize         float64
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
		p("# %s = %s at %s", m.Latent, m.Data, strings.Join(cellTexts(m.Cells), ", "))
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
			p("# restart %d: seed = %d, iterations = %d, converged = %d, interrupted = %d, elbo = %s, pareto_k = %s (%s)",
				m.Restarts[i], m.Seeds[i], rc.Iterations, b2i(rc.Converged), b2i(rc.Interrupted), formatNum(rc.ELBO), formatNum(rc.ParetoK), rc.ParetoReading)
			conv, iters = conv && rc.Converged, max(iters, rc.Iterations)
		}
		for _, f := range m.Failed {
			p("# restart %d: seed = %d, failed and left out: %s", f.Restart, f.Seed, strings.Join(strings.Fields(f.Err.Error()), " "))
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
// fit.json

// jsonFloat is a float64 that survives JSON: NaN is written as null and
// the infinities as the strings "inf" and "-inf".
type jsonFloat float64

// MarshalJSON implements json.Marshaler.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	return f.appendJSON(nil), nil
}

// appendJSON appends f's JSON text (MarshalJSON's) to b.
func (f jsonFloat) appendJSON(b []byte) []byte {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return append(b, "null"...)
	case math.IsInf(v, 1):
		return append(b, `"inf"`...)
	case math.IsInf(v, -1):
		return append(b, `"-inf"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// badNumber is jsonFloat's error: encoding/json gives a json.Unmarshaler's
// error no offset, so jsonError places it at the value's text.
type badNumber struct{ text string }

func (e *badNumber) Error() string { return "expected a number, got " + e.text }

// UnmarshalJSON implements json.Unmarshaler.
func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null", `"nan"`, `"NaN"`:
		*f = jsonFloat(math.NaN())
		return nil
	case `"inf"`, `"+inf"`, `"Infinity"`:
		*f = jsonFloat(math.Inf(1))
		return nil
	case `"-inf"`, `"-Infinity"`:
		*f = jsonFloat(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return &badNumber{string(b)}
	}
	*f = jsonFloat(v)
	return nil
}

// fitHead opens fit.json and evidence.json: the file's format, the gpp
// that wrote it, and the model, data and --set values fitted.
type fitHead struct {
	Format      string   `json:"format"`
	GppVersion  string   `json:"gpp_version"`
	Model       string   `json:"model"`
	ModelSHA256 string   `json:"model_sha256"`
	Data        []string `json:"data"`
	// DataSHA256 holds the sha256 of each data file's contents, in the
	// order of Data: gpp compare tells the same data read by other paths.
	DataSHA256 []string          `json:"data_sha256,omitempty"`
	Sets       map[string]string `json:"sets,omitempty"`
}

// newFitHead is the head of a file of format for the fit of h.
func newFitHead(format string, h drawsHeader) fitHead {
	fh := fitHead{Format: format, GppVersion: version, Model: h.model, ModelSHA256: h.modelHash,
		Data: append([]string{}, h.data...), DataSHA256: h.dataHash}
	if len(h.cfg.sets) > 0 {
		fh.Sets = map[string]string(h.cfg.sets)
	}
	return fh
}

// fitFile is the content of fit.json.
type fitFile struct {
	fitHead
	Settings fitSettings `json:"settings"`
	Method   string      `json:"method"`
	fitOutcome
	// Hints are the hints the run printed (after "gpp: hint: "), in order;
	// the outcome's warnings are every warning it printed.
	Hints   []string    `json:"hints"`
	Factors []fitFactor `json:"factors,omitempty"`
	// Groups are the joint full-rank factors (--fullrank a+b, all).
	Groups []fitGroup `json:"groups,omitempty"`
	// Restarts holds the fits of a mixture of restarts (--restarts > 1),
	// in place of Factors; the outcome above is then the mixture's.
	Restarts []fitRestart `json:"restarts,omitempty"`
	// Missing says which data cell each fitted missing value is.
	Missing []fitMissing `json:"missing,omitempty"`
	// Levels records how each column of labels in the data was coded,
	// by data declaration: gpp predict codes new data so.
	Levels map[string]fitLevels `json:"levels,omitempty"`
	// Sizes records each int data size that no input gave and that the
	// largest value of the numeric ids it bounds bound (S of
	// int<lower=0, upper=S-1> subj, data.CodeSizes): gpp predict binds
	// it so, where new data holding a few groups would bind a smaller S.
	Sizes map[string]int `json:"sizes,omitempty"`
	// DataColumns records, by matrix data declaration, the CSV columns it
	// was bound from, in order (X=train.csv:-y): gpp predict binds a new
	// file's columns by these names, not by position. Older fits lack it.
	DataColumns map[string][]string `json:"data_columns,omitempty"`
	// Labels holds, by variable, the labels that named the elements of its
	// axes sized by a column of labels (null for an axis named by number;
	// savedAxes): gpp summary of draws.csv names them so.
	Labels map[string][][]string `json:"labels,omitempty"`
	// Resample is what --psis-resample did to the output draws (omitted
	// without it); the factors above are still q's.
	Resample *fitResample `json:"psis_resample,omitempty"`
	// MeanFieldSDRatio is, per param, the largest factor by which the
	// curvature check of a mean-field fit finds its elements' sds too
	// small, √(Σ_ii Λ_ii) (docs/inference.md, The mean-field hint);
	// omitted where the check did not run.
	MeanFieldSDRatio map[string]jsonFloat `json:"meanfield_sd_ratio,omitempty"`
	// Files lists the files written with this fit.json in its directory,
	// fit.json included: the directory holds exactly these of this run
	// while fit.json is there (staged.commit); the next run written there
	// removes those it does not write again (staleInDir).
	Files []string `json:"files,omitempty"`
	// FileSHA256 holds the sha256 of each file that Files lists but
	// fit.json: a reader checks that a file is this run's.
	FileSHA256 map[string]string `json:"files_sha256,omitempty"`
}

// fitResample records an importance resampling of the output draws
// (--psis-resample): the draws of q weighted, their Pareto k̂ and ESS,
// the distinct candidates among the draws, the candidates with a
// non-finite log joint, and whether the draws were resampled (false: the
// weights were unusable, q's draws kept; see usable).
type fitResample struct {
	Candidates int       `json:"candidates"`
	ParetoK    jsonFloat `json:"pareto_k"`
	ESS        jsonFloat `json:"ess"`
	Distinct   int       `json:"distinct"`
	Bad        int       `json:"bad_candidates"`
	Resampled  bool      `json:"resampled"`
}

// fitLevels is, in fit.json, the coding of a column of labels: label
// Labels[k] is the int First+k (data.Levels). The column is the data
// file's, for the reader.
type fitLevels struct {
	Column string   `json:"column"`
	First  int      `json:"first"`
	Labels []string `json:"labels"`
}

// fitLevelsOf converts codings for fit.json.
func fitLevelsOf(levels map[string]data.Levels) map[string]fitLevels {
	if len(levels) == 0 {
		return nil
	}
	out := map[string]fitLevels{}
	for k, lv := range levels {
		out[k] = fitLevels{Column: lv.Column, First: lv.First, Labels: lv.Labels}
	}
	return out
}

// dataLevels converts a fit file's codings for data.BindCoded.
func dataLevels(levels map[string]fitLevels) map[string]data.Levels {
	out := map[string]data.Levels{}
	for k, lv := range levels {
		out[k] = data.Levels{Column: lv.Column, First: lv.First, Labels: lv.Labels}
	}
	return out
}

// fitMissing is, in fit.json, the latent of the missing values of a data
// declaration and the cell (file:line:column) of each element in order.
type fitMissing struct {
	Latent string   `json:"latent"`
	Data   string   `json:"data"`
	Cells  []string `json:"cells"`
}

// cellTexts writes cell positions as file:line:column.
func cellTexts(cells []ast.Pos) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.String()
	}
	return out
}

// fitOutcome is how a fit ended, in fit.json (its fields inline).
type fitOutcome struct {
	ELBO   jsonFloat `json:"elbo"` // null for MAP, which has LogJoint
	ELBOSE jsonFloat `json:"elbo_se"`
	// LogJoint is the log joint at a MAP estimate (omitted for SGVB).
	LogJoint   *jsonFloat `json:"log_joint,omitempty"`
	Iterations int        `json:"iterations"`
	Converged  bool       `json:"converged"`
	// Collapsed: the final ELBO estimate lies orders of magnitude below
	// the last evaluation's (sgvb.Result.Collapsed), so converged says only
	// that the evaluations settled; omitted when false.
	Collapsed     bool      `json:"final_elbo_collapsed,omitempty"`
	Interrupted   bool      `json:"interrupted"`
	ParetoK       jsonFloat `json:"pareto_k"`
	ParetoReading string    `json:"pareto_reading"`
	// ParetoRelESS is the relative effective sample size ESS/S of the
	// weights p/q over the same draws as pareto_k, the smaller of the raw
	// and the Pareto-smoothed weights' (sgvb.ParetoDiagnostics), which the
	// reading reads with k̂: above 0.7 with a relative ESS of at least
	// 1/(1 + 0.2²) ≈ 0.962 the tail is negligible (sgvb.TailNegligible);
	// null where none was computed.
	ParetoRelESS jsonFloat `json:"pareto_rel_ess"`
	// ParetoKDraws is the number of draws pareto_k is from: 1000, or
	// 10 000 where those gave a k̂ near 0.7 (sgvb.KBandLow–KBandHigh);
	// 0 where none was computed (MAP, an interrupted fit).
	ParetoKDraws int       `json:"pareto_k_draws"`
	StepSize     jsonFloat `json:"step_size"`
	BadSteps     int       `json:"bad_steps"`
	Rollbacks    int       `json:"rollbacks"` // returns to the best q after a divergence or a drift
	// AveragedIterates is the number of iterates whose mean is q (the
	// engine's iterate average); 0: q is the last iterate (a mixture:
	// see each restart).
	AveragedIterates int `json:"averaged_iterates"`
	// PathfinderIterate is the iterate of the L-BFGS path whose normal is
	// q (--family pathfinder; omitted otherwise), of PathfinderIterates.
	PathfinderIterate  *int      `json:"pathfinder_iterate,omitempty"`
	PathfinderIterates *int      `json:"pathfinder_iterates,omitempty"`
	Seconds            jsonFloat `json:"seconds"`
	Warnings           []string  `json:"warnings"`
}

// outcomeOf describes how r ended, with η the step size used.
func outcomeOf(r *sgvb.Result, eta float64) fitOutcome {
	o := fitOutcome{
		ELBO: jsonFloat(r.ELBO), ELBOSE: jsonFloat(r.ELBOSE), Iterations: r.Iterations,
		Converged: r.Converged, Collapsed: r.Collapsed, Interrupted: r.Interrupted, ParetoK: jsonFloat(r.ParetoK),
		ParetoReading: r.ParetoReading, ParetoRelESS: jsonFloat(r.ParetoRelESS), ParetoKDraws: r.ParetoKDraws, StepSize: jsonFloat(eta), BadSteps: r.BadSteps, Rollbacks: r.Rollbacks,
		AveragedIterates: r.Averaged,
		Seconds:          jsonFloat(math.Round(r.Seconds*1000) / 1000), Warnings: append([]string{}, r.Warnings...),
	}
	if r.Method == sgvb.MAP { // the result's ELBO is the log joint at the estimate
		lj := o.ELBO
		o.LogJoint, o.ELBO, o.ELBOSE = &lj, jsonFloat(math.NaN()), jsonFloat(math.NaN())
	}
	if pf := r.Pathfinder; pf != nil && pf.Scored > 0 {
		it, its := pf.Iterate, pf.Iterates
		o.PathfinderIterate, o.PathfinderIterates = &it, &its
	}
	return o
}

// fitRestart is one restart of a mixture in fit.json.
type fitRestart struct {
	Seed uint64 `json:"seed"`
	fitOutcome
	Factors []fitFactor `json:"factors"`
	Groups  []fitGroup  `json:"groups,omitempty"`
}

// fitGroup is a joint full-rank factor (--fullrank a+b): a multivariate
// normal over the coordinates of the params names, in that order, each
// param's elements in turn (the values of a real param, the logs of a
// positive one), with the params of a fullrank factor: mean, L[1] … L[n].
// Each member's entry in factors is its marginal (family fullrank). With
// Rank (--rank) it is a low-rank factor, params mean, d, B[1] … B[Rank],
// and so are its members' marginals (family lowrank). With Band
// (--band) it is the banded factor of one param, params mean, band[0] …
// band[Band] (the diagonals of its precision's Cholesky factor L), and
// its member's factor is the same (family banded); of more than one (an
// arrowhead: the first the chain, the others global) the params go on
// with arrow[0] … (the globals' rows of L), the chain's factor is banded
// with its marginal sds and no band, each global's the full-rank factor
// of its marginal.
type fitGroup struct {
	Names  []string    `json:"names"`
	Rank   int         `json:"rank,omitempty"`
	Band   int         `json:"band,omitempty"`
	Params paramValues `json:"params"`
}

// fitSettings records the command line's fit settings.
type fitSettings struct {
	Family       string    `json:"family"`
	Optimizer    string    `json:"optimizer"`
	StepSize     jsonFloat `json:"step_size"` // 0: the optimizer's default
	Seed         uint64    `json:"seed"`
	Iter         int       `json:"iter"`
	DrawsPerStep int       `json:"draws"`
	GammaGrad    string    `json:"gamma_grad"`
	GammaParam   string    `json:"gamma_param"`
	Estimator    string    `json:"estimator"`
	Tol          jsonFloat `json:"tol"`
	LastIterate  bool      `json:"last_iterate"`
	EvalEvery    int       `json:"eval_every"`
	Workers      int       `json:"workers"`
	OutputDraws  int       `json:"output_draws"`
	Restarts     int       `json:"restarts,omitempty"`    // omitted for one fit
	Jitter       *float64  `json:"jitter,omitempty"`      // --jitter; omitted for one fit
	InitRadius   float64   `json:"init_radius,omitempty"` // --init-radius; omitted without it
	Init         string    `json:"init,omitempty"`
	FullRank     string    `json:"fullrank,omitempty"` // --fullrank as given; omitted without it
	Rank         int       `json:"rank,omitempty"`     // --rank; omitted for full rank
	Band         int       `json:"band,omitempty"`     // --band; omitted without it
	PSISResample bool      `json:"psis_resample,omitempty"`
	// Minibatch is --minibatch as given (N=B), omitted for a full-data
	// fit: the steps saw B rows each; the final ELBO, k̂ and draws all.
	Minibatch string `json:"minibatch,omitempty"`
	// Anneal is --anneal of a minibatch fit (the step-size halvings), -1
	// for none; omitted for a full-data fit.
	Anneal int `json:"anneal,omitempty"`
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

// fitFactor is one fitted factor: its parameters by name, each row-major
// over the latent's elements.
type fitFactor struct {
	Name    string      `json:"name"`
	Family  string      `json:"family"`
	Support string      `json:"support"`
	Shape   []int       `json:"shape"`
	Params  paramValues `json:"params"`
	// Bounds: the params describe b on the support, and the latent (a
	// bounded param) is loc + scale·b.
	Bounds *fitBounds `json:"bounds,omitempty"`
	// Parts: an ordered param's factor (family and support "ordered",
	// params {}) is made of two, each with its own params: parts[0] the
	// normal factor of x[0] (shape [1], support real) and parts[1] the
	// factor of the increments x[k] − x[k−1] (shape [K − 1], support
	// positive; absent when K is 1). The param is their running sum. A
	// positive_ordered param's (family "ordered", support
	// "positive_ordered") has one part, the positive factor of x[0] and
	// the increments (shape [K]).
	Parts []fitFactor `json:"parts,omitempty"`
}

// fitBounds records a bounded param's map from its factor's support:
// {"loc": L, "scale": S}, or for a param with a bound per element
// (real<lower=c>[M] with c data) arrays of the locs and scales of its
// elements, row-major, {"loc": [...], "scale": [...]} (LocV, ScaleV).
type fitBounds struct {
	Loc, Scale   float64
	LocV, ScaleV []float64
}

// MarshalJSON writes the bounds' numbers, or arrays per element.
func (b fitBounds) MarshalJSON() ([]byte, error) {
	if b.ScaleV != nil {
		return json.Marshal(struct {
			Loc   []jsonFloat `json:"loc"`
			Scale []jsonFloat `json:"scale"`
		}{toJSONFloats(b.LocV), toJSONFloats(b.ScaleV)})
	}
	return json.Marshal(struct {
		Loc   float64 `json:"loc"`
		Scale float64 `json:"scale"`
	}{b.Loc, b.Scale})
}

// UnmarshalJSON reads the bounds' numbers, or arrays per element.
func (b *fitBounds) UnmarshalJSON(data []byte) error {
	var raw struct{ Loc, Scale json.RawMessage }
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = fitBounds{}
	if t := bytes.TrimSpace(raw.Scale); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(raw.Loc, &b.LocV); err != nil {
			return err
		}
		return json.Unmarshal(raw.Scale, &b.ScaleV)
	}
	if err := json.Unmarshal(raw.Loc, &b.Loc); err != nil {
		return err
	}
	return json.Unmarshal(raw.Scale, &b.Scale)
}

// paramValues holds a factor's parameters in the order of
// Family.ParamNames; it is written as a JSON object in that order.
type paramValues struct {
	names  []string
	values [][]jsonFloat
}

// MarshalJSON implements json.Marshaler.
func (p paramValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range p.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		b.Write(k)
		b.WriteByte(':')
		b.WriteByte('[')
		for j, v := range p.values[i] { // as json.Marshal writes them, without an allocation a number
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(v.appendJSON(b.AvailableBuffer()))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *paramValues) UnmarshalJSON(b []byte) error {
	var m map[string][]jsonFloat
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	p.names, p.values = nil, nil
	for _, k := range sortedKeys(m) {
		p.names = append(p.names, k)
		p.values = append(p.values, m[k])
	}
	return nil
}

func (p *paramValues) get(name string) ([]jsonFloat, bool) {
	for i, n := range p.names {
		if n == name {
			return p.values[i], true
		}
	}
	return nil, false
}

func toJSONFloats(v []float64) []jsonFloat {
	out := make([]jsonFloat, len(v))
	for i, x := range v {
		out[i] = jsonFloat(x)
	}
	return out
}

// modelHash returns the hex sha256 of a model's source.
func modelHash(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

// dataHashes returns the hex sha256 of the contents of each data argument's
// file (FILE, NAME=FILE or NAME=FILE:COLUMNS), read from srcs, which holds
// the files as the fit read them; nil if one is not there.
func dataHashes(args []string, srcs sources) []string {
	out := make([]string, len(args))
	for i, a := range args {
		_, file, _ := pipeline.SplitDataArg(a)
		b, ok := srcs[file]
		if !ok {
			return nil
		}
		out[i] = modelHash(b)
	}
	return out
}

// recordData sets h's missing cells, codings of columns of labels and
// sizes bound from numeric ids from the data l bound: what fit.json and
// coords.csv record for gpp predict, logprob and sensitivity.
func (h *drawsHeader) recordData(l *pipeline.Loaded) {
	h.missing, h.levels, h.sizes = data.MissingCells(l.Info, l.Data), data.Coded(l.Info, l.Data), data.CodeSizes(l.Info, l.Data)
	h.columns = data.MatrixColumns(l.Info, l.Data)
}

// newFitFile describes a fit for fit.json, with the warnings and hints
// of h.notices where known.
func newFitFile(h drawsHeader) *fitFile {
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
func fitFileOf(h drawsHeader) *fitFile {
	c, r := h.cfg, h.r
	ff := &fitFile{
		fitHead: newFitHead(fitFormat, h), Method: r.Method.String(),
		Settings: fitSettings{
			Family: c.family, Optimizer: c.settings.Optimizer.String(), StepSize: jsonFloat(c.settings.StepSize),
			Seed: c.settings.Seed, Iter: c.settings.MaxIter, DrawsPerStep: c.settings.DrawsPerStep,
			GammaGrad: c.gammaGrad, GammaParam: c.gammaParam, Estimator: c.estimator, Tol: jsonFloat(c.tol), LastIterate: c.settings.LastIterate, EvalEvery: c.settings.EvalEvery,
			Workers: c.settings.Workers, OutputDraws: c.outputDraws, Init: initSetting(c), FullRank: c.fullRank, Rank: c.rank, Band: c.band,
			PSISResample: c.resample,
			Minibatch:    minibatchSetting(c),
			Anneal:       annealSetting(c),
		},
		fitOutcome: outcomeOf(r, h.stepSize),
	}
	for _, m := range h.missing {
		ff.Missing = append(ff.Missing, fitMissing{Latent: m.Latent, Data: m.Data, Cells: cellTexts(m.Cells)})
	}
	ff.Levels = fitLevelsOf(h.levels)
	ff.Sizes = h.sizes
	ff.DataColumns = h.columns
	if h.curv != nil {
		ff.MeanFieldSDRatio = h.curv.maxByLatent()
	}
	if o := h.resample; o != nil {
		ff.Resample = &fitResample{Candidates: o.rs.Candidates, ParetoK: jsonFloat(o.rs.K), ESS: jsonFloat(o.rs.ESS), Distinct: o.distinct, Bad: o.rs.Bad, Resampled: o.used}
	}
	m := h.mix
	if m == nil {
		ff.Factors, ff.Groups = fitFactors(r), fitGroups(r)
		return ff
	}
	ff.Settings.Restarts = len(m.Components)
	ff.Settings.Jitter = &c.jitter
	ff.Settings.InitRadius = c.initRadius
	ff.ELBO, ff.ELBOSE, ff.ParetoK, ff.ParetoReading = jsonFloat(m.ELBO), jsonFloat(m.ELBOSE), jsonFloat(m.ParetoK), m.ParetoReading
	ff.ParetoKDraws, ff.ParetoRelESS = m.ParetoKDraws, jsonFloat(m.ParetoRelESS)
	ff.Iterations, ff.Converged, ff.Interrupted, ff.BadSteps, ff.Rollbacks, ff.AveragedIterates = 0, true, m.Interrupted, 0, 0, 0
	ff.PathfinderIterate, ff.PathfinderIterates = nil, nil // each path's own, in its restart's entry
	ff.Seconds, ff.Warnings = jsonFloat(math.Round(m.Seconds*1000)/1000), append([]string{}, m.Warnings...)
	for i, rc := range m.Components {
		ff.Iterations = max(ff.Iterations, rc.Iterations)
		ff.Converged = ff.Converged && rc.Converged
		ff.BadSteps += rc.BadSteps
		ff.Rollbacks += rc.Rollbacks
		eta := rc.StepSize
		if eta == 0 {
			eta = h.stepSize
		}
		ff.Restarts = append(ff.Restarts, fitRestart{Seed: m.Seeds[i], fitOutcome: outcomeOf(rc, eta), Factors: fitFactors(rc), Groups: fitGroups(rc)})
	}
	return ff
}

// fitFactors lists a fit's factors for fit.json.
func fitFactors(r *sgvb.Result) []fitFactor { return toFitFactors(r.Factors) }

// fitGroups lists a fit's joint full-rank factors for fit.json.
func fitGroups(r *sgvb.Result) []fitGroup {
	var out []fitGroup
	for _, g := range r.Groups {
		pv := paramValues{names: groupParamNames(g.Rank, g.Band, len(g.Params[0]), max(len(g.Params)-g.Band-2, 0))}
		for _, p := range g.Params {
			pv.values = append(pv.values, toJSONFloats(p))
		}
		out = append(out, fitGroup{Names: append([]string{}, g.Names...), Rank: g.Rank, Band: g.Band, Params: pv})
	}
	return out
}

// groupParamNames returns the parameter names of a group of size elements
// and rank (0: full rank) or bandwidth band (0: not banded) with glob
// global elements after its chain (an arrowhead).
func groupParamNames(rank, band, size, glob int) []string {
	if band > 0 {
		return sgvb.BandedParamNames(band, glob)
	}
	if rank > 0 {
		return sgvb.LowRankParamNames(rank)
	}
	return sgvb.FamilyFullRank.ParamNames(size)
}

// fitParamNames returns the parameter names a fit file's factor of family
// fam and size elements must have: a low-rank factor's rank is the number
// of its parameters B[k] (fitted, at most its size).
func fitParamNames(fam sgvb.Family, size int, pv paramValues) []string {
	if fam == sgvb.FamilyBanded {
		k := 0
		for _, n := range pv.names {
			if strings.HasPrefix(n, "band[") {
				k++
			}
		}
		return sgvb.BandedParamNames(max(k-1, 1), 0)
	}
	if fam != sgvb.FamilyLowRank {
		return fam.ParamNames(size)
	}
	r := 0
	for _, n := range pv.names {
		if strings.HasPrefix(n, "B[") {
			r++
		}
	}
	return sgvb.LowRankParamNames(max(r, 1))
}

// toFitFactors lists factors (or an ordered factor's parts) for fit.json.
func toFitFactors(fs []sgvb.Factor) []fitFactor {
	var out []fitFactor
	for _, f := range fs {
		pv := paramValues{names: f.ParamNames()}
		for _, p := range f.Params {
			pv.values = append(pv.values, toJSONFloats(p))
		}
		shape := f.Shape
		if shape == nil {
			shape = []int{}
		}
		ff := fitFactor{Name: f.Name, Family: f.Family.String(), Support: f.Support.String(), Shape: shape, Params: pv}
		if f.Scale != 0 || f.ScaleV != nil {
			ff.Bounds = &fitBounds{Loc: f.Loc, Scale: f.Scale, LocV: f.LocV, ScaleV: f.ScaleV}
		}
		ff.Parts = toFitFactors(f.Parts)
		out = append(out, ff)
	}
	return out
}

// writeFitJSON writes fit.json, indented, with each array of numbers on
// one line.
func writeFitJSON(w io.Writer, ff *fitFile) error {
	b, err := json.MarshalIndent(ff, "", "  ")
	if err != nil {
		return err
	}
	b = append(compactNumberArrays(b), '\n')
	_, err = w.Write(b)
	return err
}

// compactNumberArrays puts each array of json.MarshalIndent's output
// whose elements are all numbers (jsonFloat's null, "inf" and "-inf"
// among them) on one line, as "[1, 2.5, null]"; strings are copied as
// they are, so a name or a warning that holds brackets is left alone.
// One pass over b: the dense covariance of a Laplace or Pathfinder q at
// 1000 coordinates makes a fit.json of tens of MB, which a regular
// expression took seconds to rewrite.
func compactNumberArrays(b []byte) []byte {
	out := make([]byte, 0, len(b)/2)
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			j := jsonStringEnd(b, i)
			out = append(out, b[i:j]...)
			i = j
		case '[':
			if j, ok := numberArrayEnd(b, i); ok {
				out = appendNumberArray(out, b[i:j])
				i = j
				continue
			}
			out = append(out, '[')
			i++
		default:
			out = append(out, b[i])
			i++
		}
	}
	return out
}

// jsonStringEnd returns the index just past the string that opens at
// b[i] (a '"'), escapes included.
func jsonStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// numberArrayEnd reports whether the array that opens at b[i] holds one or
// more elements, each a number, null, "inf" or "-inf", and returns the
// index just past its ']'.
func numberArrayEnd(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		j = skipJSONSpace(b, j)
		k := numberTokenEnd(b, j)
		if k == j {
			return 0, false
		}
		j = skipJSONSpace(b, k)
		if j == len(b) {
			return 0, false
		}
		switch b[j] {
		case ',':
			j++
		case ']':
			return j + 1, true
		default:
			return 0, false
		}
	}
}

// numberTokenEnd returns the index just past the number, null, "inf" or
// "-inf" at b[j], or j if there is none.
func numberTokenEnd(b []byte, j int) int {
	for _, lit := range [...]string{"null", `"inf"`, `"-inf"`} {
		if bytes.HasPrefix(b[j:], []byte(lit)) {
			return j + len(lit)
		}
	}
	k := j
	if k < len(b) && b[k] == '-' {
		k++
	}
	if k == len(b) || b[k] < '0' || b[k] > '9' {
		return j
	}
	for k < len(b) && (b[k] >= '0' && b[k] <= '9' || b[k] == '.' || b[k] == 'e' || b[k] == 'E' || b[k] == '+' || b[k] == '-') {
		k++
	}
	return k
}

func skipJSONSpace(b []byte, j int) int {
	for j < len(b) && (b[j] == ' ' || b[j] == '\n' || b[j] == '\t' || b[j] == '\r') {
		j++
	}
	return j
}

// appendNumberArray appends the array a (from '[' to ']', as
// numberArrayEnd found it) to out on one line, its elements joined by ", ".
func appendNumberArray(out, a []byte) []byte {
	out = append(out, '[')
	j := 1
	for first := true; ; first = false {
		j = skipJSONSpace(a, j)
		k := numberTokenEnd(a, j)
		if !first {
			out = append(out, ", "...)
		}
		out = append(out, a[j:k]...)
		j = skipJSONSpace(a, k)
		if a[j] == ']' {
			return append(out, ']')
		}
		j++ // the ','
	}
}

// supports are the latent supports fit.json may name.
var supports = map[string]dist.Support{
	"real": dist.Real, "positive": dist.Positive, "unit": dist.Unit, "simplex": dist.Simplex,
	"ordered": dist.Ordered, "cholesky_factor_corr": dist.CholCorr, "positive_ordered": dist.PositiveOrdered, "corr_matrix": dist.CorrMatrix, "cholesky_factor_cov": dist.CholCov, "cov_matrix": dist.CovMatrix,
	"sum_to_zero_vector": dist.SumToZero, "sum_to_zero_matrix": dist.SumToZeroMatrix,
}

// readFitJSON reads a fit.json for --init and checks it. Errors are
// *ast.Error positioned in the file.
func readFitJSON(path string, src []byte) (*fitFile, error) {
	// pareto_k absent (an older fit.json) is unknown, not 0
	ff := fitFile{fitOutcome: fitOutcome{ParetoK: jsonFloat(math.NaN())}}
	dec := json.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&ff); err != nil {
		return nil, jsonError(path, src, err, "fit")
	}
	if dec.More() {
		return nil, &ast.Error{Pos: offsetPos(path, src, int(dec.InputOffset())), Msg: "unexpected data after the fit object"}
	}
	if ff.Format != fitFormat {
		return nil, &ast.Error{Pos: findPos(path, src, `"format"`), Msg: fmt.Sprintf("not a gpp fit file (format %q, want %q)", ff.Format, fitFormat)}
	}
	if len(ff.Restarts) > 0 && len(ff.Factors) > 0 {
		return nil, &ast.Error{Pos: findPos(path, src, `"restarts"`), Msg: "the fit has both factors and restarts"}
	}
	if len(ff.Restarts) == 0 && len(ff.Factors) == 0 {
		return nil, &ast.Error{Pos: findPos(path, src, `"factors"`), Msg: "the fit has no factors"}
	}
	if err := checkFactors(path, src, ff.Factors); err != nil {
		return nil, err
	}
	if err := checkGroups(path, src, ff.Groups, ff.Factors); err != nil {
		return nil, err
	}
	for _, rs := range ff.Restarts {
		if len(rs.Factors) == 0 {
			return nil, &ast.Error{Pos: findPos(path, src, `"restarts"`), Msg: fmt.Sprintf("restart with seed %d has no factors", rs.Seed)}
		}
		if err := checkFactors(path, src, rs.Factors); err != nil {
			return nil, err
		}
		if err := checkGroups(path, src, rs.Groups, rs.Factors); err != nil {
			return nil, err
		}
	}
	return &ff, nil
}

// checkFactors validates the factors of one fit: each on its own, and no
// name twice (which would leave it unclear which one warm-starts).
func checkFactors(path string, src []byte, fs []fitFactor) error {
	seen := map[string]bool{}
	for _, f := range fs {
		if err := checkFactor(path, src, &f); err != nil {
			return err
		}
		if seen[f.Name] {
			return &ast.Error{Pos: findPos(path, src, `"name": `+strconv.Quote(f.Name)), Msg: fmt.Sprintf("factor %s appears twice", f.Name)}
		}
		seen[f.Name] = true
	}
	return nil
}

// checkGroups validates the joint full-rank factors of one fit: each of
// two or more fullrank factors of the fit, no factor in two, and the params
// of a fullrank factor over all their elements.
func checkGroups(path string, src []byte, gs []fitGroup, fs []fitFactor) error {
	seen := map[string]bool{}
	for _, g := range gs {
		name := strings.Join(g.Names, "+")
		pos := findPos(path, src, `"groups"`)
		errf := func(format string, args ...any) error {
			return &ast.Error{Pos: pos, Msg: fmt.Sprintf("group %s: ", name) + fmt.Sprintf(format, args...)}
		}
		if len(g.Names) < 2 && !((g.Rank > 0 || g.Band > 0) && len(g.Names) == 1) && !(len(g.Names) == 1 && jointOrdered(fs, g.Names[0], sgvb.FamilyFullRank)) {
			return errf("a group has two or more factors (one, with a rank or a band, or an ordered one's full-rank parts)")
		}
		if g.Rank < 0 {
			return errf("bad rank %d", g.Rank)
		}
		if g.Band != 0 && (sgvb.CheckBand(g.Band) != nil || g.Rank > 0) {
			return errf("bad band %d (a banded group has no rank)", g.Band)
		}
		fam := sgvb.FamilyFullRank
		if g.Rank > 0 {
			fam = sgvb.FamilyLowRank
		}
		if g.Band > 0 {
			fam = sgvb.FamilyBanded
		}
		size, nc := 0, 0
		for k, n := range g.Names {
			var f *fitFactor
			for i := range fs {
				if fs[i].Name == n {
					f = &fs[i]
				}
			}
			want := fam
			if g.Band > 0 && k > 0 { // an arrowhead's globals: their full-rank marginals
				want = sgvb.FamilyFullRank
			}
			if f == nil || f.Family != want.String() && !(g.Band == 0 && jointOrdered(fs, n, want)) {
				return errf("%s is not a %s factor of the fit", n, want)
			}
			elems := sgvb.FactorElems(want, supports[f.Support], f.Shape) // an ordered one's: its size
			if k == 0 {
				nc = elems
			}
			if seen[n] {
				return errf("%s is in two groups, or twice in one", n)
			}
			seen[n] = true
			size += elems
		}
		if g.Rank > size {
			return errf("rank %d above its %d elements", g.Rank, size)
		}
		if g.Band > 0 && size-nc > sgvb.MaxArrow {
			return errf("%d global elements, at most %d", size-nc, sgvb.MaxArrow)
		}
		for j, n := range groupParamNames(g.Rank, g.Band, size, size-nc) {
			vals, ok := g.Params.get(n)
			if !ok {
				return errf("missing parameter %q", n)
			}
			if len(vals) != size {
				return errf("parameter %q has %d values, want %d (the members' elements)", n, len(vals), size)
			}
			for i, v := range vals {
				x := float64(v)
				bad := math.IsNaN(x) || math.IsInf(x, 0)
				if g.Band > 0 && j > g.Band+1 { // arrow[r]: zero from element nc + r on
					bad = bad || (i >= nc+j-g.Band-2 && x != 0)
				} else if g.Band > 0 { // band[0] positive, band[k] zero at i < k and for the globals
					bad = bad || (j == 1 && x <= 0) || (j > 1 && (i < j-1 || i >= nc) && x != 0)
				} else if g.Rank > 0 { // d positive, B any
					bad = bad || (n == "d" && x <= 0)
				} else if j > 0 { // column j−1 of a lower-triangular L, positive diagonal
					bad = bad || (i == j-1 && x <= 0) || (i < j-1 && x != 0)
				}
				if bad {
					return errf("parameter %q: bad value %v at element %d", n, x, i)
				}
			}
		}
	}
	return nil
}

// jointOrdered reports whether fs's factor name is an ordered one whose
// parts are marginals of family fam (full-rank or low-rank): a member of
// a group (--fullrank, --family laplace), by its coordinates.
func jointOrdered(fs []fitFactor, name string, fam sgvb.Family) bool {
	for _, f := range fs {
		if f.Name != name {
			continue
		}
		ok := f.Family == sgvb.FamilyOrdered.String() && len(f.Parts) > 0
		for _, p := range f.Parts {
			ok = ok && p.Family == fam.String()
		}
		return ok
	}
	return false
}

// checkFactor validates one factor of a fit file.
func checkFactor(path string, src []byte, f *fitFactor) error {
	pos := findPos(path, src, `"name": `+strconv.Quote(f.Name))
	if f.Name == "" {
		pos = findPos(path, src, `"factors"`)
		return &ast.Error{Pos: pos, Msg: "a factor has no name"}
	}
	errf := func(format string, args ...any) error {
		return &ast.Error{Pos: pos, Msg: fmt.Sprintf("factor %s: ", f.Name) + fmt.Sprintf(format, args...)}
	}
	fam, err := sgvb.ParseFamily(f.Family)
	if err != nil || fam == sgvb.FamilyAuto {
		return errf("unknown family %q", f.Family)
	}
	if _, ok := supports[f.Support]; !ok {
		return errf("unknown support %q (want real, positive, unit, simplex, ordered, positive_ordered, cholesky_factor_corr, corr_matrix, cholesky_factor_cov or cov_matrix)", f.Support)
	}
	size := 1
	for _, d := range f.Shape {
		if d <= 0 {
			return errf("bad shape %v", f.Shape)
		}
		size *= d
	}
	if (fam == sgvb.FamilyOrdered) != (f.Support == "ordered" || f.Support == "positive_ordered") || fam != sgvb.FamilyOrdered && len(f.Parts) > 0 {
		return errf("family %s on the %s support", f.Family, f.Support)
	}
	if fam == sgvb.FamilyOrdered {
		return checkOrderedParts(path, src, f, size, errf)
	}
	size = sgvb.FactorElems(fam, supports[f.Support], f.Shape) // a simplex's full-rank factor: K − 1 a row
	names := fitParamNames(fam, size, f.Params)
	if fam == sgvb.FamilyLowRank && len(f.Params.names) != len(names) {
		return errf("a lowrank factor has the parameters mean, d and B[1] … B[R]")
	}
	if fam == sgvb.FamilyBanded && len(f.Params.names) != len(names) {
		return errf("a banded factor has the parameters mean and band[0] … band[K]")
	}
	for j, n := range names {
		vals, ok := f.Params.get(n)
		if !ok {
			return errf("missing parameter %q of the %s family", n, fam)
		}
		if len(vals) != size {
			return errf("parameter %q has %d values, want %d (shape %v)", n, len(vals), size, f.Shape)
		}
		positive := !(n == "mean" || n == "meanlog" || n == "value" || strings.HasPrefix(n, "B[")) && !(fam == sgvb.FamilyBanded && j > 1)
		for i, v := range vals {
			x := float64(v)
			bad := math.IsNaN(x) || math.IsInf(x, 0) || (positive && x <= 0)
			if fam == sgvb.FamilyFullRank && j > 0 { // column j−1 of a lower-triangular L, positive diagonal
				bad = math.IsNaN(x) || math.IsInf(x, 0) || (i == j-1 && x <= 0) || (i < j-1 && x != 0)
			}
			if bad {
				return errf("parameter %q: bad value %v at element %d", n, x, i)
			}
		}
	}
	return nil
}

// checkOrderedParts validates the parts of an ordered factor of size
// elements: a real part of one element, then (for size > 1) a positive
// part of size − 1, each a valid factor; of a positive_ordered factor, one
// positive part of size.
func checkOrderedParts(path string, src []byte, f *fitFactor, size int, errf func(string, ...any) error) error {
	want := []struct {
		support string
		size    int
	}{{"real", 1}, {"positive", size - 1}}
	if size == 1 {
		want = want[:1]
	}
	if f.Support == "positive_ordered" {
		want = want[1:]
		want[0].size = size
	}
	if len(f.Parts) != len(want) {
		return errf("an %s factor of %d elements has %d parts, want %d", f.Support, size, len(f.Parts), len(want))
	}
	for i, w := range want {
		p := &f.Parts[i]
		if p.Support != w.support || compile.ShapeLen(p.Shape) != w.size || len(p.Shape) != 1 || p.Name != f.Name {
			return errf("part %d must be a %s factor of shape [%d] named %s", i, w.support, w.size, f.Name)
		}
		if err := checkFactor(path, src, p); err != nil {
			return err
		}
	}
	return nil
}

// initResult turns the factors of a fit file into a Result for
// Settings.Init, matching them to the model's latents by name and size. It
// returns warnings for factors that match nothing.
func initResult(ff *fitFile, factors []fitFactor, groups []fitGroup, m *compile.Model) (*sgvb.Result, []string) {
	r := &sgvb.Result{Dim: m.Dim}
	if meth, err := sgvb.ParseMethod(ff.Method); err == nil {
		r.Method = meth
	}
	var warns []string
	for _, f := range factors {
		fam, _ := sgvb.ParseFamily(f.Family)
		size := compile.ShapeLen(f.Shape)
		var lat *compile.Latent
		for i := range m.Latents {
			if m.Latents[i].Name == f.Name {
				lat = &m.Latents[i]
			}
		}
		if lat == nil || lat.Size != size {
			warns = append(warns, fmt.Sprintf("--init: factor %s %s matches no latent of the same name and size; ignored", f.Name, shapeText(f.Shape)))
			continue
		}
		if lat.Support.IsOrdered() != (fam == sgvb.FamilyOrdered) || fam == sgvb.FamilyOrdered && supports[f.Support] != lat.Support {
			warns = append(warns, fmt.Sprintf("--init: factor %s is %s, the latent %s; ignored", f.Name, f.Support, lat.Support))
			continue
		}
		// The params are of b on the support; the model's latent says how
		// b maps to its values.
		fac := factorOf(f, lat.Offset, lat.Loc, lat.Scale)
		fac.LocV, fac.ScaleV = lat.LocV, lat.ScaleV
		r.Factors = append(r.Factors, fac)
	}
	for _, g := range groups {
		size, ok := 0, true
		var kept []string // the members that m lays out
		var keep []bool   // per coordinate of the group
		for _, name := range g.Names {
			if f := r.Factor(name); f != nil {
				n := sgvb.FactorElems(f.Family, f.Support, f.Shape) // a simplex's: K − 1 a row
				size += n
				kept = append(kept, name)
				keep = append(keep, slices.Repeat([]bool{true}, n)...)
				continue
			}
			// a fit's missing values, which a model compiled to predict
			// does not lay out: the group is the others' marginal
			k := slices.IndexFunc(factors, func(f fitFactor) bool { return f.Name == name })
			if !m.MissingName(name) || k < 0 {
				ok = false
				break
			}
			size += compile.ShapeLen(factors[k].Shape)
			keep = append(keep, slices.Repeat([]bool{false}, compile.ShapeLen(factors[k].Shape))...)
		}
		if !ok || len(kept) == 0 {
			warns = append(warns, fmt.Sprintf("--init: group %s has a member that matches no latent; its members start from their own factors", strings.Join(g.Names, "+")))
			continue
		}
		sg := sgvb.Group{Names: append([]string(nil), g.Names...), Rank: g.Rank, Band: g.Band}
		glob := 0 // an arrowhead's global elements: all but the first member's
		if k := slices.IndexFunc(factors, func(f fitFactor) bool { return f.Name == g.Names[0] }); g.Band > 0 && k >= 0 {
			glob = size - compile.ShapeLen(factors[k].Shape) // no simplex: banded factors take none
		}
		for _, n := range groupParamNames(g.Rank, g.Band, size, glob) {
			vals, _ := g.Params.get(n)
			p := make([]float64, len(vals))
			for i, v := range vals {
				p[i] = float64(v)
			}
			sg.Params = append(sg.Params, p)
		}
		if len(kept) < len(g.Names) {
			mg, err := sg.Marginal(kept, keep)
			if err != nil {
				warns = append(warns, fmt.Sprintf("--init: group %s: %v; its members start from their own factors", strings.Join(g.Names, "+"), err))
				continue
			}
			sg = mg
		}
		r.Groups = append(r.Groups, sg)
	}
	for _, l := range m.Latents {
		found := false
		for _, f := range r.Factors {
			found = found || f.Name == l.Name
		}
		if !found {
			warns = append(warns, fmt.Sprintf("--init: latent %s has no factor in the fit file; it starts from the default", l.Name))
		}
	}
	r.LinkOrdered() // an ordered member's moments, from its coordinates' marginal under its group
	return r, warns
}

// factorOf converts a fit file's factor (checked by checkFactor) into the
// engine's at offset off, its parts (an ordered factor's) after each other.
func factorOf(f fitFactor, off int, loc, scale float64) sgvb.Factor {
	fam, _ := sgvb.ParseFamily(f.Family)
	size := compile.ShapeLen(f.Shape)
	fac := sgvb.Factor{Name: f.Name, Family: fam, Support: supports[f.Support], Offset: off, Size: size,
		Shape: append([]int(nil), f.Shape...), Loc: loc, Scale: scale}
	for _, n := range fitParamNames(fam, sgvb.FactorElems(fam, fac.Support, f.Shape), f.Params) {
		vals, _ := f.Params.get(n)
		p := make([]float64, len(vals))
		for i, v := range vals {
			p[i] = float64(v)
		}
		fac.Params = append(fac.Params, p)
	}
	for _, part := range f.Parts {
		fac.Parts = append(fac.Parts, factorOf(part, off, 0, 0))
		off += compile.ShapeLen(part.Shape)
	}
	return fac
}

func shapeText(s []int) string {
	if len(s) == 0 {
		return "(scalar)"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// jsonError positions a JSON decoding error in its file, a gpp what file
// (fit, kfold, evidence).
func jsonError(path string, src []byte, err error, what string) error {
	malformed := "malformed " + what + " file: "
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &ast.Error{Pos: offsetPos(path, src, int(syn.Offset)), Msg: malformed + syn.Error()}
	case errors.As(err, &typ):
		// the path less Go's names of embedded structs (fitHead,
		// fitOutcome): the file's keys are lower case
		field := strings.Join(slices.DeleteFunc(strings.Split(typ.Field, "."), func(k string) bool { return strings.ToLower(k) != k }), ".")
		if field == "" {
			// the top level: typ.Type is a Go struct's name
			return &ast.Error{Pos: offsetPos(path, src, int(typ.Offset)),
				Msg: malformed + fmt.Sprintf("the file must be a JSON object, not a JSON %s", typ.Value)}
		}
		return &ast.Error{Pos: offsetPos(path, src, int(typ.Offset)),
			Msg: malformed + fmt.Sprintf("%s must be %s, not a JSON %s", field, typ.Type, typ.Value)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &ast.Error{Pos: offsetPos(path, src, len(src)), Msg: malformed + "unexpected end of file"}
	}
	var num *badNumber
	if errors.As(err, &num) {
		if i := valueIndex(src, num.text); i >= 0 {
			return &ast.Error{Pos: offsetPos(path, src, i+1), Msg: malformed + err.Error()}
		}
	}
	return &ast.Error{Pos: ast.Pos{File: path, Line: 1, Col: 1}, Msg: malformed + err.Error()}
}

// valueIndex returns the offset of the first occurrence of text in src as a
// JSON value (after a colon, a comma or a bracket, and not a key), or -1: where a bad
// number is when two values hold the same text, a guess at the first.
func valueIndex(src []byte, text string) int {
	for off := 0; ; {
		i := bytes.Index(src[off:], []byte(text))
		if i < 0 {
			return -1
		}
		i += off
		before := bytes.TrimRight(src[:i], " \t\r\n")
		after := bytes.TrimLeft(src[i+len(text):], " \t\r\n")
		if len(before) > 0 && strings.IndexByte(":,[", before[len(before)-1]) >= 0 && !bytes.HasPrefix(after, []byte(":")) {
			return i
		}
		off = i + 1
	}
}

// offsetPos converts a byte offset into a 1-based line and column. An
// offset just past a token points at the token's last byte.
func offsetPos(path string, src []byte, off int) ast.Pos {
	off = min(max(off, 1), len(src))
	if off > 0 {
		off-- // json offsets count the bytes read, so the culprit is the last
	}
	line, col := 1, 1
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return ast.Pos{File: path, Line: line, Col: col}
}

// findPos returns the position of the first occurrence of text in src, or
// the start of the file.
func findPos(path string, src []byte, text string) ast.Pos {
	i := bytes.Index(src, []byte(text))
	if i < 0 {
		return ast.Pos{File: path, Line: 1, Col: 1}
	}
	return offsetPos(path, src, i+1)
}

// initSetting is fit.json's record of --init: the file, path, or "".
func initSetting(c *fitConfig) string {
	if c.settings.InitPath {
		return initPath
	}
	return c.init
}
