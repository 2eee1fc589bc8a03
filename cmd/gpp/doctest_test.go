package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/parser"
)

// The fenced code blocks of the user docs are tested, as Go's Example
// functions are, so that what a user copies still works. Every block's info
// string names its kind (the first word is the language GitHub highlights;
// the rest is ignored by the renderer and read here):
//
//	```gpp            a complete model: it parses and checks, as gpp check
//	                  model.gpp does without data
//	```gpp continued  appended to the last ```gpp model above (and the
//	                  continued blocks between): together they check
//	```gpp fragment   statements shown out of their model: they parse
//	```gpp error      a model that must fail to check; when a ```text block
//	                  follows it (blank lines between at most), each of its
//	                  lines "file:line:col: message" is a message expected
//	```sh             commands, each line one (a trailing \ continues it)
//	```console        a session: commands after a "$ " prompt, then output;
//	                  a REPL's ">>> :fit" line is checked as gpp fit
//	```text, ```csv, ```json   output, data or syntax: not run
//	```python         PyMC code beside its gpp form: not run
//	```r              R (rethinking, brms) code beside its gpp form: not run
//	```text output    output that TestDocOutput compares with the real
//	```console output one (docrun_test.go)
//
// In sh and console blocks every gpp command (gpp, ./gpp or go run
// ./cmd/gpp) must name a real subcommand and flags its own flag set takes,
// with values it accepts (gpp fit's and gpp sbc's whole command line is
// parsed and validated as they do, short of reading the files); every
// argument naming a file of the repository (examples/...) must exist; a
// `cat > NAME.gpp <<'END'` here-document is a complete model. A `go test
// ./PKG -run X -FLAG` command must name a package with a test matching X
// and a test flag it defines. Nothing is fitted: the test takes well
// under a second. Errors are reported at the doc's own lines and columns:
// a model is checked with its lines where the doc has them.
// TestDocInlineFlags checks the flags named in the docs' inline code.

// docFiles are the docs whose blocks are tested, relative to the
// repository's root.
var docFiles = []string{"README.md", "docs/tutorial.md", "docs/language.md", "docs/inference.md", "docs/pymc.md", "docs/rethinking.md", "docs/brms.md", "examples/README.md"}

// repoRoot is the repository's root seen from cmd/gpp, where the test runs.
const repoRoot = "../.."

// docBlock is one fenced code block of a doc.
type docBlock struct {
	file   string   // the doc, relative to the repository's root
	line   int      // line of the opening fence (1-based)
	lang   string   // first word of the info string: gpp, sh, console, text, ...
	attr   string   // the rest of the info string: continued, fragment, error or ""
	body   []string // the lines between the fences, the fence's indent removed
	first  int      // line of body[0]
	indent string   // the fence's indent (in a list item)
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d (```%s)", b.file, b.line, b.info()) }

func (b docBlock) info() string { return strings.TrimSpace(b.lang + " " + b.attr) }

var fenceRE = regexp.MustCompile("^([ \t]*)(```+|~~~+)[ \t]*(.*)$")

// fenceLine returns the submatches of fenceRE for a fence line, or nil. As in
// CommonMark, a backtick fence's info string has no backtick: a line that
// opens with inline code (```` ```gpp ````) is text.
func fenceLine(line string) []string {
	m := fenceRE.FindStringSubmatch(line)
	if m == nil || m[2][0] == '`' && strings.Contains(m[3], "`") {
		return nil
	}
	return m
}

// docBlocks returns the fenced code blocks of src, the doc file. A fence
// indented (in a list item) has its indent removed from the lines of its
// block.
func docBlocks(file string, src []byte) ([]docBlock, error) {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		m := fenceLine(lines[i])
		if m == nil {
			continue
		}
		indent, fence := m[1], m[2]
		lang, attr, _ := strings.Cut(strings.TrimSpace(m[3]), " ")
		b := docBlock{file: file, line: i + 1, lang: lang, attr: strings.TrimSpace(attr), first: i + 2, indent: indent}
		j := i + 1
		for ; j < len(lines); j++ {
			if c := fenceLine(lines[j]); c != nil && strings.HasPrefix(c[2], fence[:3]) && len(c[2]) >= len(fence) && c[3] == "" {
				break
			}
			b.body = append(b.body, strings.TrimPrefix(lines[j], indent))
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s:%d: the block is not closed", file, i+1)
		}
		blocks = append(blocks, b)
		i = j
	}
	return blocks, nil
}

