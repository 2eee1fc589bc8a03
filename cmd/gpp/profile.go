package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/compile"
)

// profileFile is --profile's output: where an evaluation of the log joint
// and its gradient spends its time, statement by statement.
const profileFile = "profile.csv"

// profileStream draws the points of q that --profile times (its own
// stream: the fit's draws do not change).
const profileStream = 0x70726f66696c6521

// The budget of --profile: at least profileMinEvals evaluations and
// profileMinTime, whichever is later, at most profileMaxTime (after at
// least one evaluation at every point), at profilePoints points.
const (
	profileMinEvals = 200
	profileMinTime  = 200 * time.Millisecond
	profileMaxTime  = 5 * time.Second
	profilePoints   = 10
	profileTopRows  = 8 // statements the console table shows
	profileTextMax  = 56
)

// evalCounts counts the evaluations of the log joint a run makes, with
// and without the gradient, over every clone of its target.
type evalCounts struct{ grads, values atomic.Int64 }

// countedTarget is a pipeline.Target that counts its evaluations; the
// numbers are the target's, bit for bit, and it has the same optional
// methods (SetTeam, SetStop), so a run with it is the run without.
type countedTarget struct {
	pipeline.Target
	n *evalCounts
}

func (t countedTarget) LogJoint(x, grad []float64) (float64, error) {
	t.n.grads.Add(1)
	return t.Target.LogJoint(x, grad)
}

func (t countedTarget) LogJointValue(x []float64) (float64, error) {
	t.n.values.Add(1)
	return t.Target.LogJointValue(x)
}

func (t countedTarget) Clone() sgvb.Target {
	return countedTarget{t.Target.Clone().(pipeline.Target), t.n}
}

// valuesCounted is a pipeline.Target that counts its evaluations without
// the gradient (those of the ELBO estimates, not the steps'), for the
// final estimate's progress line; as countedTarget, a run with it is the
// run without.
type valuesCounted struct {
	pipeline.Target
	n *atomic.Int64
}

func (t valuesCounted) LogJointValue(x []float64) (float64, error) {
	t.n.Add(1)
	return t.Target.LogJointValue(x)
}

func (t valuesCounted) Clone() sgvb.Target {
	return valuesCounted{t.Target.Clone().(pipeline.Target), t.n}
}

// runTarget is the target of cfg's run on m: counted with --profile.
func runTarget(cfg *fitConfig, m *compile.Model) sgvb.Target {
	if cfg.profile {
		cfg.counts = &evalCounts{}
		return countedTarget{pipeline.Target{M: m}, cfg.counts}
	}
	return pipeline.Target{M: m}
}

// profileRow is one statement's line of profile.csv: times in seconds per
// evaluation of the log joint and its gradient.
type profileRow struct {
	text      string
	pos       ast.Pos
	nodes     int
	forward   float64
	reverse   float64
	share     float64 // of the evaluation's total time
	evaluated int     // evaluations its time is from
}

func (r profileRow) total() float64 { return r.forward + r.reverse }

// runProfile is what --profile measured: the statements' rows, by total
// time, and the run's evaluations to set against its time.
type runProfile struct {
	rows             []profileRow
	points, evals    int
	at               string  // what the points are: "10 draws of q"
	forward, reverse float64 // seconds per evaluation
	// grads and values are the run's evaluations with and without the
	// gradient; runSeconds the time they are set against, runWhat what
	// that is and engine what else a run's time goes to.
	grads, values   int64
	runSeconds      float64
	runWhat, engine string
	runNote         string // why there is no run line ("": there is one)
	// waitNote says, after the run line, that the chains' wall time held
	// waiting for a core (chainRunTime); "" where it did not.
	waitNote string
	// sideBySide: several workers evaluate the model at once within
	// runSeconds (a fit's, not NUTS's chains, whose times are summed).
	sideBySide bool
	failing    int // points skipped: their log joint failed
	// timeWall and timeCPU are the timing loop's wall and process CPU
	// seconds (timeCPU negative: unknown), by which chainRunTime reads
	// the times per evaluation as CPU time where the chains' are.
	timeWall, timeCPU float64
	// cpuRun: runSeconds is the chains' CPU time (chainRunTime).
	cpuRun bool
}

