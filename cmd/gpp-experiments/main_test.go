package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: gpp-experiments"},
		{[]string{"nonsense"}, 2, `unknown experiment "nonsense"`},
		{[]string{"--frobnicate", "epm"}, 2, "flag provided but not defined"},
		{[]string{"epm", "gpfa-cytof"}, 2, "usage: gpp-experiments"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}

// Every experiment named in the usage has a runner, in the order "all" runs.
func TestRunners(t *testing.T) {
	if len(order) != len(experiments) {
		t.Fatalf("%d experiments, %d in the run order", len(experiments), len(order))
	}
	for _, name := range order {
		if experiments[name] == nil {
			t.Errorf("no runner for %q", name)
		}
	}
}