// knownKinds are the info strings a block may have.
var knownKinds = map[string]bool{
	"gpp": true, "gpp continued": true, "gpp fragment": true, "gpp error": true,
	"sh": true, "console": true, "text": true, "csv": true, "json": true,
	"text output": true, "console output": true, // docrun_test.go
	"go":     true, // a Go program: docgo_test.go
	"python": true, // PyMC code shown for comparison (docs/pymc.md): not run
	"r":      true, // R code shown for comparison (docs/rethinking.md, docs/brms.md): not run
}

func TestDocBlocks(t *testing.T) {
	counts := map[string]int{}
	for _, file := range docFiles {
		src, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docBlocks(file, src)
		if err != nil {
			t.Error(err)
			continue
		}
		var model []docBlock // the last complete model and the blocks continuing it
		for i, b := range blocks {
			counts[b.info()]++
			switch {
			case b.lang == "":
				t.Errorf("%s: untagged block: tag it ```gpp, ```gpp fragment, ```gpp error, ```sh, ```console, ```text or ```csv", b)
			case !knownKinds[b.info()]:
				t.Errorf("%s: unknown kind of block (want one of ```gpp, ```gpp fragment, ```gpp error, ```sh, ```console, ```text, ```text output, ```console output, ```csv, ```json, ```go)", b)
			case b.lang == "gpp":
				var next *docBlock
				if i+1 < len(blocks) && blocks[i+1].lang == "text" && onlyBlank(src, b, blocks[i+1]) {
					next = &blocks[i+1]
				}
				switch b.attr {
				case "":
					model = []docBlock{b}
				case "continued":
					if model == nil {
						t.Errorf("%s: no complete ```gpp model above for the block to continue", b)
						continue
					}
					model = append(model, b)
				}
				if err := checkDocModel(b, model, next); err != nil {
					t.Errorf("%s: %v", b, err)
				}
			case b.lang == "sh" || b.lang == "console":
				n, errs := checkDocCommands(b)
				counts["commands checked"] += n
				for _, err := range errs {
					t.Errorf("%s: %v", b, err)
				}
			}
		}
	}
	t.Logf("blocks by kind, and commands checked: %v", counts)
}

