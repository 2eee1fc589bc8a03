package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the docs' ```text output and ```console output blocks from the commands' output")

// The output the docs show is tested too: a block tagged
//
//	```text output     shows the output of the last command of the nearest
//	                   ```sh block above it (or part of it: several blocks
//	                   may show one command's); the commands before that
//	                   one in the sh block run first, and so do those of
//	                   the paired sh blocks above, in the doc's order
//	```console output  a REPL session: its "$ gpp repl ..." first line is
//	                   run with the ">>> " lines typed in, and the rest of
//	                   the block is what it prints
//
// TestDocOutput runs them in-process, each doc in a temporary directory of
// its own where examples/ is the repository's, and compares the output
// with the block: stdout and stderr merged, as a terminal shows them. A
// line of just "..." stands for any number of lines; a line of stderr
// (progress, timings, notes) may be left out anywhere, a line of stdout
// only by "...". What varies between machines is masked in both: timings
// (took 0.0139 s, it/s, ETA) and absolute paths; the commands rely on
// gpp's fixed default seed. Run `go test ./cmd/gpp -run TestDocOutput
// -update-docs` to rewrite the blocks from the output: each doc line is
// matched with the output line of its shape (numbers aside) or, failing
// that for the block, of its first word, and replaced by it when they
// differ; "..." lines stay, and so does the doc's text of a masked token.
// The block keeps its number of lines: one whose lines no longer
// correspond to the output is left for a person to edit.
//
// The sh blocks run are limited to what the docs need: gpp commands (gpp,
// ./gpp or go run ./cmd/gpp), printf 'TEXT' > FILE, sed 'SCRIPT' IN > OUT
// and cat > FILE <<'END' here-documents; docFixtures write the files a
// doc's prose tells the reader to make.

// docFixtures write, into the current directory, the files that a doc
// asks the reader to make in prose before its commands use them.
var docFixtures = map[string]func(blocks []docBlock) error{
	// "Copy the model to predict.gpp and replace its three outputs with"
	// the first ```gpp continued block.
	"docs/tutorial.md": func(blocks []docBlock) error {
		src, err := os.ReadFile("examples/regression.gpp")
		if err != nil {
			return err
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
			if !strings.HasPrefix(l, "output") {
				lines = append(lines, l)
			}
		}
		for _, b := range blocks {
			if b.info() == "gpp continued" {
				lines = append(lines, b.body...)
				return os.WriteFile("predict.gpp", []byte(strings.Join(lines, "\n")+"\n"), 0o644)
			}
		}
		return fmt.Errorf("no ```gpp continued block for predict.gpp")
	},
}

// docOutputPair is an output block and the block whose command makes it.
type docOutputPair struct {
	cmd, out docBlock // out is cmd for a console output block
}

// docOutputPairs returns the output blocks of a doc with their commands.
func docOutputPairs(blocks []docBlock) ([]docOutputPair, error) {
	var pairs []docOutputPair
	var sh *docBlock
	for i, b := range blocks {
		switch {
		case b.info() == "sh":
			sh = &blocks[i]
		case b.info() == "text output":
			if sh == nil {
				return nil, fmt.Errorf("%s: no ```sh block above for the output", b)
			}
			pairs = append(pairs, docOutputPair{*sh, b})
		case b.info() == "console output":
			pairs = append(pairs, docOutputPair{b, b})
		}
	}
	return pairs, nil
}

func TestDocOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the docs' fits (a few seconds)")
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range docFiles {
		path := filepath.Join(root, file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docBlocks(file, src)
		if err != nil {
			t.Fatal(err)
		}
		pairs, err := docOutputPairs(blocks)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(pairs) == 0 {
			continue
		}
		t.Run(file, func(t *testing.T) {
			tmp := t.TempDir()
			if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(tmp, "examples")); err != nil {
				t.Fatal(err)
			}
			t.Chdir(tmp)
			t.Setenv("HOME", tmp) // the REPL's history
			t.Setenv("XDG_STATE_HOME", tmp)
			if fix := docFixtures[file]; fix != nil {
				if err := fix(blocks); err != nil {
					t.Fatal(err)
				}
			}
			lines := strings.Split(string(src), "\n")
			ranLine := 0 // the last sh block run, and its output
			var ranOut []streamLine
			var ranErr error
			changed := false
			for _, p := range pairs {
				var got []streamLine
				var want []string
				if p.out.lang == "console" {
					got, want, err = runDocSession(p.out)
				} else {
					if p.cmd.line != ranLine { // a second output block of the same commands shows more of their output
						ranLine = p.cmd.line
						ranOut, ranErr = runDocCommands(p.cmd)
					}
					got, err, want = ranOut, ranErr, p.out.body
				}
				if err != nil {
					t.Errorf("%s: %v", p.out, err)
					continue
				}
				got = slices.Clone(got)
				for k := range got { // paths relative to the directory of the doc's commands
					got[k].text = strings.NewReplacer(tmp+"/", "", root+"/", "").Replace(got[k].text)
				}
				if matchOutput(want, got, outputEqual) != nil {
					continue
				}
				if !*updateDocs {
					what := fmt.Sprintf("%s shows other output than the last command of %s prints", p.out, p.cmd)
					if p.out.lang == "console" {
						what = fmt.Sprintf("%s shows another session than the REPL prints", p.out)
					}
					t.Errorf("%s (go test ./cmd/gpp -run TestDocOutput -update-docs rewrites it):\n%s", what, outputDiff(want, got))
					continue
				}
				newBody, err := updatedOutput(want, got)
				if err != nil {
					t.Errorf("%s: %v", p.out, err)
					continue
				}
				if p.out.lang == "console" {
					newBody = append([]string{p.out.body[0]}, newBody...)
				}
				// The body keeps its place: only its lines change, one for
				// one (updatedOutput keeps their number).
				for k, l := range newBody {
					if l != "" {
						l = p.out.indent + l
					}
					lines[p.out.first-1+k] = l
				}
				changed = true
			}
			t.Logf("%d output blocks compared", len(pairs))
			if changed {
				if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote output blocks of %s", file)
			}
		})
	}
}

// streamLine is one line a command printed, and whether to stderr.
type streamLine struct {
	text   string
	stderr bool
}

// streamLog merges stdout and stderr in the order their lines are
// completed, remembering each line's stream.
type streamLog struct {
	mu      sync.Mutex
	lines   []streamLine
	partial [2]bytes.Buffer
}

type streamWriter struct {
	log    *streamLog
	stderr bool
}

func (w streamWriter) Write(p []byte) (int, error) {
	l := w.log
	l.mu.Lock()
	defer l.mu.Unlock()
	k := 0
	if w.stderr {
		k = 1
	}
	buf := &l.partial[k]
	buf.Write(p)
	for {
		i := bytes.IndexByte(buf.Bytes(), '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, streamLine{string(buf.Next(i + 1)[:i]), w.stderr})
	}
	return len(p), nil
}

// done returns the lines, an unfinished last line of each stream included,
// without the blank lines at the end.
func (l *streamLog) done() []streamLine {
	for k := range l.partial {
		if l.partial[k].Len() > 0 {
			l.lines = append(l.lines, streamLine{l.partial[k].String(), k == 1})
			l.partial[k].Reset()
		}
	}
	out := l.lines
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1].text) == "" {
		out = out[:len(out)-1]
	}
	return out
}

// gppArgs returns the arguments of a gpp command line's words, and false
// for a line that runs no gpp.
func gppArgs(words []string) ([]string, bool) {
	switch {
	case len(words) > 0 && (words[0] == "gpp" || words[0] == "./gpp"):
		return words[1:], true
	case len(words) > 2 && words[0] == "go" && words[1] == "run" && strings.TrimSuffix(words[2], "/") == "./cmd/gpp":
		return words[3:], true
	}
	return nil, false
}

var hereDocRE = regexp.MustCompile(`^cat\s*>\s*(\S+)\s*<<-?\s*'?"?(\w+)'?"?\s*$`)

