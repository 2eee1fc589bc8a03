package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/chzyer/readline"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/check"
)

// console writes gpp fit's messages to stderr: a live progress line
// rewritten with \r on a terminal, plain periodic lines otherwise, and notes
// and warnings that never collide with the live line. Safe for concurrent
// use (the Ctrl-C handler writes from its own goroutine).
type console struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool // w is a terminal: rewrite one line
	quiet   bool // no progress
	verbose bool // a plain line at every evaluation

	maxIter   int
	evalEvery int
	point     string   // the exact objective of an L-BFGS fit (MAP: "log joint"); "": the ELBO
	batch     bool     // a minibatch fit: the ELBO estimates are the batches' (progressLine)
	every     int      // without a terminal, print every every-th evaluation
	warned    []string // the "warning: " notes printed so far, without the prefix (warnings)
	n         int      // evaluations seen
	live      bool     // a \r line is on screen
	liveLen   int
	last      time.Duration // fit time of the last line shown
}

// newConsole returns a console on w.
func newConsole(w io.Writer, tty, quiet, verbose bool) *console {
	return &console{w: w, tty: tty, quiet: quiet, verbose: verbose}
}

// isTerminal reports whether v (a reader or writer) is a terminal. It asks
// the terminal driver, as readline does: being a character device is not
// enough, since /dev/null is one too (gpp repl < /dev/null is a script, and
// gpp fit 2>/dev/null needs no live progress line).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}

// Progress pacing: without a terminal a fit prints about plainLines lines
// (its first evaluation, then every plainLines-th part of the iteration
// limit) and at least one every plainEvery; a terminal's live line is
// redrawn at most every liveEvery.
const (
	plainLines = 10
	plainEvery = 30 * time.Second
	liveEvery  = 100 * time.Millisecond
)

// start prepares the progress display of fits (restarts, reporting to the
// same console) of up to maxIter iterations each with an ELBO evaluation
// every evalEvery; point names the exact objective of an L-BFGS fit (MAP,
// Laplace's mode search: pointObjective), "" for SGVB's ELBO. An L-BFGS
// fit reports every iteration whatever --eval-every says, so its lines are
// paced by iterations.
func (c *console) start(maxIter, evalEvery, fits int, point string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if point != "" {
		evalEvery = 1
	}
	c.maxIter, c.evalEvery, c.n, c.last, c.point = maxIter, max(evalEvery, 1), 0, 0, point
	evals := max(maxIter/c.evalEvery, 1) * max(fits, 1)
	c.every = max((evals+plainLines-1)/plainLines, 1)
}

// progress reports one ELBO evaluation, its line after prefix.
func (c *console) progress(prefix string, p sgvb.Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if c.quiet {
		return
	}
	line := prefix + progressLine(p, c.maxIter, c.point, c.batch)
	switch {
	case c.tty && !c.verbose:
		if c.n > 1 && p.Elapsed-c.last < liveEvery && p.Iter < c.maxIter {
			return
		}
		c.last = p.Elapsed
		c.drawLive(line)
	case c.verbose || c.n == 1 || c.n%c.every == 0 || p.Elapsed-c.last >= plainEvery:
		c.last = p.Elapsed
		fmt.Fprintln(c.w, line)
	}
}

// pointObjective returns the name of the exact objective an L-BFGS fit
// of method m reports per iteration, "" for SGVB.
func pointObjective(m sgvb.Method) string {
	switch m {
	case sgvb.MAP:
		return "log joint"
	case sgvb.Laplace, sgvb.Pathfinder:
		return "log density"
	}
	return ""
}

// scoringAfter is how long a fit runs before its final estimate gets a
// line (scoringNote): on a fast fit it is over before a line could help.
const scoringAfter = 10 * time.Second