// onlyBlank reports whether only blank lines of src separate block a from
// the block b after it.
func onlyBlank(src []byte, a, b docBlock) bool {
	lines := strings.Split(string(src), "\n")
	for _, l := range lines[a.first+len(a.body) : b.line-1] {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// docSource returns the blocks' bodies, in the order of the doc, as one
// model whose positions are the doc's own: each line is on its line of
// the doc, indented as there, and the lines between the blocks are empty.
func docSource(blocks ...docBlock) []byte {
	var lines []string
	for _, b := range blocks {
		for len(lines) < b.first-1 {
			lines = append(lines, "")
		}
		for _, l := range b.body {
			lines = append(lines, b.indent+l)
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// checkDocModel checks a gpp block of kind b.attr. model is the complete
// model a continued block continues, itself included; expect, when not
// nil, is the text block after a gpp error block: the messages it must
// give.
func checkDocModel(b docBlock, model []docBlock, expect *docBlock) error {
	src := docSource(b)
	switch b.attr {
	case "fragment":
		if _, err := parser.ParseStmts(b.file, src); err != nil {
			return fmt.Errorf("the fragment does not parse:\n%v", err)
		}
		return nil
	case "error":
		_, err := pipeline.ParseSource(b.file, src, nil)
		if err == nil {
			return fmt.Errorf("the model checks, but the block is tagged error")
		}
		if expect == nil {
			return nil
		}
		for _, text := range expect.body {
			line, col, msg, ok := errorLine(text)
			if !ok {
				continue
			}
			// The block's line and column, as the doc's.
			want := fmt.Sprintf("%s:%d:%d: %s", b.file, b.first+line-1, len(b.indent)+col, msg)
			if !strings.Contains(err.Error()+"\n", want+"\n") {
				return fmt.Errorf("line %d shows the error %q (at line %d, column %d of the model), not the checker's:\n%v", expect.first, msg, line, col, err)
			}
		}
		return nil
	}
	what := "the model does not check"
	if b.attr == "continued" {
		src = docSource(model...)
		what = fmt.Sprintf("the model at line %d with the blocks continuing it does not check", model[0].line)
	}
	if _, err := pipeline.ParseSource(b.file, src, nil); err != nil {
		return fmt.Errorf("%s (as gpp check model.gpp without data):\n%v", what, err)
	}
	return nil
}

var errorPosRE = regexp.MustCompile(`^\S+?:(\d+):(\d+): (.*)$`)

// errorLine splits an error line shown in a doc, "model.gpp:3:7:
// message", into the line and column in the model and the message; ok is
// false for a line that is no error, such as the source line and the caret
// under it.
func errorLine(text string) (line, col int, msg string, ok bool) {
	m := errorPosRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return 0, 0, "", false
	}
	line, _ = strconv.Atoi(m[1])
	col, _ = strconv.Atoi(m[2])
	return line, col, strings.TrimSpace(m[3]), true
}

// docCommand is one command line of an sh or console block.
type docCommand struct {
	line int    // line in the doc
	text string // continuation lines joined
}

// docCommands returns the commands of an sh or console block, and the
// here-documents that write a .gpp file (cat > NAME.gpp <<'END'), as
// complete models.
func docCommands(b docBlock) (cmds []docCommand, models []docBlock) {
	hereRE := regexp.MustCompile(`<<-?\s*'?"?(\w+)'?"?`)
	body := b.body
	for i := 0; i < len(body); i++ {
		text, line := body[i], b.first+i
		if b.lang == "console" {
			if args, ok := strings.CutPrefix(text, ">>> :fit"); ok && (args == "" || args[0] == ' ') {
				// the REPL's :fit takes gpp fit's flags, less its own
				// --init last (which gpp fit refuses without a file last)
				if rest, last := takeInitLast(strings.Fields(args)); last {
					args = strings.TrimRight(" "+strings.Join(rest, " "), " ")
				}
				cmds = append(cmds, docCommand{line: line, text: "gpp fit session.gpp" + args})
				continue
			}
			var ok bool
			if text, ok = strings.CutPrefix(text, "$ "); !ok {
				continue // output
			}
		}
		for strings.HasSuffix(text, `\`) && i+1 < len(body) {
			i++
			text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(body[i])
		}
		if m := hereRE.FindStringSubmatch(text); m != nil {
			end := m[1]
			doc := docBlock{file: b.file, line: b.line, lang: "gpp", first: b.first + i + 1}
			for i++; i < len(body) && strings.TrimSpace(body[i]) != end; i++ {
				doc.body = append(doc.body, body[i])
			}
			if strings.Contains(text, ".gpp") {
				models = append(models, doc)
			}
		}
		cmds = append(cmds, docCommand{line: line, text: text})
	}
	return cmds, models
}

// shellWords splits a command line into words as a shell would, quotes
// removed, up to a comment.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// shellOps end a command's arguments.
var shellOps = map[string]bool{"|": true, "||": true, "&&": true, ";": true, ">": true, ">>": true, "<": true, "2>&1": true, "&": true}

// checkDocCommands checks the gpp and go test commands of an sh or console
// block, and the models its here-documents write. It returns the number of
// commands checked and the errors.
func checkDocCommands(b docBlock) (n int, errs []error) {
	cmds, models := docCommands(b)
	for _, m := range models {
		if err := checkDocModel(m, nil, nil); err != nil {
			errs = append(errs, fmt.Errorf("the here-document at line %d: %v", m.first, err))
		}
	}
	for _, c := range cmds {
		words := shellWords(c.text)
		for i := 0; i < len(words); i++ {
			var args []string
			var check func(int, []string) error
			switch {
			case words[i] == "gpp" || words[i] == "./gpp":
				args, check = words[i+1:], checkGppCommand
			case words[i] == "go" && i+2 < len(words) && words[i+1] == "run" && strings.TrimSuffix(words[i+2], "/") == "./cmd/gpp":
				args, check = words[i+3:], checkGppCommand
			case words[i] == "go" && i+1 < len(words) && words[i+1] == "test":
				args, check = words[i+2:], checkGoTest
			default:
				continue
			}
			for k, a := range args {
				if shellOps[a] {
					args = args[:k]
					break
				}
			}
			n++
			if err := check(c.line, args); err != nil {
				errs = append(errs, err)
			}
			i += len(args)
		}
	}
	return n, errs
}

// repoPath reports whether arg names a path in the repository (its first
// element is a directory at the root, as examples/ is), and returns the
// path as seen from cmd/gpp.
func repoPath(arg string) (string, bool) {
	top, _, ok := strings.Cut(arg, "/")
	if !ok || top == "" || top == "." || top == ".." {
		return "", false
	}
	if fi, err := os.Stat(filepath.Join(repoRoot, top)); err != nil || !fi.IsDir() {
		return "", false
	}
	return filepath.Join(repoRoot, arg), true
}

// checkGppCommand checks the arguments of a gpp command shown at line:
// the subcommand, its flags and the repository files it names. The
// command is not run: gpp fit's, gpp sample's, gpp sbc's and gpp kfold's arguments are parsed as they
// parse them; another command's are parsed by its own flag set, with
// --help added to stop it there.
func checkGppCommand(line int, args []string) error {
	if len(args) == 0 {
		return nil // gpp alone prints its usage
	}
	args = append([]string(nil), args...)
	for i, a := range args {
		_, file, _ := pipeline.SplitDataArg(a)
		if p, ok := repoPath(file); ok {
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("line %d: gpp %s: %s is not in the repository", line, args[0], file)
			}
			args[i] = strings.Replace(a, file, p, 1)
		}
	}
	var stdout, stderr bytes.Buffer
	var code int
	switch args[0] {
	case "fit":
		_, code, _ = parseFitArgs(args[1:], &stdout, &stderr)
	case "sbc":
		_, code, _ = parseSBCArgs(args[1:], &stdout, &stderr)
	case "kfold":
		_, code, _ = parseKfoldArgs(args[1:], &stdout, &stderr)
	case "sample":
		_, code, _ = parseSampleArgs(args[1:], &stdout, &stderr)
	case "help", "version":
		code = run(args, strings.NewReader(""), io.Discard, &stderr)
	default:
		code = run(append(args, "--help"), strings.NewReader(""), &stdout, &stderr)
	}
	if code != exitOK {
		return fmt.Errorf("line %d: gpp %s: exit %d:\n%s", line, strings.Join(args, " "), code, stderr.String())
	}
	return nil
}

var testFuncRE = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
var testFlagRE = regexp.MustCompile(`flag\.\w+\("([\w-]+)"`)

// goTestFlags are go test's own flags that the docs use, and whether they
// take a value.
var goTestFlags = map[string]bool{
	"run": true, "bench": true, "benchtime": true, "count": true, "timeout": true, "cpu": true,
	"v": false, "short": false, "race": false, "benchmem": false,
}

// checkGoTest checks a go test command's arguments shown at line: its
// packages exist, and a -run or -bench pattern matches a function of theirs
// and a flag is go test's or defined in their tests.
func checkGoTest(line int, args []string) error {
	var pkgs []string
	var tests, flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			pkgs = append(pkgs, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takes, known := goTestFlags[name]
		if takes && !hasVal && i+1 < len(args) {
			i++
			val = args[i]
		}
		switch {
		case name == "run" || name == "bench":
			if val != "^$" {
				tests = append(tests, val)
			}
		case !known:
			flags = append(flags, name)
		}
	}
	var sources []byte
	for _, p := range pkgs {
		if p == "./..." {
			return nil
		}
		files, _ := filepath.Glob(filepath.Join(repoRoot, p, "*_test.go"))
		if len(files) == 0 {
			return fmt.Errorf("line %d: go test %s: no tests there", line, p)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			sources = append(sources, src...)
		}
	}
	funcs := testFuncRE.FindAllSubmatch(sources, -1)
	for _, pat := range tests {
		re, err := regexp.Compile(strings.Split(pat, "/")[0])
		if err != nil {
			return fmt.Errorf("line %d: go test -run %s: %v", line, pat, err)
		}
		found := false
		for _, f := range funcs {
			found = found || re.Match(f[1])
		}
		if !found {
			return fmt.Errorf("line %d: go test %s -run %s: no test function matches", line, strings.Join(pkgs, " "), pat)
		}
	}
	defined := map[string]bool{}
	for _, m := range testFlagRE.FindAllSubmatch(sources, -1) {
		defined[string(m[1])] = true
	}
	for _, f := range flags {
		if !defined[f] {
			return fmt.Errorf("line %d: go test %s -%s: no test there defines the flag", line, strings.Join(pkgs, " "), f)
		}
	}
	return nil
}

// flagCommands are the subcommands that take flags.
var flagCommands = []string{"check", "graph", "fit", "sample", "summary", "diagnose", "logprob", "compare", "predict", "sensitivity", "sbc", "kfold", "repl"}

var helpFlagRE = regexp.MustCompile(`(?m)^  --([\w-]+)`)

// commandFlags returns the flags of each subcommand, as its --help lists
// them.
func commandFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	flags := map[string]map[string]bool{}
	for _, c := range flagCommands {
		var stdout, stderr bytes.Buffer
		if code := run([]string{c, "--help"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("gpp %s --help: exit %d: %s", c, code, stderr.String())
		}
		flags[c] = map[string]bool{}
		for _, m := range helpFlagRE.FindAllStringSubmatch(stdout.String(), -1) {
			flags[c][m[1]] = true
		}
		if len(flags[c]) == 0 {
			t.Fatalf("gpp %s --help lists no flags:\n%s", c, stdout.String())
		}
	}
	return flags
}

// inlineSpans returns the inline code spans of a doc outside its fenced
// blocks (a span may run over lines), each with the line it starts on.
func inlineSpans(src []byte) (spans []string, lines []int) {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	var prose strings.Builder // the doc, its fenced blocks' lines blanked
	inFence := ""
	for _, l := range strings.Split(text, "\n") {
		if m := fenceLine(l); m != nil && (inFence == "" || strings.HasPrefix(m[2], inFence) && m[3] == "") {
			if inFence == "" {
				inFence = m[2][:3]
			} else {
				inFence = ""
			}
			l = ""
		} else if inFence != "" {
			l = ""
		}
		prose.WriteString(l + "\n")
	}
	s := prose.String()
	line := 1
	for i := 0; i < len(s); {
		if s[i] != '`' {
			if s[i] == '\n' {
				line++
			}
			i++
			continue
		}
		n := 1
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		run := s[i : i+n]
		end := strings.Index(s[i+n:], run)
		if end < 0 || strings.Contains(s[i+n:i+n+end], "\n\n") {
			i += n // an unclosed run is text
			continue
		}
		spans, lines = append(spans, s[i+n:i+n+end]), append(lines, line)
		line += strings.Count(s[i:i+n+end+n], "\n")
		i += n + end + n
	}
	return spans, lines
}

var inlineFlagRE = regexp.MustCompile(`(?:^|[\s(\[])--([a-z][\w-]*)`)
var inlineCommandRE = regexp.MustCompile(`^(?:go run \./cmd/gpp|(?:\./)?gpp) ([a-z]+)\b`)

// TestDocInlineFlags checks the flags named in the docs' inline code: in
// a span that is a gpp command (`gpp fit --fullrank all`) each flag is one
// of that subcommand's, and elsewhere (`--psis-resample`) one of some
// subcommand's. CmdStan's names that gpp fit answers with its own
// (stanFlags, as `gpp fit --algorithm` in docs/inference.md) are flags of
// no command but may be named.
func TestDocInlineFlags(t *testing.T) {
	flags := commandFlags(t)
	anyCmd := map[string]bool{"help": true}
	for _, fs := range flags {
		for f := range fs {
			anyCmd[f] = true
		}
	}
	for _, file := range docFiles {
		src, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		spans, lines := inlineSpans(src)
		for k, span := range spans {
			span = strings.Join(strings.Fields(span), " ")
			known, what := anyCmd, "of any gpp command"
			if m := inlineCommandRE.FindStringSubmatch(span); m != nil {
				if fs, ok := flags[m[1]]; ok {
					known, what = fs, "of gpp "+m[1]
				} else if m[1] != "help" && m[1] != "version" {
					t.Errorf("%s:%d: `%s`: gpp has no command %s", file, lines[k], span, m[1])
					continue
				}
			}
			for _, m := range inlineFlagRE.FindAllStringSubmatch(span, -1) {
				name := m[1]
				if _, stan := stanFlags[name]; !known[name] && !stan && name != "help" {
					t.Errorf("%s:%d: `%s`: --%s is no flag %s", file, lines[k], span, name, what)
				}
			}
		}
	}
}

// TestDocBlockParsing checks the reading of a doc's blocks and commands on
// a doc made for it, and that a broken block is reported at its doc line.
func TestDocBlockParsing(t *testing.T) {
	doc := "# A doc\n" + // 1
		"```gpp\n" + // 2
		"data y: real[N]\n" + // 3
		"param mu: real ~ Normal(0, 1)\n" + // 4
		"y ~ Normal(mu, 1)\n" + // 5
		"```\n" + // 6
		"* item:\n" + // 7
		"  ```gpp continued\n" + // 8
		"  output z = mu + undeclared\n" + // 9
		"  ```\n" + // 10
		"~~~console\n" + // 11
		"$ gpp fit model.gpp \\\n" + // 12
		"    data.csv --seed 2 # a comment\n" + // 13
		"output line\n" + // 14
		">>> :fit --iter 10\n" + // 15
		">>> :fit --quiet --init last\n" + // 16
		"$ cat > m.gpp <<'END'\n" + // 17
		"param a: real ~ Normal(0, 1)\n" + // 18
		"END\n" + // 19
		"~~~\n" // 20
	blocks, err := docBlocks("doc.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("got %d blocks, want 3: %+v", len(blocks), blocks)
	}
	b := blocks[1]
	if b.line != 8 || b.info() != "gpp continued" || b.first != 9 || len(b.body) != 1 || b.body[0] != "output z = mu + undeclared" {
		t.Errorf("indented block: got %+v", b)
	}
	err = checkDocModel(b, blocks[:2], nil)
	if err == nil || !strings.Contains(err.Error(), "doc.md:9:19: undeclared name `undeclared`") {
		t.Errorf("a continued block naming an undeclared name: got %v, want the error at doc.md:9:19", err)
	}
	if err := checkDocModel(blocks[0], nil, nil); err != nil {
		t.Errorf("a complete model: %v", err)
	}
	cmds, models := docCommands(blocks[2])
	want := []docCommand{
		{12, "gpp fit model.gpp  data.csv --seed 2 # a comment"},
		{15, "gpp fit session.gpp --iter 10"},
		{16, "gpp fit session.gpp --quiet"}, // --init last is the REPL's
		{17, "cat > m.gpp <<'END'"},
	}
	if fmt.Sprint(cmds) != fmt.Sprint(want) {
		t.Errorf("commands: got %v, want %v", cmds, want)
	}
	if len(models) != 1 || models[0].first != 18 || strings.Join(models[0].body, "|") != "param a: real ~ Normal(0, 1)" {
		t.Errorf("here-document: got %+v", models)
	}
	if got := shellWords(`go run ./cmd/gpp fit "a b.gpp" 'x=1' --out d # note`); fmt.Sprint(got) != "[go run ./cmd/gpp fit a b.gpp x=1 --out d]" {
		t.Errorf("shellWords: got %q", got)
	}
	if line, col, msg, ok := errorLine("model.gpp:3:7: a message: with colons"); !ok || line != 3 || col != 7 || msg != "a message: with colons" {
		t.Errorf("errorLine: got %d, %d, %q, %v", line, col, msg, ok)
	}
	if _, _, _, ok := errorLine("    if mu > 0 {"); ok {
		t.Errorf("errorLine: a source line read as an error")
	}
}

// TestDocFilesListed: every doc of the repository with a gpp block is in
// docFiles, so that a new doc's models are checked as the others' are.
func TestDocFilesListed(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range docFiles {
		listed[f] = true
	}
	var files []string
	for _, pat := range []string{"*.md", "docs/*.md", "examples/*.md"} {
		m, err := filepath.Glob(filepath.Join(repoRoot, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	found := map[string]bool{}
	for _, path := range files {
		rel, err := filepath.Rel(repoRoot, path)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		found[rel] = true
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docBlocks(rel, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, b := range blocks {
			if b.lang == "gpp" {
				if !listed[rel] {
					t.Errorf("%s has gpp blocks (the first at line %d) but is not in docFiles: its models are not checked", rel, b.line)
				}
				break
			}
		}
	}
	for _, f := range docFiles {
		if !found[f] {
			t.Errorf("%s is in docFiles but the search for docs did not find it", f)
		}
	}
}