// profileModel times the value and gradient of m's log joint at points
// (each the model's coordinates), round robin, for the --profile budget,
// and returns the statements' rows; an error when it fails at every point.
func profileModel(ctx context.Context, m *compile.Model, points [][]float64) (*runProfile, error) {
	m = m.Clone()
	grad := make([]float64, m.Dim)
	var good [][]float64
	var firstErr error
	for _, x := range points {
		if _, err := m.LogJoint(x, grad); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		good = append(good, x)
	}
	if len(good) == 0 {
		if firstErr == nil {
			return nil, fmt.Errorf("no point to profile at")
		}
		return nil, firstErr
	}
	var sum autodiff.Profile
	batch := 1
	cpu0, cpuOK := processCPU()
	start := time.Now()
	for k := 0; ; k++ {
		x := good[k%len(good)]
		pr, err := m.Profile(x, batch)
		if err != nil {
			return nil, err
		}
		sum.Add(pr)
		el := time.Since(start)
		if k+1 >= len(good) && (el >= profileMaxTime || sum.Evals >= profileMinEvals && el >= profileMinTime) || ctx.Err() != nil {
			break
		}
		if k+1 == len(good) && el > 0 { // after one round: batches of about 10 ms
			per := el / time.Duration(sum.Evals)
			batch = max(1, int(10*time.Millisecond/max(per, 1)))
		}
	}
	rp := &runProfile{points: len(good), evals: sum.Evals, failing: len(points) - len(good),
		forward: sum.Forward.Seconds() / float64(sum.Evals), reverse: sum.Reverse.Seconds() / float64(sum.Evals),
		timeWall: time.Since(start).Seconds(), timeCPU: -1}
	if cpu1, ok := processCPU(); ok && cpuOK {
		rp.timeCPU = cpu1 - cpu0
	}
	all := rp.forward + rp.reverse
	for _, s := range sum.Stmts {
		if s.Nodes == 0 {
			continue
		}
		r := profileRow{pos: s.Pos, nodes: s.Nodes, evaluated: s.Evals,
			forward: s.Forward.Seconds() / float64(sum.Evals), reverse: s.Reverse.Seconds() / float64(sum.Evals)}
		r.text = "(the sum of the statements' terms)"
		if st := m.StmtAt(s.Pos); st != nil {
			r.text = stmtText(st)
		}
		if all > 0 {
			r.share = r.total() / all
		}
		rp.rows = append(rp.rows, r)
	}
	slices.SortStableFunc(rp.rows, func(a, b profileRow) int {
		switch {
		case a.total() > b.total():
			return -1
		case a.total() < b.total():
			return 1
		}
		return a.pos.Line - b.pos.Line
	})
	return rp, nil
}

// stmtText is a statement's first line, spaces collapsed, shortened to
// profileTextMax characters.
func stmtText(s ast.Stmt) string {
	t, _, more := strings.Cut(ast.FormatStmt(s), "\n")
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > profileTextMax {
		t, more = string(r[:profileTextMax-1]), true
	}
	if more {
		t += " …"
	}
	return t
}

// qPoints draws n points of q (a mixture's, its components in turn) in the
// model's coordinates, from profileStream.
func qPoints(r *sgvb.Result, mix *sgvb.Mixture, n int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, profileStream))
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, r.Dim)
		if mix != nil {
			mix.SampleCoords(rng, pts[i], i%len(mix.Components))
		} else {
			r.SampleCoords(rng, pts[i])
		}
	}
	return pts
}