// scoringNote returns sgvb.Settings.Scoring for a fit on con: a line as
// the final estimate of the ELBO and Pareto k̂ starts, once the fit has
// taken scoringAfter, which on large data takes a while after the last
// step (a trial's 200 000 rows: 54 s of steps, then 120 s of silence).
// The fit's time at its first final estimate is its steps' (with the
// start's and the evaluations' estimates); a later round (k̂ again near
// 0.7, the last iterate's estimate) says how long the rounds before it
// took, which the fit's time so far includes.
func scoringNote(con *console) func(int, time.Duration, bool) {
	steps := time.Duration(-1) // the fit's time at its first final estimate
	return func(draws int, elapsed time.Duration, elbo bool) {
		what := "the ELBO and Pareto k̂"
		if !elbo {
			what = "Pareto k̂ again (near 0.7)"
		}
		if steps < 0 {
			steps = elapsed
		}
		if elapsed < scoringAfter {
			return
		}
		after := fmt.Sprintf("after %.3g s of steps", steps.Seconds())
		if d := elapsed - steps; d > 0 {
			after += fmt.Sprintf(" and %.3g s of final estimates before this one", d.Seconds())
		}
		con.info("scoring q: %s from %d draws of q on the full data, %s", what, draws, after)
	}
}

// phaseTick is how often a long check's live line (phaseProgress) is
// redrawn; phaseQuiet is how long a check runs before it gets one.
const (
	phaseTick  = time.Second
	phaseQuiet = 2 * time.Second
)

// phaseProgress shows the progress of a long check after the steps (the
// final estimate's n draws of q) on con, where the steps' progress was:
// once it has run phaseQuiet, a live line on a terminal, redrawn every
// phaseTick, or a plain line every plainEvery otherwise; none with
// --quiet. what names the check ("scoring q"), unit its units ("draws");
// done reports how many are done (safe from any goroutine). The line
// gives the count, the rate and the time left at that rate. stop ends it
// (the live line ended, the goroutine gone); calls after the first do
// nothing.
func phaseProgress(con *console, what, unit string, n int, done func() int, now func() time.Time) (stop func()) {
	quit, over := make(chan struct{}), make(chan struct{})
	start := now()
	go func() {
		defer close(over)
		t := time.NewTicker(phaseTick)
		defer t.Stop()
		var last time.Time
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			at := now()
			el := at.Sub(start)
			if el < phaseQuiet {
				continue
			}
			plain := last.IsZero() || at.Sub(last) >= plainEvery
			if con.liveLine(phaseLine(what, unit, done(), n, el), plain) {
				last = at
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-over
			con.finish()
		})
	}
}

// phaseLine formats a check's progress: k of n units after el, the rate
// and the time left at it.
func phaseLine(what, unit string, k, n int, el time.Duration) string {
	eta := "—"
	if k > 0 && k <= n {
		eta = (time.Duration(float64(el) / float64(k) * float64(n-k))).Round(time.Second).String()
	}
	rate := 0.0
	if el > 0 {
		rate = float64(k) / el.Seconds()
	}
	return fmt.Sprintf("%s: %d/%d %s  %.3g %s/s  ETA %s", what, k, n, unit, rate, unit, eta)
}

// Slow steps: a fit whose first steps are slow gets one line as soon as a
// step shows it (stepNote), long before its first progress line at
// --eval-every: after steps of slowStep or more each, or once slowAfter
// has passed without a progress line (a trial's stiff ODE: 300 s without
// a line; Stan says what a gradient took before it samples).
const (
	slowStep  = 2 * time.Second
	slowAfter = 10 * time.Second
)

// stepWatch says early that a fit's first steps are slow: its stepped is
// sgvb.Settings.Stepping, which prints the one line of stepLine once the
// steps before the first evaluation are found slow; its waiting, called
// by a timer at slowAfter, says that no step has finished yet where none
// has (the fit's start, an ELBO estimate, takes as long as its draws'
// log joints). Progress reports (progressed) end both. Safe for the
// timer's goroutine.
type stepWatch struct {
	mu                 sync.Mutex
	con                *console
	maxIter, evalEvery int
	advice             string // after the line, "" for none
	steps              int
	progress           bool // a progress line was reported
	said, waited       bool
}

// newStepWatch returns a stepWatch for a fit of maxIter steps with an
// ELBO evaluation every evalEvery on con.
func newStepWatch(con *console, maxIter, evalEvery int, advice string) *stepWatch {
	return &stepWatch{con: con, maxIter: maxIter, evalEvery: evalEvery, advice: advice}
}

