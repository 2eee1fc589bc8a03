package main

// gpp compare --evidence: fits ranked by their log evidence (evidence.json,
// gpp fit --evidence and gpp sample --evidence), with Bayes factors and
// posterior model probabilities under equal prior odds (bridgesampling's
// bayes_factor and post_prob, brms's).

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/lang/ast"
)

// evidenceFit is one fit's evidence.json as gpp compare reads it.
type evidenceFit struct {
	label, path string
	f           evidenceJSON
	// logBF is log p(y | this) − log p(y | best), seBF its standard error
	// (the two estimates independent), prior the model's prior
	// probability (--prior-prob) and prob its posterior probability.
	logBF, seBF, prior, prob float64
}

// readEvidenceFit reads the evidence.json that arg is or holds.
func readEvidenceFit(arg string, src sources) (*evidenceFit, error) {
	path, label, err := comparedFile(arg, evidenceFile)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, fmt.Errorf("%s has no %s: run gpp fit or gpp sample with --evidence", arg, evidenceFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	src[path] = b
	e := &evidenceFit{label: label, path: path}
	e.f.LogEvidence = fitfile.Float(math.NaN()) // absent: no estimate, not 0
	if err := json.Unmarshal(b, &e.f); err != nil {
		return nil, fitfile.JSONError(path, b, err, "evidence")
	}
	if e.f.Format != evidenceFormat {
		return nil, &ast.Error{Pos: fitfile.FindPos(path, b, `"format"`), Msg: fmt.Sprintf("not a gpp evidence file (format %q, want %q)", e.f.Format, evidenceFormat)}
	}
	if v := float64(e.f.LogEvidence); math.IsNaN(v) || math.IsInf(v, 1) {
		msg := fmt.Sprintf("log_evidence is %s: want a number or -inf", formatNum(v))
		if !bytes.Contains(b, []byte(`"log_evidence"`)) {
			msg = "no log_evidence: not an evidence.json that gpp fit or gpp sample --evidence wrote"
		}
		return nil, &ast.Error{Pos: fitfile.FindPos(path, b, `"log_evidence"`), Msg: msg}
	}
	if v := float64(e.f.SE); v < 0 || math.IsInf(v, 1) {
		return nil, &ast.Error{Pos: fitfile.FindPos(path, b, `"se"`), Msg: fmt.Sprintf("se is %s: want a number at least 0", formatNum(v))}
	}
	if e.f.Draws < 0 {
		return nil, &ast.Error{Pos: fitfile.FindPos(path, b, `"draws"`), Msg: fmt.Sprintf("draws is %d: want at least 0", e.f.Draws)}
	}
	return e, nil
}

// parsePriorProb reads --prior-prob's n positive numbers, normalised to
// sum to 1; "" gives equal ones.
func parsePriorProb(text string, n int) ([]float64, error) {
	p := make([]float64, n)
	if text == "" {
		for i := range p {
			p[i] = 1 / float64(n)
		}
		return p, nil
	}
	parts := strings.Split(text, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%d probabilities for %d fits", len(parts), n)
	}
	sum := 0.0
	for i, t := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("%q is not a positive number", strings.TrimSpace(t))
		}
		p[i] = v
		sum += v
	}
	for i := range p {
		p[i] /= sum
	}
	return p, nil
}

// compareEvidence ranks the fits of args by log evidence and prints the
// table (and writes it as CSV to csvOut unless it is empty); prior holds
// the models' prior probabilities in the order of args.
func compareEvidence(args []string, prior []float64, csvOut string, stdout, stderr io.Writer) int {
	src := sources{}
	fits, ok := readCompared(args, src, stderr, readEvidenceFit, func(e *evidenceFit) string { return e.path })
	if !ok {
		return exitError
	}
	for i, e := range fits {
		e.prior = prior[i]
	}
	if csvOut != "" {
		var dirs []string
		for _, e := range fits {
			dirs = append(dirs, filepath.Dir(e.path))
		}
		if err := fileClash("--csv", csvOut, compareInputs(src, dirs)); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
	}
	for _, e := range fits[1:] {
		if differ, known := otherObservations(fits[0].f.ObservedSHA256, fits[0].f.CovariateSHA256, e.f.ObservedSHA256, e.f.CovariateSHA256); known {
			if len(differ) > 0 {
				errorf(stderr, "warning: %s and %s observe other values of %s: Bayes factors compare models of the same observations",
					fits[0].label, e.label, strings.Join(differ, ", "))
			}
		} else if !sameData(fits[0].f.Data, fits[0].f.DataSHA256, e.f.Data, e.f.DataSHA256) {
			errorf(stderr, "warning: %s read %s, %s read %s: Bayes factors compare models of the same data",
				fits[0].label, strings.Join(fits[0].f.Data, " "), e.label, strings.Join(e.f.Data, " "))
		}
	}
	for i, e := range fits {
		for _, g := range fits[:i] {
			if e.f.ModelSHA256 == g.f.ModelSHA256 && maps.Equal(e.f.Sets, g.f.Sets) {
				errorf(stderr, "warning: %s and %s are of the same model (%s): two estimates of one evidence, whose P(model) splits that model's probability", g.label, e.label, e.f.Model)
			}
		}
	}
	rankEvidence(fits)
	for _, e := range fits {
		if k := float64(e.f.ParetoK); k > 0.7 {
			errorf(stderr, "warning: %s: its importance weights' k̂ is %s (above 0.7): its log evidence is unreliable, likely too small (gpp sample --evidence estimates it by bridge sampling)", e.label, kText(k))
		}
		if n := len(e.f.Caveats); n > 0 {
			errorf(stderr, "warning: %s: its model has %d term%s that p(y) counts as written, perhaps unnormalised (evidence.json's caveats; the first: %s)", e.label, n, plural(n), e.f.Caveats[0])
		}
	}
	printEvidenceComparison(stdout, fits)
	if csvOut != "" {
		if err := writeEvidenceCSV(csvOut, fits); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
	}
	return exitOK
}