// writeProfileCSV writes profile.csv: a row per statement whose nodes an
// evaluation computes, by total time, with CmdStan's profile columns
// where they apply (times in seconds per evaluation of the log joint and
// its gradient, evals how many evaluations they are the mean of).
func writeProfileCSV(w io.Writer, rp *runProfile) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"statement", "line", "col", "forward_time", "reverse_time", "total_time", "share", "nodes", "evals"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, r := range rp.rows {
		cw.Write([]string{r.text, strconv.Itoa(r.pos.Line), strconv.Itoa(r.pos.Col), g(r.forward), g(r.reverse), g(r.total()),
			g(r.share), strconv.Itoa(r.nodes), strconv.Itoa(r.evaluated)})
	}
	cw.Flush()
	return cw.Error()
}

// printProfile prints --profile's table of the costliest statements and
// how the run's time divides between the model and the engine.
func printProfile(w io.Writer, rp *runProfile) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "profile: %d evaluations of the log joint and its gradient at %s, %s each (forward %s, reverse %s)\n",
		rp.evals, rp.at, msText(rp.forward+rp.reverse), msText(rp.forward), msText(rp.reverse))
	rows := rp.rows[:min(len(rp.rows), profileTopRows)]
	wid := len("statement") // fmt pads to a width in runes
	for _, r := range rows {
		wid = max(wid, len([]rune(r.text)))
	}
	fmt.Fprintf(w, "  %-*s %5s %8s %10s %6s\n", wid, "statement", "line", "share", "each", "nodes")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s %5d %6.1f %% %10s %6d\n", wid, r.text, r.pos.Line, 100*r.share, msText(r.total()), r.nodes)
	}
	if n := len(rp.rows) - len(rows); n > 0 {
		fmt.Fprintf(w, "  (%d more in %s)\n", n, profileFile)
	}
	if rp.failing > 0 {
		fmt.Fprintf(w, "  (%d point%s left out: the log joint fails there)\n", rp.failing, plural(rp.failing))
	}
	if rp.runNote != "" {
		fmt.Fprintf(w, "run: %s\n", rp.runNote)
		return
	}
	model := float64(rp.grads)*(rp.forward+rp.reverse) + float64(rp.values)*rp.forward
	line := fmt.Sprintf("run: %d gradient evaluations × %s", rp.grads, msText(rp.forward+rp.reverse))
	if rp.values > 0 {
		line += fmt.Sprintf(" + %d value evaluations × %s (forward only)", rp.values, msText(rp.forward))
	}
	fmt.Fprintf(w, "%s = %.3g s in the model's statements,\n     of %s %.3g s", line, model, rp.runWhat, rp.runSeconds)
	wallTime := "the wall time"
	if rp.cpuRun {
		wallTime = "that CPU time"
	}
	switch {
	case rp.runSeconds > 0 && model > rp.runSeconds && rp.sideBySide:
		// the workers evaluate the model side by side (SGVB's ELBO and k̂
		// draws), so its summed time can pass the run's wall time
		fmt.Fprintf(w, ": more than %s, as the workers evaluate the model side by side, so %s takes little of it", wallTime, rp.engine)
	case rp.runSeconds > 0 && model > rp.runSeconds:
		// one evaluation at a time: the profile's times, wall-clock and
		// taken apart from the run, are above the run's own (a busy
		// machine: a 5000-row logistic regression at 28 % of a CPU read
		// 13.5 s of model in a 9.2 s fit that used 3.8 s of CPU in all)
		fmt.Fprintf(w, ": more than %s, though the model is evaluated one draw at a time, so the times per evaluation above, measured apart after the run (wall-clock: a busy machine moves them), overstate the run's; no share is given", wallTime)
	case rp.runSeconds > 0:
		share := model / rp.runSeconds
		fmt.Fprintf(w, ": the model %.0f %%, %s %.0f %%", 100*share, rp.engine, 100*(1-share))
	}
	fmt.Fprintln(w)
	if rp.waitNote != "" {
		fmt.Fprintf(w, "     (%s)\n", rp.waitNote)
	}
}