// watchSteps sets s's Progress (con's progress line, then after, a
// test's hook, where not nil) and Stepping to a stepWatch of the fit's
// steps, with slowAdvice for info, and starts its timer for an SGVB fit
// (MAP, Laplace and Pathfinder report every iteration). The returned
// function stops the timer.
func watchSteps(con *console, s *sgvb.Settings, info *check.Info, after func(sgvb.Progress)) (stop func()) {
	return watchStepsAt(con, s, info, after, time.Now, afterFunc)
}

// watchStepsAt is watchSteps with the clock now and the timers of after:
// an SGVB fit also gets a paceWatch of its steps between its ELBO
// evaluations, which ends at the last or as the final estimate starts
// (Scoring, set before, has its own line).
func watchStepsAt(con *console, s *sgvb.Settings, info *check.Info, after func(sgvb.Progress), now func() time.Time, timer timerFunc) (stop func()) {
	advice := slowAdvice(info, "--iter")
	w := newStepWatch(con, s.MaxIter, s.EvalEvery, advice)
	var pace *paceWatch
	maxIter := s.MaxIter
	if s.Method == sgvb.SGVB {
		var steps atomic.Int64
		pace = newPaceWatch(con, now(), now, timer, steps.Load, fitPaceLine(s.MaxIter, max(s.EvalEvery, 1), advice))
		s.Stepped = func(n int) { steps.Store(int64(n)) }
		if scoring := s.Scoring; scoring != nil {
			s.Scoring = func(n int, d time.Duration, elbo bool) {
				pace.end()
				scoring(n, d, elbo)
			}
		}
	}
	s.Progress = func(p sgvb.Progress) {
		w.progressed()
		con.progress("", p)
		if pace != nil {
			if p.Iter < maxIter {
				pace.line(int64(p.Iter))
			} else {
				pace.end()
			}
		}
		if after != nil {
			after(p)
		}
	}
	s.Stepping = w.stepped
	s.Rollback = func(_ int, warning string) { con.info("%s", rollbackLine(warning)) }
	if pace == nil {
		return func() {}
	}
	stopWait := w.watch()
	return func() {
		stopWait()
		pace.end()
	}
}

// rollbackLine is the progress stream's line for a rollback's warning
// (sgvb.Settings.Rollback), said as it happens; the warning is printed
// again with the others after the fit.
func rollbackLine(warning string) string { return "rollback: " + warning }

// stepped is sgvb.Settings.Stepping.
func (w *stepWatch) stepped(steps int, stepping, elapsed time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.steps = steps
	if w.said || w.progress || steps < 1 {
		return
	}
	per := stepping / time.Duration(steps)
	if per < slowStep && elapsed < slowAfter {
		return
	}
	w.said = true
	w.con.info("%s", stepLine(steps, per, elapsed-stepping, w.maxIter, w.evalEvery, w.advice))
}

// waiting says, once, that no step has finished after elapsed, unless
// one has or a progress line came.
func (w *stepWatch) waiting(elapsed time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.steps > 0 || w.progress || w.waited {
		return
	}
	w.waited = true
	w.con.info("no step has finished after %s (before step 1 the fit estimates its start's ELBO from up to %d draws of q, a log joint each); a line will say what step 1 took", humanSpan(elapsed), guardDrawsShown)
}

// guardDrawsShown is the draws of the ELBO estimate of a fit's start
// (sgvb's guard), as the waiting line names them.
const guardDrawsShown = 20

// progressed records a progress report: no more lines.
func (w *stepWatch) progressed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.progress = true
}

// watch starts w's timer, which calls waiting at slowAfter; the
// returned function stops it.
func (w *stepWatch) watch() (stop func()) {
	t := time.AfterFunc(slowAfter, func() { w.waiting(slowAfter) })
	return func() { t.Stop() }
}

// Pace collapses: once progress lines have come, a run whose pace then
// falls (NUTS's trees at full depth in an ODE's stiff region, SGVB's
// draws in one) gets one line where none has come for paceFactor times
// the interval before the last one, and paceFloor at least (a user
// trial: "10% of 8000 iterations", then silence for many minutes).
const (
	paceFloor  = time.Minute
	paceFactor = 3
)

// timerFunc calls f after d on its own goroutine, as time.AfterFunc;
// the returned function stops the timer.
type timerFunc func(d time.Duration, f func()) (stop func())