// runDocCommands runs the commands of an sh block in the current
// directory, and returns the output of the last one.
func runDocCommands(b docBlock) ([]streamLine, error) {
	var last []streamLine
	for i := 0; i < len(b.body); i++ {
		text, line := b.body[i], b.first+i
		for strings.HasSuffix(text, `\`) && i+1 < len(b.body) {
			i++
			text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(b.body[i])
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if m := hereDocRE.FindStringSubmatch(text); m != nil {
			var doc []string
			for i++; i < len(b.body) && strings.TrimSpace(b.body[i]) != m[2]; i++ {
				doc = append(doc, b.body[i])
			}
			if err := os.WriteFile(m[1], []byte(strings.Join(doc, "\n")+"\n"), 0o644); err != nil {
				return nil, err
			}
			last = nil
			continue
		}
		words := shellWords(text)
		if args, ok := gppArgs(words); ok {
			for _, a := range args {
				if shellOps[a] {
					return nil, fmt.Errorf("line %d: the test runs a gpp command without %s: %s", line, a, text)
				}
			}
			var log streamLog
			code := run(args, strings.NewReader(""), streamWriter{&log, false}, streamWriter{&log, true})
			last = log.done()
			if code != exitOK && i < len(b.body)-1 {
				return nil, fmt.Errorf("line %d: %s: exit %d:\n%s", line, text, code, joinLines(last))
			}
			continue
		}
		if len(words) == 4 && words[0] == "printf" && words[2] == ">" && !strings.Contains(strings.ReplaceAll(words[1], "%%", ""), "%") {
			r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, "%%", "%")
			if err := os.WriteFile(words[3], []byte(r.Replace(words[1])), 0o644); err != nil {
				return nil, err
			}
			last = nil
			continue
		}
		if len(words) == 5 && words[0] == "sed" && words[3] == ">" {
			if err := runSed(words[1], words[2], words[4]); err != nil {
				return nil, fmt.Errorf("line %d: %s: %v", line, text, err)
			}
			last = nil
			continue
		}
		return nil, fmt.Errorf("line %d: the test cannot run %q (it runs gpp commands, printf 'TEXT' > FILE, sed 'SCRIPT' IN > OUT and cat > FILE <<'END')", line, text)
	}
	return last, nil
}

var sedScriptRE = regexp.MustCompile(`^(?:s/((?:[^/\\]|\\.)*)/((?:[^/\\]|\\.)*)/(g?)|/((?:[^/\\]|\\.)*)/d)$`)

// runSed runs sed 'script' in > out for the scripts the docs use: one
// s/RE/TEXT/ (g) or /RE/d, RE a POSIX basic regular expression.
func runSed(script, in, out string) error {
	m := sedScriptRE.FindStringSubmatch(script)
	if m == nil {
		return fmt.Errorf("the test runs sed with one s/RE/TEXT/ or /RE/d")
	}
	pat := m[1]
	if m[4] != "" {
		pat = m[4]
	}
	if strings.Contains(strings.ReplaceAll(m[2], `\\`, ""), "&") || regexp.MustCompile(`\\[0-9]`).MatchString(m[2]) {
		return fmt.Errorf("the test's sed does not replace & or \\N")
	}
	re, err := regexp.Compile(basicRE(pat))
	if err != nil {
		return err
	}
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(src), "\n")
	var dst strings.Builder
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		switch {
		case m[4] != "":
			if re.MatchString(body) {
				continue
			}
		case m[3] == "g":
			body = re.ReplaceAllLiteralString(body, unescapeSed(m[2]))
		default:
			if loc := re.FindStringIndex(body); loc != nil {
				body = body[:loc[0]] + unescapeSed(m[2]) + body[loc[1]:]
			}
		}
		dst.WriteString(body + l[len(strings.TrimSuffix(l, "\n")):])
	}
	return os.WriteFile(out, []byte(dst.String()), 0o644)
}

// basicRE translates a POSIX basic regular expression into Go's syntax:
// ( ) { } + ? | are literal, and \( \) \{ \} group and count.
func basicRE(bre string) string {
	var s strings.Builder
	for i := 0; i < len(bre); i++ {
		c := bre[i]
		switch {
		case c == '\\' && i+1 < len(bre):
			i++
			if strings.IndexByte("(){}", bre[i]) >= 0 {
				s.WriteByte(bre[i])
			} else {
				s.WriteByte('\\')
				s.WriteByte(bre[i])
			}
		case strings.IndexByte("(){}+?|", c) >= 0:
			s.WriteByte('\\')
			s.WriteByte(c)
		default:
			s.WriteByte(c)
		}
	}
	return s.String()
}

// unescapeSed returns an s command's replacement text (no & or \N).
func unescapeSed(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// runDocSession runs a console output block's REPL session: its first line
// "$ gpp repl ...", with the ">>> " lines (and "... " continuations) typed
// in. It returns the transcript and the block's lines after the first.
func runDocSession(b docBlock) (got []streamLine, want []string, err error) {
	if len(b.body) == 0 {
		return nil, nil, fmt.Errorf("an empty session")
	}
	cmd, ok := strings.CutPrefix(b.body[0], "$ ")
	args, isGpp := gppArgs(shellWords(cmd))
	if !ok || !isGpp || len(args) == 0 || args[0] != "repl" {
		return nil, nil, fmt.Errorf("line %d: a console output block starts with a $ gpp repl command", b.first)
	}
	var input strings.Builder
	for _, l := range b.body[1:] {
		if in, ok := strings.CutPrefix(l, ">>> "); ok {
			input.WriteString(in + "\n")
		} else if in, ok := strings.CutPrefix(l, "... "); ok && strings.TrimSpace(in) != "" {
			input.WriteString(strings.TrimSpace(in) + "\n")
		}
	}
	var log streamLog
	run(args, strings.NewReader(input.String()), streamWriter{&log, false}, streamWriter{&log, true})
	return log.done(), b.body[1:], nil
}

func joinLines(ls []streamLine) string {
	var s strings.Builder
	for _, l := range ls {
		s.WriteString(l.text + "\n")
	}
	return s.String()
}

// outputMasks are what varies between machines and runs: their first
// group, in the doc and in the output, is replaced by "…" before lines
// are compared, and -update-docs keeps the doc's text there.
var outputMasks = []*regexp.Regexp{
	regexp.MustCompile(`took ([0-9.e+-]+ ?(?:ms|µs|ns|s|m[0-9.]*s))\b`), // fit took 0.0139 s
	regexp.MustCompile(`([0-9.]+) it/s`),
	regexp.MustCompile(`([0-9.]+) s/it`), // a slow machine's speed
	regexp.MustCompile(`ETA (\S+)`),
	regexp.MustCompile(`(?:^|[\s(=])(/[^\s:)]+)`), // an absolute path
}

// maskedSpans returns the spans of s that outputMasks mask, in order.
func maskedSpans(s string) [][2]int {
	var spans [][2]int
	for _, re := range outputMasks {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			spans = append(spans, [2]int{m[2], m[3]})
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, sp := range spans {
		if len(out) == 0 || sp[0] >= out[len(out)-1][1] {
			out = append(out, sp)
		}
	}
	return out
}

// replaceSpans replaces the spans of s by the texts.
func replaceSpans(s string, spans [][2]int, texts []string) string {
	var b strings.Builder
	last := 0
	for k, sp := range spans {
		b.WriteString(s[last:sp[0]] + texts[k])
		last = sp[1]
	}
	return b.String() + s[last:]
}

func maskOutput(s string) string {
	spans := maskedSpans(s)
	return strings.TrimRight(replaceSpans(s, spans, slices.Repeat([]string{"…"}, len(spans))), " \t")
}

// keepMasked returns the output line out with the doc's text in its masked
// spans, when the two have as many.
func keepMasked(doc, out string) string {
	ds, outs := maskedSpans(doc), maskedSpans(out)
	if len(ds) == 0 || len(ds) != len(outs) {
		return out
	}
	texts := make([]string, len(ds))
	for k, sp := range ds {
		texts[k] = doc[sp[0]:sp[1]]
	}
	return replaceSpans(out, outs, texts)
}

// outputEqual reports whether a doc's line shows an output line.
func outputEqual(doc, out string) bool { return maskOutput(doc) == maskOutput(out) }

var outputNumberRE = regexp.MustCompile(`[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\binf\b|\bNaN\b`)

// outputShapeEqual is outputEqual with the numbers masked too, and runs of
// spaces (a table's alignment) counted as one: a line whose numbers
// changed still corresponds to the doc's.
func outputShapeEqual(doc, out string) bool {
	shape := func(s string) string {
		return strings.Join(strings.Fields(outputNumberRE.ReplaceAllString(maskOutput(s), "#")), " ")
	}
	return shape(doc) == shape(out)
}

// outputLabelEqual compares the first words of two lines only (a table's
// row name, a summary line's label: "Pareto k̂ 0.62 (ok)" for "Pareto k̂
// 0.437 (good)"), to align the lines of a block whose values changed.
func outputLabelEqual(doc, out string) bool {
	label := func(s string) string {
		f := strings.Fields(s)
		if len(f) > 0 && outputNumberRE.MatchString(f[0]) {
			return "#" // a line of numbers
		}
		if len(f) > 0 {
			return f[0]
		}
		return ""
	}
	return label(doc) == label(out)
}

// matchOutput matches a doc's lines with a command's output: "..." stands
// for any lines, and a line of stderr may be left out. It returns, for
// each doc line, the index of the output line it shows (-1 for "..."), or
// nil when they do not match.
func matchOutput(want []string, got []streamLine, eq func(doc, out string) bool) []int {
	n, m := len(want), len(got)
	// ok[i][j]: want[i:] matches got[j:]
	ok := make([][]bool, n+1)
	for i := range ok {
		ok[i] = make([]bool, m+1)
	}
	ok[n][m] = true
	for j := m - 1; j >= 0; j-- {
		ok[n][j] = got[j].stderr && ok[n][j+1]
	}
	for i := n - 1; i >= 0; i-- {
		elide := strings.TrimSpace(want[i]) == "..."
		for j := m; j >= 0; j-- {
			switch {
			case elide:
				ok[i][j] = ok[i+1][j] || j < m && ok[i][j+1]
			case j == m:
				ok[i][j] = false
			default:
				ok[i][j] = eq(want[i], got[j].text) && ok[i+1][j+1] || got[j].stderr && ok[i][j+1]
			}
		}
	}
	if !ok[0][0] {
		return nil
	}
	at := make([]int, n)
	i, j := 0, 0
	for i < n {
		switch {
		case strings.TrimSpace(want[i]) == "...":
			if ok[i+1][j] {
				at[i] = -1
				i++
			} else {
				j++
			}
		case eq(want[i], got[j].text) && ok[i+1][j+1]:
			at[i] = j
			i, j = i+1, j+1
		default:
			j++
		}
	}
	return at
}

// updatedOutput returns the doc's lines rewritten from the output: each
// line that shows an output line other than its own is replaced by it;
// "..." and masked lines stay. A doc line corresponds to the output line
// of its shape (the same but for numbers) or, failing that for the block,
// of its first word.
func updatedOutput(want []string, got []streamLine) ([]string, error) {
	at := matchOutput(want, got, outputShapeEqual)
	if at == nil {
		at = matchOutput(want, got, outputLabelEqual)
	}
	if at == nil {
		return nil, fmt.Errorf("the block's lines no longer correspond to the output, even by their first words; edit it by hand. The output:\n%s", joinLines(got))
	}
	out := make([]string, len(want))
	for i, w := range want {
		out[i] = w
		if at[i] >= 0 && !outputEqual(w, got[at[i]].text) {
			out[i] = keepMasked(w, strings.TrimRight(got[at[i]].text, " \t"))
		}
	}
	return out, nil
}

// outputDiff shows the doc's lines against the output's: the doc's lines
// that match no output line in order are marked.
func outputDiff(want []string, got []streamLine) string {
	var s strings.Builder
	s.WriteString("the doc's lines (- where the output differs):\n")
	j := 0
	for _, w := range want {
		mark := "  "
		if strings.TrimSpace(w) != "..." {
			k := j
			for k < len(got) && !outputEqual(w, got[k].text) {
				k++
			}
			if k == len(got) {
				mark = "- "
			} else {
				j = k + 1
			}
		}
		s.WriteString(mark + w + "\n")
	}
	s.WriteString("the output (stderr lines marked e):\n")
	for _, g := range got {
		mark := "  "
		if g.stderr {
			mark = "e "
		}
		s.WriteString(mark + g.text + "\n")
	}
	return s.String()
}

// TestDocOutputMatch checks the matching of a doc's output block with a
// command's output.
func TestDocOutputMatch(t *testing.T) {
	got := []streamLine{
		{"fitting m.gpp", true},
		{"name  mean", false},
		{"a     0.5", false},
		{"b     1.5", false},
		{"", false},
		{"ELBO  -3.2", false},
		{"fit took 0.0139 s", true},
		{"written  gpp-out in /tmp/x/gpp-out", false},
	}
	tests := []struct {
		doc  string
		want string // the indices matched, or "nil"
	}{
		{"name  mean|a     0.5|b     1.5||ELBO  -3.2|written  gpp-out in /home/me/gpp-out", "[1 2 3 4 5 7]"},
		{"name  mean|...|ELBO  -3.2|fit took 0.2 s|written  gpp-out in /a/gpp-out", "[1 -1 5 6 7]"},
		{"...|written  gpp-out in /a/gpp-out", "[-1 7]"},
		{"fitting m.gpp|name  mean|...", "[0 1 -1]"},
		{"name  mean|b     1.5|...", "nil"},         // a stdout line left out without ...
		{"name  mean|a     0.6|...", "nil"},         // a number differs
		{"name  mean|...|ELBO  -3.2", "nil"},        // the last stdout line left out
		{"fit took 0.0139 s|name  mean|...", "nil"}, // stderr out of order
		{"...|b     1.5|...|a     0.5|...", "nil"},  // lines out of order
		{"name  mean|a     0.5|b     1.5|...|...", "[1 2 3 -1 -1]"},
	}
	for _, tt := range tests {
		at := matchOutput(strings.Split(tt.doc, "|"), got, outputEqual)
		s := "nil"
		if at != nil {
			s = fmt.Sprint(at)
		}
		if s != tt.want {
			t.Errorf("%q: matched %s, want %s", tt.doc, s, tt.want)
		}
	}

	// -update-docs: numbers are rewritten, masked lines and ... kept, and
	// a masked token keeps the doc's text in a line that changed.
	doc := strings.Split("name  mean|a     0.6|...|fit took 0.2 s|written  gpp-out in /a/gpp-out", "|")
	up, err := updatedOutput(doc, got)
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(up, "|"); s != "name  mean|a     0.5|...|fit took 0.2 s|written  gpp-out in /a/gpp-out" {
		t.Errorf("updated: %q", s)
	}
	if s := keepMasked("fit took 0.2 s (ok) in /a/b", "fit took 1.5 ms (good) in /tmp/x"); s != "fit took 0.2 s (good) in /a/b" {
		t.Errorf("keepMasked: %q", s)
	}
	if s := maskOutput("iter 100  1200 it/s  ETA 3s  fit took 0.0139 s (/tmp/x/y: 2)"); s != "iter 100  … it/s  ETA …  fit took … (…: 2)" {
		t.Errorf("maskOutput: %q", s)
	}
	up, err = updatedOutput(strings.Split("name  mean|a     0.6 (ok)|...|written  gpp-out", "|"), got)
	if s := strings.Join(up, "|"); err != nil || s != "name  mean|a     0.5|...|written  gpp-out in /tmp/x/gpp-out" {
		t.Errorf("updated by first words: %q, %v", s, err)
	}
	if _, err := updatedOutput(strings.Split("name  mean|c     0.5|...", "|"), got); err == nil {
		t.Errorf("a line of another shape was rewritten")
	}
}

// TestDocSed checks the sed the doc commands are run with.
func TestDocSed(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.gpp", "param beta: real[2] ~ Normal(0, [1, 1])\noutput a = 1\nx+y (a|b) a.b\n")
	tests := []struct{ script, want string }{
		{`s/real\[2\] ~ Normal(0, \[1, 1\])/real[3] ~ Normal(0, 1)/`, "param beta: real[3] ~ Normal(0, 1)\noutput a = 1\nx+y (a|b) a.b\n"},
		{`/^output/d`, "param beta: real[2] ~ Normal(0, [1, 1])\nx+y (a|b) a.b\n"},
		{`s/a/A/`, "pAram beta: real[2] ~ Normal(0, [1, 1])\noutput A = 1\nx+y (A|b) a.b\n"},
		{`s/a/A/g`, "pArAm betA: reAl[2] ~ NormAl(0, [1, 1])\noutput A = 1\nx+y (A|b) A.b\n"},
		{`s/x+y (a|b) a\.b/z/`, "param beta: real[2] ~ Normal(0, [1, 1])\noutput a = 1\nz\n"},
		{`s/\(beta\)/[\/]/`, "param [/]: real[2] ~ Normal(0, [1, 1])\noutput a = 1\nx+y (a|b) a.b\n"},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, "out.gpp")
		if err := runSed(tt.script, in, out); err != nil {
			t.Errorf("sed '%s': %v", tt.script, err)
			continue
		}
		if got, _ := os.ReadFile(out); string(got) != tt.want {
			t.Errorf("sed '%s': got %q, want %q", tt.script, got, tt.want)
		}
	}
	for _, bad := range []string{`s/a/&&/`, `s/\(a\)/\1/`, `y/a/b/`, `s/a/b/; s/c/d/`} {
		if err := runSed(bad, in, filepath.Join(dir, "out.gpp")); err == nil {
			t.Errorf("sed '%s' ran", bad)
		}
	}
}