// msText writes seconds as milliseconds, or microseconds below 0.1 ms.
func msText(s float64) string {
	if s < 1e-4 {
		return fmt.Sprintf("%.3g µs", 1e6*s)
	}
	return fmt.Sprintf("%.3g ms", 1e3*s)
}

// profileUsage is --profile's help, gpp fit's and gpp sample's.
const profileUsage = "after the run, time the log joint and its gradient statement by statement at\npoints of the result (10 draws of q; each chain's last draw) for at least 200\nevaluations and 0.2 s (at most 5 s), write profile.csv (each top-level\nstatement's forward, reverse and total seconds per evaluation, its share and\nnodes) and print the costliest statements, with how the run's time divides\nbetween the model's evaluations and the engine (docs/performance.md); the\nresults do not change (default false)"

// fitProfile runs --profile after a fit: it times the model at draws of q
// and sets the run's evaluations against the fit's time. A failure is a
// note, not the fit's: no profile.csv is written.
func fitProfile(ctx context.Context, cfg *fitConfig, l *pipeline.Loaded, r *sgvb.Result, mix *sgvb.Mixture, con *console) {
	con.info("profile: timing the log joint at %d draws of q", profilePoints)
	rp, err := profileModel(ctx, l.Model, qPoints(r, mix, profilePoints, cfg.settings.Seed))
	if err != nil {
		con.note("note: --profile: the log joint fails at every draw of q profiled, so no %s is written: %v", profileFile, err)
		return
	}
	rp.at = fmt.Sprintf("%d draws of q", rp.points)
	rp.grads, rp.values = cfg.counts.grads.Load(), cfg.counts.values.Load()
	rp.runSeconds, rp.runWhat = r.Seconds, "the fit's"
	rp.sideBySide = profileWorkers(cfg.settings, mix) > 1
	if mix != nil {
		rp.runSeconds, rp.runWhat = 0, fmt.Sprintf("the %d restarts' summed", len(mix.Components))
		for _, c := range mix.Components {
			rp.runSeconds += c.Seconds
		}
	}
	switch cfg.settings.Method {
	case sgvb.MAP, sgvb.Laplace, sgvb.Pathfinder:
		rp.engine = "the engine (L-BFGS, the ELBO's draws)"
	default:
		rp.engine = "the engine (draws of q, the optimizer)"
		if gammaDraws(r, mix) {
			rp.engine = "the engine (draws of q and their gamma shape derivatives, the optimizer)"
		}
	}
	if cfg.settings.Minibatch != nil {
		rp.runNote = "not divided: with --minibatch the steps evaluate batches of the data, and the profile is of the full data's log joint"
	}
	cfg.prof = rp
}

// gammaDraws reports whether q (a fit's, or any restart's) has a factor
// whose draws take gamma shape derivatives: a gamma, beta or Dirichlet factor,
// an ordered latent's gamma increments among them.
func gammaDraws(r *sgvb.Result, mix *sgvb.Mixture) bool {
	rs := []*sgvb.Result{r}
	if mix != nil {
		rs = mix.Components
	}
	var has func(fs []sgvb.Factor) bool
	has = func(fs []sgvb.Factor) bool {
		for _, f := range fs {
			if f.Family == sgvb.FamilyGamma || f.Family == sgvb.FamilyBeta || f.Family == sgvb.FamilyDirichlet || has(f.Parts) {
				return true
			}
		}
		return false
	}
	for _, r := range rs {
		if r != nil && has(r.Factors) {
			return true
		}
	}
	return false
}

// profileWorkers is the workers each fit of settings s evaluates the model
// on (Settings.Workers, else sgvb.DefaultWorkers, a mixture's restarts
// sharing the CPUs).
func profileWorkers(s sgvb.Settings, mix *sgvb.Mixture) int {
	if s.Workers > 0 {
		return s.Workers
	}
	par := 1
	if mix != nil {
		par = len(mix.Components)
	}
	return sgvb.DefaultWorkers(par)
}

