package epm

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The NUTS line of epm_linkpred.md's outcome list is written by Run (with
// the rest of the file) and by RunNUTS (into the file Run wrote), both
// through nutsLine from the epm_nuts.csv beside it, so that either
// command leaves the same line.

// nutsLinePrefix begins the NUTS line of epm_linkpred.md.
const nutsLinePrefix = "* NUTS (the paper's HMC baseline, as Stan samples): "

// nutsLine returns the NUTS line of epm_linkpred.md (with its newline)
// from the rows of epm_nuts.csv; no rows: NUTS not run yet.
func nutsLine(rows []NUTSRow) string {
	var b strings.Builder
	b.WriteString(nutsLinePrefix + "run apart by `gpp-experiments epm-nuts` (`RunNUTS`, minutes a split) on the same splits; its table, divergences and R̂ are in `epm_nuts.md`.")
	var ks []int
	for _, r := range rows {
		if !slices.Contains(ks, r.K) {
			ks = append(ks, r.K)
		}
	}
	if len(ks) == 0 {
		b.WriteString(" Not run yet.")
	}
	for _, s := range (&NUTSReport{Options: Options{Ks: ks}, Rows: rows}).Summarise() {
		var first NUTSRow
		mixed := 0
		for _, r := range rows {
			if r.K != s.K || math.IsNaN(r.AUCROC) {
				continue
			}
			if first.Chains == 0 {
				first = r
			}
			if r.Divergent == 0 && r.RhatP <= RhatOK && r.RhatLP <= RhatOK {
				mixed++
			}
		}
		n := fmt.Sprintf("%d splits", s.N-s.Failed)
		if s.Failed > 0 {
			n += fmt.Sprintf(" (%d failed)", s.Failed)
		}
		if s.N == s.Failed {
			fmt.Fprintf(&b, " At K = %d: every split failed (see `epm_nuts.csv`).", s.K)
			continue
		}
		fmt.Fprintf(&b, " At K = %d, %d chains × (%d + %d): %s over %s, with %d–%d divergent transitions a split and R̂ of p_unknown up to %.3g (≤ %g in %d of %d splits): ",
			s.K, first.Chains, first.Warmup, first.Draws/max(first.Chains, 1), pm(s.AUCROC, s.AUCROCSD, 3), n,
			s.MinDivergent, s.MaxDivergentPerSplit, s.RhatP, RhatOK, s.RhatPBelow, s.N-s.Failed)
		switch mixed {
		case 0:
			b.WriteString("not mixed in any split, NUTS's number on that budget, not the posterior's")
		case s.N - s.Failed:
			b.WriteString("mixed in every split (no divergences, R̂ of p_unknown and lp__ ≤ 1.01)")
		default:
			fmt.Fprintf(&b, "mixed in %d of the splits only (no divergences, R̂ of p_unknown and lp__ ≤ 1.01), so not the posterior's number", mixed)
		}
		b.WriteString(" (the paper's HMC: 0.71).")
	}
	return b.String() + "\n"
}

// readNUTSRows reads the epm_nuts.csv RunNUTS wrote in dir; none there:
// nil rows and no error.
func readNUTSRows(dir string) ([]NUTSRow, error) {
	path := filepath.Join(dir, "epm_nuts.csv")
	recs, err := readCSV(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty, not a file written by RunNUTS", path)
	}
	if !slices.Equal(recs[0], nutsHeader) {
		return nil, fmt.Errorf("%s: not a file written by RunNUTS (header %v)", path, recs[0])
	}
	rows := make([]NUTSRow, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		var r NUTSRow
		var errs []error
		atoi := func(s string) int {
			v, err := strconv.Atoi(s)
			errs = append(errs, err)
			return v
		}
		f := func(s string) float64 {
			v, err := strconv.ParseFloat(s, 64)
			errs = append(errs, err)
			return v
		}
		r.Split, r.K = atoi(rec[0]), atoi(rec[1])
		r.AUCROC, r.AUCPR, r.AvgPrecision, r.Seconds = f(rec[3]), f(rec[4]), f(rec[5]), f(rec[6])
		r.Divergent, r.MaxDepth, r.Draws = atoi(rec[7]), atoi(rec[8]), atoi(rec[9])
		r.RhatLatents, r.RhatR, r.RhatP, r.RhatLP, r.MinESSP = f(rec[10]), f(rec[11]), f(rec[12]), f(rec[13]), f(rec[14])
		r.StepSize, r.MeanLeapfrogs = f(rec[15]), f(rec[16])
		seed, err := strconv.ParseUint(rec[17], 10, 64)
		errs = append(errs, err)
		r.Seed, r.Note = seed, rec[18]
		r.Chains, r.Warmup = atoi(rec[19]), atoi(rec[20])
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", path, i+2, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// linkPredNUTSLine is the NUTS line of epm_linkpred.md in dir, from the
// epm_nuts.csv there.
func linkPredNUTSLine(dir string) (string, error) {
	rows, err := readNUTSRows(dir)
	if err != nil {
		return nutsLine(nil), err
	}
	return nutsLine(rows), nil
}

// updateLinkPredNUTS rewrites the NUTS line of the epm_linkpred.md in dir
// (if Run wrote one there) from the epm_nuts.csv there: RunNUTS's half of
// keeping that line the same whichever command ran last.
func updateLinkPredNUTS(dir string) error {
	md := filepath.Join(dir, "epm_linkpred.md")
	old, err := os.ReadFile(md)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	line, err := linkPredNUTSLine(dir)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(old), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, nutsLinePrefix) })
	if i < 0 {
		return fmt.Errorf("%s: no line beginning %q to update (write it again by gpp-experiments epm)", md, nutsLinePrefix)
	}
	lines[i] = line
	return os.WriteFile(md, []byte(strings.Join(lines, "")), 0o644)
}
