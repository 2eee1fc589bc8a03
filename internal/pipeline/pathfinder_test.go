package pipeline_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// A Pathfinder path scores its iterates' ELBO draws on Settings.Workers
// goroutines, each on its own clone of the compiled model, and gives the
// numbers of one worker bit for bit: q, the trace of ELBO estimates, the
// path's summary, the final ELBO and k̂ (examples/regression.gpp, one
// path).
func TestPathfinderWorkersSameNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the example model")
	}
	l, err := pipeline.Load("../../examples/regression.gpp", []string{"../../examples/wine_std.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ref *sgvb.Result
	for _, w := range []int{1, 2, 3} {
		s := sgvb.Settings{Method: sgvb.Pathfinder, Seed: 5, Workers: w, PSISDraws: 200}
		r, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Trace) < 2 || r.Pathfinder == nil || r.Pathfinder.Scored < 2 {
			t.Fatalf("workers %d: a path of %d scored iterates", w, len(r.Trace))
		}
		if ref == nil {
			ref = r
			continue
		}
		if d := bitDiff(reflect.ValueOf(ref).Elem(), reflect.ValueOf(r).Elem(), "Result"); d != "" {
			t.Errorf("workers 1 and %d differ: %s", w, d)
		}
	}
}

// bitDiff returns where a and b first differ, floats compared by their
// bits (NaN equal to itself) and the wall-clock fields (Seconds) skipped,
// or "" if nowhere.
func bitDiff(a, b reflect.Value, at string) string {
	switch a.Kind() {
	case reflect.Float64:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			return fmt.Sprintf("%s: %v and %v", at, a.Float(), b.Float())
		}
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return at + ": nil and not nil"
			}
			return ""
		}
		return bitDiff(a.Elem(), b.Elem(), at)
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: lengths %d and %d", at, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := bitDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: sizes %d and %d", at, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			if !b.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s: no key %v", at, k)
			}
			if d := bitDiff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", at, k)); d != "" {
				return d
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if f.Name == "Seconds" || !f.IsExported() {
				continue
			}
			if d := bitDiff(a.Field(i), b.Field(i), at+"."+f.Name); d != "" {
				return d
			}
		}
	case reflect.Func, reflect.Chan:
	default:
		if a.Interface() != b.Interface() {
			return fmt.Sprintf("%s: %v and %v", at, a.Interface(), b.Interface())
		}
	}
	return ""
}
