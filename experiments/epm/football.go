package epm

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/experiments/metrics"
)

// The split behind examples/football_train.csv and football_heldout.csv:
// MakeSplit of the shared football115 network, 20 % held out, seed 1.
const (
	FootballNetwork = "football115"
	FootballFrac    = 0.2
	FootballSeed    = 1
)

// HeldoutScore is the link-prediction score of a fit's p_unknown.
type HeldoutScore struct {
	Pairs, Links  int     // held-out pairs and the links among them
	AUCROC, AUCPR float64 // of the posterior mean p_unknown (AUCPR: 3000 thresholds)
}

// FootballSplit rebuilds the split of the football example from the shared
// networks folder dir and checks that heldoutPath (examples/
// football_heldout.csv) lists its test pairs in the same order, so that the
// split's TestLink are the truth of the example's held-out pairs.
func FootballSplit(dir, heldoutPath string) (*Split, error) {
	g, err := LoadNetwork(dir, FootballNetwork)
	if err != nil {
		return nil, err
	}
	s := MakeSplit(g, FootballFrac, FootballSeed)
	rows, err := readPositioned(heldoutPath)
	if err != nil {
		return nil, err
	}
	if err := rows.header(heldoutPath, "i", "j"); err != nil {
		return nil, err
	}
	data := rows.rec[1:]
	for m, r := range data {
		if m >= len(s.Test) {
			break
		}
		i, err1 := strconv.Atoi(r[0])
		j, err2 := strconv.Atoi(r[1])
		if err1 != nil || err2 != nil {
			return nil, rows.errAt(heldoutPath, m+1, 0, "node ids must be integers, not %q,%q", r[0], r[1])
		}
		if p := s.Test[m]; i != p.I || j != p.J {
			return nil, rows.errAt(heldoutPath, m+1, 0, "held-out pair %d is %d,%d, but the split (%s, %g held out, seed %d) has %d,%d: not the example's split",
				m, i, j, FootballNetwork, FootballFrac, FootballSeed, p.I, p.J)
		}
	}
	if len(data) != len(s.Test) {
		return nil, fmt.Errorf("%s: %d held-out pairs, the split has %d", heldoutPath, len(data), len(s.Test))
	}
	return s, nil
}

// ScoreHeldout scores the posterior means of p_unknown[0], p_unknown[1], …
// in a fit's summary.csv (columns name and mean) against the truth of the
// held-out pairs, link[m] for p_unknown[m].
func ScoreHeldout(summaryPath string, link []bool) (*HeldoutScore, error) {
	rows, err := readPositioned(summaryPath)
	if err != nil {
		return nil, err
	}
	if len(rows.rec) == 0 {
		return nil, fmt.Errorf("%s: empty file", summaryPath)
	}
	col := map[string]int{}
	for k, h := range rows.rec[0] {
		col[h] = k
	}
	for _, need := range []string{"name", "mean"} {
		if _, ok := col[need]; !ok {
			return nil, rows.errAt(summaryPath, 0, 0, "no column %q in the header (a gpp fit's summary.csv has name,family,mean,…)", need)
		}
	}
	scores := make([]float64, len(link))
	seen := make([]bool, len(link))
	n := 0
	for r, rec := range rows.rec[1:] {
		name := rec[col["name"]]
		idx, ok := strings.CutPrefix(name, "p_unknown[")
		if !ok {
			continue
		}
		idx, ok = strings.CutSuffix(idx, "]")
		m, err := strconv.Atoi(idx)
		if !ok || err != nil {
			return nil, rows.errAt(summaryPath, r+1, col["name"], "bad element name %q (want p_unknown[m], m from 0)", name)
		}
		if m < 0 || m >= len(link) {
			return nil, rows.errAt(summaryPath, r+1, col["name"], "%s: index outside the %d held-out pairs", name, len(link))
		}
		if seen[m] {
			return nil, rows.errAt(summaryPath, r+1, col["name"], "%s appears twice", name)
		}
		v, err := strconv.ParseFloat(rec[col["mean"]], 64)
		if err != nil {
			return nil, rows.errAt(summaryPath, r+1, col["mean"], "mean %q is not a number", rec[col["mean"]])
		}
		scores[m], seen[m] = v, true
		n++
	}
	if n != len(link) {
		return nil, fmt.Errorf("%s: %d p_unknown rows, want one for each of the %d held-out pairs", summaryPath, n, len(link))
	}
	links := 0
	for _, l := range link {
		if l {
			links++
		}
	}
	return &HeldoutScore{
		Pairs:  len(link),
		Links:  links,
		AUCROC: metrics.AUCROC(scores, link),
		AUCPR:  metrics.AUCPR(scores, link, 3000),
	}, nil
}

// ScoreFootball scores the gpp fit in fitDir (its summary.csv) of the
// football example against the truth of its held-out pairs, rebuilt from
// the shared networks folder dir and checked against heldoutPath.
func ScoreFootball(fitDir, heldoutPath, dir string) (*HeldoutScore, error) {
	s, err := FootballSplit(dir, heldoutPath)
	if err != nil {
		return nil, err
	}
	return ScoreHeldout(filepath.Join(fitDir, "summary.csv"), s.TestLink)
}

// positioned is a CSV file's records with their positions, for errors that
// say file:line:col.
type positioned struct {
	rec [][]string
	pos func(rec, field int) (line, col int)
}

// readPositioned reads a whole CSV file, keeping each field's position.
func readPositioned(path string) (*positioned, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	p := &positioned{}
	var pos [][][2]int
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d:%d: %v", path, pe.Line, pe.Column, pe.Err)
			}
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		fp := make([][2]int, len(rec))
		for k := range rec {
			fp[k][0], fp[k][1] = r.FieldPos(k)
		}
		p.rec = append(p.rec, rec)
		pos = append(pos, fp)
	}
	p.pos = func(rec, field int) (int, int) { return pos[rec][field][0], pos[rec][field][1] }
	return p, nil
}

// header checks that the first record is exactly want.
func (p *positioned) header(path string, want ...string) error {
	if len(p.rec) == 0 {
		return fmt.Errorf("%s: empty file, expected the header %s", path, strings.Join(want, ","))
	}
	if strings.Join(p.rec[0], ",") != strings.Join(want, ",") {
		return p.errAt(path, 0, 0, "expected the header %s, not %s", strings.Join(want, ","), strings.Join(p.rec[0], ","))
	}
	return nil
}

// errAt returns an error positioned at field of record rec.
func (p *positioned) errAt(path string, rec, field int, format string, args ...any) error {
	line, col := p.pos(rec, field)
	return fmt.Errorf("%s:%d:%d: %s", path, line, col, fmt.Sprintf(format, args...))
}
