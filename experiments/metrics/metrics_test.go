package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

const tol = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestHandComputed(t *testing.T) {
	F, T := false, true
	cases := []struct {
		name        string
		scores      []float64
		labels      []bool
		roc, pr, ap float64
		nThresh     int
	}{
		// Every positive above every negative.
		{"perfect", []float64{0.1, 0.2, 0.8, 0.9}, []bool{F, F, T, T}, 1, 1, 1, 0},
		// Every positive below every negative: curve (0,1) (0,0) (0,0)
		// (½,⅓) (1,½), area ½·⅓/2 + ½·(⅓+½)/2 = 7/24; AP = ½·⅓ + ½·½.
		{"inverted", []float64{0.1, 0.2, 0.8, 0.9}, []bool{T, T, F, F}, 0, 7.0 / 24, 5.0 / 12, 0},
		// The scikit-learn documentation example: ROC 0.75, AP 0.8333;
		// curve (0,1) (½,1) (½,½) (1,⅔) (1,½), area ½ + ½·(½+⅔)/2 = 19/24.
		{"tiny", []float64{0.1, 0.4, 0.35, 0.8}, []bool{F, F, T, T}, 0.75, 19.0 / 24, 5.0 / 6, 0},
		// A positive tied with a negative counts ½: ranks 1, 2.5, 2.5,
		// (2.5 − 1)/(1·2) = 0.75; curve (0,1) (1,½) (1,⅓): area ¾.
		{"tie", []float64{1, 1, 0}, []bool{T, F, F}, 0.75, 0.75, 0.5, 0},
		// All scores equal: AUC ½; one threshold, (1, ⅖); area (1+⅖)/2.
		{"all tied", []float64{3, 3, 3, 3, 3}, []bool{T, F, T, F, F}, 0.5, 0.7, 0.4, 0},
		// Ten distinct scores, four thresholds at the 0, ⅓, ⅔, 1 quantiles
		// = scores 0, 3, 6, 9; positives are 5…9: curve (0,1) (⅕,1) (⅘,1)
		// (1,5/7) (1,½), area 0.8 + 0.2·(1+5/7)/2 = 6.8/7.
		{"quantile thresholds", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []bool{F, F, F, F, F, T, T, T, T, T}, 1, 6.8 / 7, 1, 4},
	}
	for _, c := range cases {
		if got := AUCROC(c.scores, c.labels); !near(got, c.roc) {
			t.Errorf("%s: AUCROC = %v, want %v", c.name, got, c.roc)
		}
		if got := AUCPR(c.scores, c.labels, c.nThresh); !near(got, c.pr) {
			t.Errorf("%s: AUCPR = %v, want %v", c.name, got, c.pr)
		}
		if got := AveragePrecision(c.scores, c.labels); !near(got, c.ap) {
			t.Errorf("%s: AveragePrecision = %v, want %v", c.name, got, c.ap)
		}
	}
}

func TestUndefined(t *testing.T) {
	if v := AUCROC([]float64{1, 2}, []bool{true, true}); !math.IsNaN(v) {
		t.Errorf("AUCROC without negatives = %v, want NaN", v)
	}
	if v := AUCPR([]float64{1, 2}, []bool{false, false}, 0); !math.IsNaN(v) {
		t.Errorf("AUCPR without positives = %v, want NaN", v)
	}
	if v := AveragePrecision([]float64{1, 2}, []bool{false, false}); !math.IsNaN(v) {
		t.Errorf("AveragePrecision without positives = %v, want NaN", v)
	}
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		errLen: func() { AUCROC([]float64{1}, []bool{true, false}) },
		errNaN: func() { AUCPR([]float64{1, math.NaN()}, []bool{true, false}, 0) },
	} {
		func() {
			defer func() {
				if r := recover(); r != name {
					t.Errorf("panic %v, want %q", r, name)
				}
			}()
			f()
		}()
	}
}

// AUCROC equals the pairwise definition P(s₊ > s₋) + ½P(s₊ = s₋), with
// many ties (scores rounded to one decimal).
func TestAUCROCPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		n := 5 + rng.IntN(200)
		s := make([]float64, n)
		l := make([]bool, n)
		for i := range s {
			l[i] = rng.Float64() < 0.3
			s[i] = math.Round((rng.Float64()+0.3*b2f(l[i]))*10) / 10
		}
		var num, den float64
		for i := range s {
			for j := range s {
				if !l[i] || l[j] {
					continue
				}
				den++
				switch {
				case s[i] > s[j]:
					num++
				case s[i] == s[j]:
					num += 0.5
				}
			}
		}
		want := num / den
		if den == 0 {
			want = math.NaN()
		}
		got := AUCROC(s, l)
		if !(near(got, want) || math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("trial %d: AUCROC = %v, pairwise %v", trial, got, want)
		}
	}
}

// With at least as many thresholds as distinct scores, AUCPR is the
// trapezoid over every distinct score, computed here directly.
func TestAUCPRAllThresholds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300
	s := make([]float64, n)
	l := make([]bool, n)
	for i := range s {
		l[i] = rng.Float64() < 0.2
		s[i] = rng.NormFloat64() + b2f(l[i])
	}
	// direct: thresholds = the scores themselves, from the top
	npos := 0
	for _, v := range l {
		if v {
			npos++
		}
	}
	pr := [][2]float64{{0, 1}}
	for _, th := range sortedCopy(s, true) {
		tp, all := 0, 0
		for i := range s {
			if s[i] >= th {
				all++
				if l[i] {
					tp++
				}
			}
		}
		pr = append(pr, [2]float64{float64(tp) / float64(npos), float64(tp) / float64(all)})
	}
	want := 0.0
	for i := 1; i < len(pr); i++ {
		want += (pr[i][0] - pr[i-1][0]) * (pr[i][1] + pr[i-1][1]) / 2
	}
	if got := AUCPR(s, l, DefaultThresholds); !near(got, want) {
		t.Errorf("AUCPR = %v, direct %v", got, want)
	}
	// Fewer thresholds than scores: close to the full curve.
	if got := AUCPR(s, l, 100); math.Abs(got-want) > 0.02 {
		t.Errorf("AUCPR with 100 thresholds = %v, full curve %v", got, want)
	}
}

func TestMeanSD(t *testing.T) {
	m, s := MeanSD([]float64{1, 2, 3, 4, math.NaN()})
	if !near(m, 2.5) || !near(s, math.Sqrt(5.0/3)) {
		t.Errorf("MeanSD = %v, %v", m, s)
	}
	if _, s := MeanSD([]float64{1}); !math.IsNaN(s) {
		t.Errorf("sd of one value = %v, want NaN", s)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sortedCopy(x []float64, desc bool) []float64 {
	y := append([]float64(nil), x...)
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if (y[j] > y[i]) == desc && y[j] != y[i] {
				y[i], y[j] = y[j], y[i]
			}
		}
	}
	return y
}

// TestMedian: odd and even lengths, unsorted input, none.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}, {[]float64{-1, 5}, 2}} {
		if got := Median(slices.Clone(c.x)); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}
