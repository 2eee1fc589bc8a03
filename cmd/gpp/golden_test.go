package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// A golden file holds one CLI invocation and its expected result:
//
//	# args: check testdata/bad.gpp
//	# exit: 1
//	-- stdout --
//	...
//	-- stderr --
//	...
//
// Arguments are split on spaces. "$TMP" in an argument stands for a fresh
// temporary directory (for gpp fit's --out), and the directory's path is
// written back as "$TMP" in the output. Run `go test ./cmd/gpp -update` to
// rewrite the expected sections from the current behaviour.
type golden struct {
	args           []string
	exit           int
	stdout, stderr string
}

func parseGolden(t *testing.T, path string) golden {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	text := string(raw)
	head, rest, _ := strings.Cut(text, "-- stdout --\n")
	out, errText, _ := strings.Cut(rest, "-- stderr --\n")
	g.stdout, g.stderr = out, errText
	for _, line := range strings.Split(head, "\n") {
		switch {
		case strings.HasPrefix(line, "# args:"):
			g.args = strings.Fields(strings.TrimPrefix(line, "# args:"))
		case strings.HasPrefix(line, "# exit:"):
			g.exit, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "# exit:")))
			if err != nil {
				t.Fatalf("%s: bad exit line %q", path, line)
			}
		}
	}
	if g.args == nil {
		t.Fatalf("%s: no '# args:' line", path)
	}
	return g
}

func (g golden) format() string {
	return "# args: " + strings.Join(g.args, " ") + "\n# exit: " + strconv.Itoa(g.exit) +
		"\n-- stdout --\n" + g.stdout + "-- stderr --\n" + g.stderr
}

// TestGolden runs every testdata/*.golden invocation and compares exit code,
// stdout and stderr.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.golden")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := parseGolden(t, path)
			tmp := t.TempDir()
			args := make([]string, len(want.args))
			for i, a := range want.args {
				args[i] = strings.ReplaceAll(a, "$TMP", tmp)
			}
			var stdout, stderr bytes.Buffer
			code := run(args, strings.NewReader(""), &stdout, &stderr)
			got := golden{args: want.args, exit: code,
				stdout: strings.ReplaceAll(stdout.String(), tmp, "$TMP"),
				stderr: strings.ReplaceAll(stderr.String(), tmp, "$TMP")}
			if *update {
				if err := os.WriteFile(path, []byte(got.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got.exit != want.exit {
				t.Errorf("exit code %d, want %d", got.exit, want.exit)
			}
			if got.stdout != want.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", got.stdout, want.stdout)
			}
			if got.stderr != want.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", got.stderr, want.stderr)
			}
			if out := outFlag(args); len(args) > 0 && args[0] == "fit" && out != "" {
				if _, err := os.Stat(filepath.Join(out, fitFileName)); err == nil {
					checkNotices(t, out, stderr.String()) // fit.json lists what the fit printed
				}
			}
		})
	}
}

// TestCommandsListed: every command that run dispatches is in gpp's usage
// text and has its own help, and every command word of the usage text is
// one, so that the table, the text and gpp help cannot drift apart.
func TestCommandsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, line := range strings.Split(usageText, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			listed[f[0]] = true
		}
	}
	names := commandNames()
	for _, name := range names {
		if !listed[name] {
			t.Errorf("command %s is not in the usage text", name)
		}
		var out, errb strings.Builder
		if code := run([]string{"help", name}, strings.NewReader(""), &out, &errb); code != exitOK || !strings.Contains(out.String(), "usage: gpp "+name) && name != "help" {
			t.Errorf("gpp help %s: exit %d, stdout %.80q, stderr %.80q", name, code, out.String(), errb.String())
		}
	}
	for name := range listed {
		if !slices.Contains(names, name) {
			t.Errorf("the usage text lists %s, which is no command", name)
		}
	}
}

// outFlag returns the value of --out (or -out) in args, or "".
func outFlag(args []string) string {
	for i, a := range args {
		for _, f := range []string{"--out", "-out"} {
			if a == f && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				return v
			}
		}
	}
	return ""
}
