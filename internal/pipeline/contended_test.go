package pipeline_test

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
)

// hogEnv makes the test binary a CPU hog (see TestMain): it busy-loops on
// the given number of threads until killed.
const hogEnv = "GPP_BENCH_HOG"

func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv(hogEnv)); err == nil && n > 0 {
		runtime.GOMAXPROCS(n)
		for range n - 1 {
			go spinForever()
		}
		spinForever()
	}
	os.Exit(m.Run())
}

var hogSink uint64

func spinForever() {
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			hogSink = x
		}
	}
}

// startHog runs another process that keeps every CPU busy, as other jobs
// on a shared machine do, and returns a function that stops it.
func startHog(tb testing.TB) func() {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hogEnv+"="+strconv.Itoa(runtime.NumCPU()))
	if err := cmd.Start(); err != nil {
		tb.Skipf("cannot start the CPU hog: %v", err)
	}
	time.Sleep(50 * time.Millisecond) // let it reach its loops
	return func() {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// BenchmarkGoalFitContended is BenchmarkGoalFit's EPM fit (NIPS234, K =
// 10, 1000 steps, log shape/log mean) while another process keeps every
// CPU busy: a shared machine, or several fits started at once. workers=2
// against workers=1 shows what the second worker gains or costs when it
// competes for a CPU. Before the engine took back the parts its helper had
// not taken (crew.wait), workers=2 took 4–7 times as long as workers=1
// here; with that alone 1.3 times as long, and since the crew goes solo
// while its helper is mostly absent (crew.account), about as long.
func BenchmarkGoalFitContended(b *testing.B) {
	l := epmLoaded(b, 10)
	for _, w := range []int{1, 2} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			stop := startHog(b)
			defer stop()
			var dt time.Duration
			for b.Loop() {
				t, _ := fitCostParam(b, l, 0.1, 1000, w, sgvb.GammaLogMeanShape)
				dt += t
			}
			b.ReportMetric(dt.Seconds()/float64(b.N), "s/fit")
		})
	}
}