// afterFunc is the timerFunc of time.AfterFunc.
func afterFunc(d time.Duration, f func()) func() {
	t := time.AfterFunc(d, f)
	return func() { t.Stop() }
}

// paceWatch says when a run's progress lines stop coming at their pace:
// line records each, with the units done so far (steps, iterations), and
// sets a timer to paceFactor times the interval before it (paceFloor at
// least); where it runs out before the next line, say's line is printed,
// once until a line comes again. done counts the units now (safe from
// the timer's goroutine); mark, where set, is called at each line (under
// the watch's lock, as say is) for the caller's own counts. Nothing is
// said with --quiet, or after end. Safe for concurrent use.
type paceWatch struct {
	mu    sync.Mutex
	con   *console
	now   func() time.Time
	after timerFunc
	done  func() int64
	mark  func()
	// say formats the line: since the last line at lastN, k units done
	// in since; the interval before it took gap for gapK.
	say func(since time.Duration, lastN, k int64, gap time.Duration, gapK int64) string

	last           time.Time // of the last line (the start before any)
	lastN, gapK    int64
	gap            time.Duration
	stalled, ended bool
	stop           func()
}

// newPaceWatch returns a paceWatch on con of a run that began at start.
func newPaceWatch(con *console, start time.Time, now func() time.Time, after timerFunc, done func() int64,
	say func(since time.Duration, lastN, k int64, gap time.Duration, gapK int64) string) *paceWatch {
	return &paceWatch{con: con, now: now, after: after, done: done, say: say, last: start}
}

// line records a progress line after n units in all.
func (w *paceWatch) line(n int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || w.con.quiet {
		return
	}
	t := w.now()
	w.gap, w.gapK = t.Sub(w.last), n-w.lastN
	w.last, w.lastN = t, n
	w.stalled = false
	if w.mark != nil {
		w.mark()
	}
	w.arm(w.wait())
}

// wait is how long after the last line the pace is found collapsed.
func (w *paceWatch) wait() time.Duration { return max(paceFloor, paceFactor*w.gap) }

// arm sets the timer to check after d (caller holds mu).
func (w *paceWatch) arm(d time.Duration) {
	if w.stop != nil {
		w.stop()
	}
	w.stop = w.after(d, w.check)
}

// check is the timer's: the line of the collapse, once, where the next
// line is late.
func (w *paceWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || w.stalled {
		return
	}
	since := w.now().Sub(w.last)
	if d := w.wait() - since; d > 0 { // early by the clock
		w.arm(d)
		return
	}
	w.stalled = true
	w.con.info("%s", w.say(since, w.lastN, w.done()-w.lastN, w.gap, w.gapK))
}

// end stops the watch: the run is over, or its last phase has a line of
// its own.
func (w *paceWatch) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
}

// paceNow says the pace since the last line, k units in since (phase
// after their name, "" for none), against
// before's (each unit's time, per what: "each", "each across the
// chains"), and what the left units would take at it: at least that
// where none finished since.
func paceNow(since time.Duration, k int64, gap time.Duration, gapK int64, left int64, unit, units, phase, what string) string {
	before := "—"
	if gapK > 0 {
		before = humanSpan(gap / time.Duration(gapK))
	}
	if k <= 0 {
		return fmt.Sprintf("no %s has finished since (%s %s before); at %s or more each, the %d %s left would take %s or more",
			unit, before, what, humanSpan(since), left, units, humanSpan(since*time.Duration(left)))
	}
	per := since / time.Duration(k)
	return fmt.Sprintf("%d %s%s since, %s %s against %s before; at this pace the %d %s left would take about %s",
		k, units, phase, humanSpan(per), what, before, left, units, humanSpan(per*time.Duration(left)))
}

// fitPaceLine is the line of an SGVB fit of maxIter steps, with an
// evaluation every evalEvery, whose pace fell (paceWatch.say).
func fitPaceLine(maxIter, evalEvery int, advice string) func(since time.Duration, lastN, k int64, gap time.Duration, gapK int64) string {
	return func(since time.Duration, lastN, k int64, gap time.Duration, gapK int64) string {
		left := max(int64(maxIter)-lastN-k, 0)
		line := fmt.Sprintf("slower: %s since the ELBO evaluation at step %d (the next at step %d): %s",
			humanSpan(since), lastN, min(lastN+int64(evalEvery), int64(maxIter)), paceNow(since, k, gap, gapK, left, "step", "steps", "", "each"))
		if advice != "" {
			line += "; " + advice
		}
		return line
	}
}

