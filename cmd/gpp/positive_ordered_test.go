package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// positiveOrderedMixture is a two-component Poisson mixture whose rates
// are kept in order by their type, and counts for it (rates near 2 and 9).
const positiveOrderedMixture = `data y: int[N]
param w: simplex[2] ~ Dirichlet(2)
param lambda: positive_ordered[2] ~ Gamma(2, 0.5)
target += sum(rowlogsumexp(log(w)' + logpdf(y, Poisson(lambda'))))
`

var positiveOrderedCounts = []int{1, 9, 2, 10, 8, 0, 3, 11, 7, 9, 2, 1, 12, 8, 9, 3, 2, 10, 6, 9, 1, 8, 11, 2, 9, 7, 3, 10, 2, 8}

// TestFitPositiveOrdered fits the mixture and reads its files: the summary
// names lambda's family gamma and its draws in draws.csv are positive and
// increasing, fit.json holds one ordered factor of support
// positive_ordered with one gamma part of shape [2], --init from it
// warm-starts a second fit without warnings where the first ended, and a
// MAP fit reports lambda as a point.
func TestFitPositiveOrdered(t *testing.T) {
	d := t.TempDir()
	model, dataFile := filepath.Join(d, "pmix.gpp"), filepath.Join(d, "pmix.csv")
	var b strings.Builder
	b.WriteString("y\n")
	for _, y := range positiveOrderedCounts {
		fmt.Fprintf(&b, "%d\n", y)
	}
	if err := os.WriteFile(model, []byte(positiveOrderedMixture), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dataFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	first, second, mapDir := filepath.Join(d, "first"), filepath.Join(d, "second"), filepath.Join(d, "map")
	if code, _, stderr := runSafe(t, "fit", model, dataFile, "--quiet", "--seed", "1", "--out", first); code != 0 {
		t.Fatalf("first fit: exit %d: %s", code, stderr)
	}
	families := map[string]string{}
	for _, row := range reftest.ReadCSV(t, filepath.Join(first, "summary.csv"))[1:] {
		families[row[0]] = row[1]
	}
	if families["lambda[0]"] != "gamma" || families["lambda[1]"] != "gamma" {
		t.Errorf("summary families %v, want gamma for lambda", families)
	}
	m := summaryMeans(t, first)
	if !(1 < m["lambda[0]"] && m["lambda[0]"] < 4 && 7 < m["lambda[1]"] && m["lambda[1]"] < 11) {
		t.Errorf("lambda means %g, %g; want near 2 and 9", m["lambda[0]"], m["lambda[1]"])
	}
	_, head, rows := readStanCSV(t, filepath.Join(first, "draws.csv"))
	col := columns(head)
	for _, row := range rows[1:] { // the first row is q's mean
		if l1, l2 := row[col["lambda.1"]], row[col["lambda.2"]]; !(0 < l1 && l1 < l2) {
			t.Fatalf("a draw of lambda (%g, %g) is not positive and increasing", l1, l2)
		}
	}
	if f := savedFactor(t, first, "lambda"); f.Family != "ordered" || f.Support != "positive_ordered" || len(f.Parts) != 1 ||
		f.Parts[0].Family != "gamma" || f.Parts[0].Support != "positive" || len(f.Parts[0].Shape) != 1 || f.Parts[0].Shape[0] != 2 {
		t.Errorf("fit.json factor lambda: %+v", f)
	}
	refitFrom(t, first, second, model, dataFile)
	m2 := summaryMeans(t, second)
	for _, name := range []string{"lambda[0]", "lambda[1]"} {
		if math.Abs(m[name]-m2[name]) > 0.2 {
			t.Errorf("%s: %g after the warm start, %g before", name, m2[name], m[name])
		}
	}
	if code, _, stderr := runSafe(t, "fit", model, dataFile, "--quiet", "--family", "map", "--out", mapDir); code != 0 {
		t.Fatalf("MAP fit: exit %d: %s", code, stderr)
	}
	for _, row := range reftest.ReadCSV(t, filepath.Join(mapDir, "summary.csv"))[1:] {
		if strings.HasPrefix(row[0], "lambda") && row[1] != "point" {
			t.Errorf("MAP summary: %s is %s, want point", row[0], row[1])
		}
	}
}

// TestReplPositiveOrdered: after a :fit, :show lambda lists the gamma
// factor of x_0 and of the increment, and mean(lambda) is increasing.
func TestReplPositiveOrdered(t *testing.T) {
	r, out, errb := newTestRepl()
	typeIn(r, "param lambda: positive_ordered[2] ~ Gamma(2, 0.5)", ":fit --quiet --seed 1 --iter 300")
	if r.fit == nil {
		t.Fatalf("no fit; errors:\n%s", errb.String())
	}
	for _, c := range []struct{ in, want string }{
		{":show lambda", "first gamma"},
		{":show lambda", "increment gamma"},
		{"mean(lambda[1] > lambda[0])", "1"},
	} {
		out.Reset()
		errb.Reset()
		typeIn(r, c.in)
		if !strings.Contains(out.String(), c.want) || errb.Len() > 0 {
			t.Errorf("%s: output %q, errors %q; want it to contain %q", c.in, out.String(), errb.String(), c.want)
		}
	}
}
