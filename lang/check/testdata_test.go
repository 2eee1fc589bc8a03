package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// The files testdata/*.gpp hold chunks separated by lines `---`, each
// checked as a file of its own. A chunk states the errors it expects as
// trailing comments `#! "regexp"` on the line where each error is reported
// (several may follow one another); a chunk without markers must check
// cleanly. A chunk may start with header lines
//
//	#override NAME=VALUE [NAME=VALUE ...]
//
// giving Config.Overrides; errors without a line (an override naming no
// constant) are expected on the chunk's first line.

var (
	markerRE   = regexp.MustCompile(`#!\s*"((?:[^"\\]|\\.)*)"`)
	overrideRE = regexp.MustCompile(`^#override\s+(.*)$`)
)

type marker struct {
	line int // in the chunk, 1-based
	re   *regexp.Regexp
	used bool
}

type chunk struct {
	start     int // line of the file where the chunk starts, 1-based
	src       string
	overrides map[string]string
	markers   []*marker
}

func readChunks(t *testing.T, path string) []chunk {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []chunk
	cur := chunk{start: 1}
	var lines []string
	flush := func() {
		cur.src = strings.Join(lines, "\n") + "\n"
		chunks = append(chunks, cur)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.TrimSpace(line) == "---" {
			flush()
			cur, lines = chunk{start: i + 2}, nil
			continue
		}
		n := len(lines) + 1
		if m := overrideRE.FindStringSubmatch(line); m != nil && n == 1 {
			cur.overrides = map[string]string{}
			text, _, _ := strings.Cut(m[1], "#!")
			for _, kv := range strings.Fields(text) {
				k, v, _ := strings.Cut(kv, "=")
				cur.overrides[k] = v
			}
		}
		for _, m := range markerRE.FindAllStringSubmatch(line, -1) {
			re, err := regexp.Compile(strings.ReplaceAll(m[1], `\"`, `"`))
			if err != nil {
				t.Fatalf("%s:%d: bad marker: %v", path, i+1, err)
			}
			cur.markers = append(cur.markers, &marker{line: n, re: re})
		}
		lines = append(lines, line)
	}
	flush()
	return chunks
}

func TestErrorFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/*.gpp")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata files")
	}
	total := 0
	for _, path := range files {
		for _, ch := range readChunks(t, path) {
			total += len(ch.markers)
			runChunk(t, path, ch)
		}
	}
	t.Logf("%d expected errors in %d files", total, len(files))
}

func runChunk(t *testing.T, path string, ch chunk) {
	t.Helper()
	f, err := parser.ParseFile(path, []byte(ch.src))
	if err == nil {
		_, err = check.Check(f, &check.Config{Overrides: ch.overrides})
	}
	var errs ast.ErrorList
	if err != nil {
		list, ok := err.(ast.ErrorList)
		if !ok {
			t.Errorf("%s:%d: error of type %T: %v", path, ch.start, err, err)
			return
		}
		errs = list
	}
	for _, e := range errs {
		if os.Getenv("GPP_SHOW") != "" {
			t.Logf("%s", e)
		}
		line := e.Pos.Line
		if line == 0 {
			line = 1
		}
		if e.Pos.Line != 0 && e.Pos.File != path {
			t.Errorf("%s:%d: error positioned in file %q", path, ch.start+line-1, e.Pos.File)
		}
		found := false
		for _, m := range ch.markers {
			if !m.used && m.line == line && m.re.MatchString(e.Msg) {
				m.used, found = true, true
				break
			}
		}
		if !found {
			t.Errorf("%s:%d: unexpected error: %s", path, ch.start+line-1, e.Msg)
		}
	}
	for _, m := range ch.markers {
		if !m.used {
			t.Errorf("%s:%d: missing error matching %q%s", path, ch.start+m.line-1, m.re, otherErrors(errs, m.line))
		}
	}
}

func otherErrors(errs ast.ErrorList, line int) string {
	var b strings.Builder
	for _, e := range errs {
		if e.Pos.Line == line {
			fmt.Fprintf(&b, "\n\tgot: %s", e.Msg)
		}
	}
	return b.String()
}