// stepLine says what the first steps took, per each, and what the fit
// would take at that pace: its maxIter steps, and the first progress line
// at step evalEvery; before is the time of the fit's start before its
// first step (its ELBO estimate), named where it is long too.
func stepLine(steps int, per, before time.Duration, maxIter, evalEvery int, advice string) string {
	took := "step 1 took " + humanSpan(per)
	if steps > 1 {
		took = fmt.Sprintf("steps 1-%d took %s each", steps, humanSpan(per))
	}
	if before >= slowStep {
		took += ", after " + humanSpan(before) + " for the fit's start"
	}
	line := fmt.Sprintf("%s: the %d steps of --iter would take about %s", took, maxIter, humanSpan(per*time.Duration(maxIter)))
	if evalEvery > steps && evalEvery < maxIter {
		line += fmt.Sprintf(", and the first progress line comes at step %d, in about %s", evalEvery, humanSpan(per*time.Duration(evalEvery-steps)))
	}
	if advice != "" {
		line += "; " + advice
	}
	return line
}

// humanSpan formats a duration for a person: seconds, minutes or hours, three
// digits at most.
func humanSpan(d time.Duration) string {
	switch {
	case d < 100*time.Second:
		return fmt.Sprintf("%.3g s", d.Seconds())
	case d < 100*time.Minute:
		return fmt.Sprintf("%.3g min", d.Minutes())
	}
	return fmt.Sprintf("%.3g h", d.Hours())
}

// slowAdvice is what the line of slow steps (stepNote) suggests for the
// model of info: a model that solves an ODE at every draw, a looser
// tolerance, ode_bdf for a stiff system solved by ode_rk45, or fewer
// steps (the flags fewer); any other, --profile to find the statements
// that take the time, or fewer steps.
func slowAdvice(info *check.Info, fewer string) string {
	var first *check.ODECall
	rk45 := false
	for _, oc := range info.ODEs {
		if first == nil || oc.Call.Fun.Pos().Before(first.Call.Fun.Pos()) {
			first = oc
		}
		if strings.HasPrefix(oc.Call.Fun.Name, "ode_rk45") {
			rk45 = true
		}
	}
	if first == nil {
		return "--profile shows which statements take the time; fewer " + fewer + " would end sooner"
	}
	advice := fmt.Sprintf("the model solves an ODE at every draw (%s at %s): a looser tolerance (rel_tol and abs_tol of the _tol form) makes each solve cheaper", first.Call.Fun.Name, first.Call.Fun.Pos())
	if rk45 {
		advice += ", ode_bdf solves a stiff system in far fewer steps than ode_rk45"
	}
	return advice + ", and fewer " + fewer + " would end sooner"
}

// progressLine formats a progress report: iteration, ELBO ± SE (the log
// joint of a MAP fit, or another exact objective point; "batch ELBO" for
// a minibatch fit's estimates from its batches, which the final
// full-data ELBO replaces), relative change (SGVB's convergence rule;
// L-BFGS has none to show; "—" until the rule's window fills, from the
// start or from the last rollback, which it names), speed and the time left to the iteration
// limit.
func progressLine(p sgvb.Progress, maxIter int, point string, batch bool) string {
	rel := "—"
	switch {
	case !math.IsNaN(p.RelChange):
		rel = fmt.Sprintf("%.1e", p.RelChange)
	case p.RolledBack > 0:
		rel = fmt.Sprintf("— (rolled back at %d)", p.RolledBack)
	}
	speed := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		speed = float64(p.Iter) / s
	}
	eta := "—"
	if speed > 0 && maxIter > p.Iter {
		eta = (time.Duration(float64(maxIter-p.Iter)/speed) * time.Second).Round(time.Second).String()
	} else if maxIter <= p.Iter {
		eta = "0s"
	}
	objective := fmt.Sprintf("ELBO %.6g ± %.2g  rel. change %s", p.ELBO, p.SE, rel)
	if batch {
		objective = "batch " + objective
	}
	if point != "" {
		objective = fmt.Sprintf("%s %.6g", point, p.ELBO)
	}
	return fmt.Sprintf("iter %*d/%d  %s  %s  ETA %s",
		len(fmt.Sprint(maxIter)), p.Iter, maxIter, objective, speedWords(speed), eta)
}

