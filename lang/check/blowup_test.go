package check_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// nestedFns is a model of depth functions, each calling the one before it
// twice and multiplying its argument width times: a call of the last
// expands 2^(depth+1)-1 bodies of about 2*width nodes each.
func nestedFns(depth, width int) string {
	var b strings.Builder
	b.WriteString("param x: real ~ Normal(0, 1)\nfn f0(a) = a\n")
	product := strings.TrimSuffix(strings.Repeat("a * ", width), " * ")
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "fn f%d(a) = f%d(a) + f%d(a)", i, i-1, i-1)
		if width > 0 {
			b.WriteString(" + " + product)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "target += f%d(x)\n", depth)
	return b.String()
}

// checkWithin checks src and returns its error, failing the test if the
// check has not returned after limit: a hang guard, not a speed assertion.
func checkWithin(t *testing.T, src string, limit time.Duration) error {
	t.Helper()
	f, err := parser.ParseFile("f.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := check.Check(f, nil)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("check has not returned after %v", limit)
		return nil
	}
}

// TestInlinedNodesBound checks that nested calls of large function bodies
// stop at maxInlinedNodes nodes, long before maxInlined copies: 2^18-1
// expansions of bodies of 600 nodes took the checker over a minute.
func TestInlinedNodesBound(t *testing.T) {
	err := checkWithin(t, nestedFns(17, 300), 60*time.Second)
	want := "the calls of user functions expand to more than 1000000 nodes of expressions; call fewer, or nest them less"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error %q", err, want)
	}
	if strings.Count(err.Error(), "expand to more than") != 1 {
		t.Errorf("the bound is reported more than once:\n%v", err)
	}
}

// TestInlinedCopiesBound checks that small bodies still stop at maxInlined
// copies, with that message, and that a nest below both bounds checks.
func TestInlinedCopiesBound(t *testing.T) {
	err := checkWithin(t, nestedFns(17, 0), 60*time.Second)
	want := "the calls of user functions expand to more than 100000 copies of their bodies; call fewer, or nest them less"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error %q", err, want)
	}
	if err := checkWithin(t, nestedFns(10, 20), 60*time.Second); err != nil {
		t.Fatalf("2047 expansions of 40 nodes: %v", err)
	}
}

// BenchmarkCheckNestedFns checks a file whose calls expand past the
// bounds, with bodies of growing size: the work is bounded by
// maxInlinedNodes, not by maxInlined copies of the bodies.
func BenchmarkCheckNestedFns(b *testing.B) {
	for _, width := range []int{10, 20, 40, 80} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			f, err := parser.ParseFile("f.gpp", []byte(nestedFns(17, width)))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := check.Check(f, nil); err == nil {
					b.Fatal("no error")
				}
			}
		})
	}
}

// boolChain is a model of n lets, each the && of the one before with
// itself, the first a comparison on a param, read by an if condition.
func boolChain(n int) string {
	var b strings.Builder
	b.WriteString("param x: real ~ Normal(0, 1)\nlet b0 = x > 0\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "let b%d = b%d && b%d\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "if b%d { target += x }\n", n)
	return b.String()
}

// TestStepsThroughLetChain checks that the comparison on a param at the
// root of a chain of lets, each reading the one before twice, is reported
// once, at its operator, and in time linear in the chain: the lets' lists
// of operators doubled at each let, 2^40 entries here.
func TestStepsThroughLetChain(t *testing.T) {
	err := checkWithin(t, boolChain(40), 60*time.Second)
	want := "f.gpp:2:12: a comparison needs operands known before the fit (it is read through the let `b40` at f.gpp:43:4), and `x` is the param `x`: its value would be a step function"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one error starting %q", err, want)
	}
}

// BenchmarkCheckLetChainSteps checks boolChain(n): linear in n.
func BenchmarkCheckLetChainSteps(b *testing.B) {
	for _, n := range []int{12, 14, 16, 18} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			f, err := parser.ParseFile("f.gpp", []byte(boolChain(n)))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := check.Check(f, nil); err == nil {
					b.Fatal("no error")
				}
			}
		})
	}
}