// rankEvidence sorts the fits by log evidence, best first (stable, so that
// ties keep the order given), and sets each one's log Bayes factor
// against the best with its standard error and its posterior probability,
// π_k p_k / Σ_j π_j p_j for prior probabilities π (in log space).
func rankEvidence(fits []*evidenceFit) {
	sort.SliceStable(fits, func(i, j int) bool { return fits[i].f.LogEvidence > fits[j].f.LogEvidence })
	best := fits[0].f
	lz := make([]float64, len(fits)) // log π_k + log p_k
	for i, e := range fits {
		lz[i] = math.Log(e.prior) + float64(e.f.LogEvidence)
	}
	lse := floats.LogSumExp(lz)
	for i, e := range fits {
		e.logBF = float64(e.f.LogEvidence) - float64(best.LogEvidence)
		e.seBF = math.Hypot(float64(e.f.SE), float64(best.SE))
		e.prob = math.Exp(lz[i] - lse)
		if i == 0 {
			e.logBF, e.seBF = 0, 0
		}
		if math.IsInf(lse, -1) { // every evidence 0: no probabilities
			e.logBF, e.prob = math.NaN(), math.NaN()
		}
	}
}

// evidenceModel is the model column: the model file and --set values,
// with the method for a sample's bridge sampling.
func evidenceModel(f evidenceJSON) string {
	m := f.Model
	if f.Method == "bridge sampling" {
		m += " (NUTS)"
	}
	for _, k := range sortedKeys(f.Sets) {
		m += " " + k + "=" + f.Sets[k]
	}
	return m
}

// printEvidenceComparison prints the ranked table and how to read it.
func printEvidenceComparison(w io.Writer, fits []*evidenceFit) {
	equal := !slices.ContainsFunc(fits, func(e *evidenceFit) bool { return math.Abs(e.prior*float64(len(fits))-1) > 1e-12 })
	t := &table{right: []bool{false, false, true, true, true, true, true, false}}
	head := []string{"fit", "model", "log p(y)", "se", "log BF", "se_BF", "P(model)", "method"}
	if !equal {
		t.right = slices.Insert(t.right, 6, true)
		head = slices.Insert(head, 6, "prior")
	}
	t.row(head...)
	for _, e := range fits {
		cells := []string{e.label, evidenceModel(e.f), numEv(float64(e.f.LogEvidence)), num2(float64(e.f.SE)), numEv(e.logBF), num2(e.seBF), weightNum(e.prob), e.f.Method}
		if !equal {
			cells = slices.Insert(cells, 6, weightNum(e.prior))
		}
		t.row(cells...)
	}
	fmt.Fprintf(w, "Evidence comparison of %d fits, best first:\n\n", len(fits))
	t.print(w)
	odds := "with equal prior odds"
	if !equal {
		odds = "with the prior probabilities of --prior-prob"
	}
	fmt.Fprint(w, "\nlog BF is a fit's log evidence less the best's, the log Bayes factor against it,\n"+
		"se_BF its standard error; P(model) is the posterior probability of each model\n"+
		odds+". |log BF| above about 2.3 (a factor 10) is strong\n"+
		"evidence (Jeffreys); both depend on the priors, as LOO does not.\n")
}

// numEv formats a log evidence or a log Bayes factor to 0.01 nats: their
// standard errors are typically 0.002–0.05, where elpd's one decimal
// (num1) would hide differences of several se.
func numEv(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return formatNum(v)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// num2 formats a standard error with two significant digits.
func num2(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return fmt.Sprintf("%.2g", v)
}

// writeEvidenceCSV writes the ranked table to path as CSV, atomically.
func writeEvidenceCSV(path string, fits []*evidenceFit) error {
	return writeAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"fit", "model", "log_evidence", "se", "log_bf", "se_bf", "posterior_probability", "method", "pareto_k", "prior_probability"})
		for _, e := range fits {
			cw.Write([]string{e.label, evidenceModel(e.f), formatNum(float64(e.f.LogEvidence)), formatNum(float64(e.f.SE)),
				formatNum(e.logBF), formatNum(e.seBF), formatNum(e.prob), e.f.Method, formatNum(float64(e.f.ParetoK)), formatNum(e.prior)})
		}
		cw.Flush()
		return cw.Error()
	})
}