// sampleProfile runs --profile after NUTS: it times the model at each
// chain's last draw and sets the chains' gradient evaluations, grads,
// against the chains' time, summed over the chains.
// cpu is the process's CPU seconds during the chains (negative: unknown)
// and workers the goroutines that ran them.
func sampleProfile(ctx context.Context, cfg *fitConfig, sd *sampleDraws, res *nuts.Result, grads int64, cpu float64, workers int, m *compile.Model, con *console) {
	var pts [][]float64
	for c := range sd.chains {
		if sd.n > 0 {
			d := (c+1)*sd.n - 1
			pts = append(pts, sd.coords[d*sd.xdim:(d+1)*sd.xdim])
		}
	}
	con.info("profile: timing the log joint at the chains' last draws")
	rp, err := profileModel(ctx, m, pts)
	if err != nil {
		con.note("note: --profile: the log joint fails at every chain's last draw, so no %s is written: %v", profileFile, err)
		return
	}
	rp.at = fmt.Sprintf("the %d chains' last draws", rp.points)
	rp.grads = grads
	wall := 0.0
	for _, ch := range res.Chains {
		wall += (ch.Warmup + ch.Sampling).Seconds()
	}
	chainRunTime(rp, len(res.Chains), wall, cpu, workers, runtime.GOMAXPROCS(0))
	rp.engine = "the engine (NUTS's trees, the adaptation)"
	cfg.prof = rp
}

// chainWaitShare is the share of the chains' summed wall time, unused by
// the process's CPU, from which chainRunTime reads it as waiting for a
// core: below it, scheduling and the clocks' noise.
const chainWaitShare = 0.1

// chainRunTime sets the time rp's gradient count is set against: the
// chains' summed wall time (of chains chains on workers goroutines, cpus
// the cores Go runs on), or, where the process's CPU seconds cpu (negative:
// unknown) are chainWaitShare of it or more below it, those CPU seconds,
// with a note that the wall time held waiting for a core. A chain's wall
// time counts the time it waits for one: a typology trial's 4 chains on 2
// cores read "the engine (NUTS's trees, the adaptation) 65 %" where the
// same gradient count of another model cost the engine 0.4 s.
func chainRunTime(rp *runProfile, chains int, wall, cpu float64, workers, cpus int) {
	rp.runSeconds, rp.runWhat = wall, fmt.Sprintf("the %d chains' summed", chains)
	workers = min(workers, chains) // nuts.Sample runs no more goroutines than chains (--workers 8 --chains 4)
	why := "other processes held the cores"
	if workers > cpus {
		why = fmt.Sprintf("%d chains ran side by side on %d core%s", workers, cpus, plural(cpus))
	}
	switch {
	case cpu >= 0 && cpu < (1-chainWaitShare)*wall:
		rp.runSeconds, rp.runWhat, rp.cpuRun = cpu, fmt.Sprintf("the %d chains' summed CPU time", chains), true
		rp.waitNote = fmt.Sprintf("their summed wall time, %.3g s, held %.3g s of waiting for a core (%s), which the shares leave out", wall, wall-cpu, why)
		if f := rp.timeCPU / rp.timeWall; rp.timeCPU >= 0 && f < 1-chainWaitShare {
			// the timing after the run waited too: its times per
			// evaluation, scaled to its CPU time, are the chains' cost
			rp.forward, rp.reverse = f*rp.forward, f*rp.reverse
			for i := range rp.rows {
				rp.rows[i].forward, rp.rows[i].reverse = f*rp.rows[i].forward, f*rp.rows[i].reverse
			}
			rp.waitNote += fmt.Sprintf("; the times per evaluation are CPU time, the timing having had %.0f %% of a core", 100*f)
		}
	case cpu < 0 && workers > cpus:
		rp.waitNote = fmt.Sprintf("the summed wall time holds the chains' waiting for a core (%s), so the engine's share overstates it", why)
	}
}