// speedWords says how fast steps go: "1200 it/s", or "1.49 s/it" below
// one step a second (a fit of a million counts), where "0 it/s" said
// nothing.
func speedWords(speed float64) string {
	if speed > 0 && speed < 1 {
		return fmt.Sprintf("%.3g s/it", 1/speed)
	}
	return fmt.Sprintf("%.0f it/s", speed)
}

// liveLine shows line as the live line on a terminal, and as a plain
// line elsewhere where plain is set; nothing with --quiet. It reports
// whether a plain line was printed.
func (c *console) liveLine(line string, plain bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.quiet:
		return false
	case c.tty:
		c.drawLive(line)
		return false
	case plain:
		fmt.Fprintln(c.w, line)
		return true
	}
	return false
}

// drawLive redraws the live line as line, padded over a longer one
// before it (caller holds mu).
func (c *console) drawLive(line string) {
	pad := ""
	n := utf8.RuneCountInString(line)
	if d := c.liveLen - n; d > 0 {
		pad = strings.Repeat(" ", d)
	}
	fmt.Fprintf(c.w, "\r%s%s", line, pad)
	c.live, c.liveLen = true, n
}

// endLive ends the live line, if any (caller holds mu).
func (c *console) endLive() {
	if c.live {
		fmt.Fprintln(c.w)
		c.live, c.liveLen = false, 0
	}
}

// finish ends the progress display.
func (c *console) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLive()
}

// note prints a message line (shown even with --quiet).
func (c *console) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLive()
	msg := fmt.Sprintf(format, args...)
	if w, ok := strings.CutPrefix(msg, "warning: "); ok {
		c.warned = append(c.warned, w)
	}
	errorf(c.w, "%s", msg)
}

// warnings returns the warnings that note has printed so far, without
// "warning: ", for fit.json (fitfile.File's warnings).
func (c *console) warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.warned)
}

// info prints an informational line, unless quiet.
func (c *console) info(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.quiet {
		return
	}
	c.endLive()
	fmt.Fprintf(c.w, format+"\n", args...)
}

// Write lets positioned errors be printed through the console.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLive()
	return c.w.Write(p)
}

// exitInterrupted is the exit code of a fit stopped by Ctrl-C or SIGTERM
// (128 + SIGINT, as shells report it): after the first signal the outputs
// are written, marked interrupted; after the second gpp exits at once.
const exitInterrupted = 130

// interruptGrace is how soon after the first signal a second one is taken
// as the same interrupt: GNU timeout -s INT delivers SIGINT to gpp twice
// (directly and to its process group), which would otherwise discard the
// q reached.
const interruptGrace = 500 * time.Millisecond

// watchInterrupts cancels the fit at the first signal on sigs (after
// calling first) and calls second at the next one that comes interruptGrace
// or more after it, by clock. It returns a function that stops watching.
func watchInterrupts(sigs <-chan os.Signal, cancel context.CancelFunc, first, second func(), clock func() time.Time) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var t0 time.Time
		for {
			select {
			case <-done:
				return
			case <-sigs:
				switch now := clock(); {
				case t0.IsZero():
					t0 = now
					first()
					cancel()
				case now.Sub(t0) >= interruptGrace:
					second()
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}

// exitTerminated is the exit code after SIGTERM where gpp does not stop a
// fit cleanly (128 + SIGTERM, as shells report a process it killed).
const exitTerminated = 143

// exitOnTerm makes SIGTERM, until stop is called, remove the files temps
// tracks and exit with exitTerminated. The REPL, where Ctrl-C only
// cancels a :fit, would otherwise die at once on SIGTERM and leave the
// temporary files of a :fit --out (and its directory lock) behind.
func exitOnTerm(temps *tempFiles, w io.Writer) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-sigs:
			temps.removeAll()
			errorf(w, "terminated: exiting without writing outputs")
			os.Exit(exitTerminated)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
		wg.Wait()
	}
}
