package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ttyLines stands for a terminal in tests: it returns its lines in turn,
// io.EOF for each ctrlD (Ctrl-D on an empty line), and io.EOF after the
// last; a terminal goes on reading after a Ctrl-D.
type ttyLines struct {
	lines   []string
	prompts []string // the prompt of each read
}

const ctrlD = "\x04"

func (t *ttyLines) readLine(prompt string) (string, error) {
	t.prompts = append(t.prompts, prompt)
	if len(t.lines) == 0 {
		return "", io.EOF
	}
	line := t.lines[0]
	t.lines = t.lines[1:]
	if line == ctrlD {
		return "", io.EOF
	}
	return line, nil
}

func (t *ttyLines) close() {}

func TestAtEOF(t *testing.T) {
	tests := []struct {
		interactive, continuing bool
		want                    eofAction
	}{
		{false, false, eofEnd},
		{true, false, eofEnd},
		{true, true, eofDiscard},
		{false, true, eofSubmitEnd},
	}
	for _, tt := range tests {
		if got := atEOF(tt.interactive, tt.continuing); got != tt.want {
			t.Errorf("atEOF(%v, %v) = %v, want %v", tt.interactive, tt.continuing, got, tt.want)
		}
	}
}

// TestReplCtrlDContinuation: at a terminal, Ctrl-D at the "..." prompt of
// an unfinished for loop drops the loop and prompts again, and the session
// goes on; Ctrl-D at the main prompt ends it, with a note that the model
// typed was never saved. A complete if waiting for an else runs.
func TestReplCtrlDContinuation(t *testing.T) {
	r, _, errb := newTestRepl()
	r.interactive = true
	tty := &ttyLines{lines: []string{
		"param a: real ~ Normal(0, 1)",
		"for i in 0:3 {", ctrlD,
		"param b: real ~ Normal(0, 1)",
		"param c: real",
		"if 1 > 0 {", "c ~ Normal(0, 1)", "}", ctrlD,
		ctrlD,
		"param never: real",
	}}
	r.loop(tty)
	for _, want := range []string{"param a", "param b", "param c", "c ~ Normal"} {
		if !strings.Contains(r.src, want) {
			t.Errorf("model lacks %q:\n%s", want, r.src)
		}
	}
	if strings.Contains(r.src, "for") || strings.Contains(r.src, "never") {
		t.Errorf("model has the dropped loop or a line after the end:\n%s", r.src)
	}
	if len(tty.lines) != 1 {
		t.Errorf("the session read %d lines too many or too few: %q left", 1-len(tty.lines), tty.lines)
	}
	if got := strings.Join(tty.prompts, "|"); got != ">>> |>>> |... |>>> |>>> |>>> |... |... |... |>>> " {
		t.Errorf("prompts %q", got)
	}
	if r.failed {
		t.Errorf("errors: %s", errb.String())
	}
	if want := "gpp: note: the model has 4 statements new or changed and was never saved; the changes end with the session (:save FILE.gpp keeps them)\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("errors:\n%s\nwant the note:\n%s", errb.String(), want)
	}
}

// TestReplCtrlDPiped: read from a pipe, the end of the input in an
// unfinished loop runs it as it is (a parse error, exit code 1) and ends
// the session, with no note about saving (a script runs again).
func TestReplCtrlDPiped(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"repl", "--history", "-"}, strings.NewReader("param a: real ~ Normal(0, 1)\nfor i in 0:3 {\n"), &out, &errb)
	if code != exitError || !strings.Contains(errb.String(), "end of file") {
		t.Errorf("exit code %d, errors:\n%s\nwant %d and the loop's parse error", code, errb.String(), exitError)
	}
	if strings.Contains(errb.String(), "note: the model") {
		t.Errorf("a script got the unsaved note:\n%s", errb.String())
	}
}

// TestReplUnsavedNote: the note at the end of a terminal session counts
// the statements changed since the last :save or :load, and is left out
// when there are none.
func TestReplUnsavedNote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gpp")
	end := func(r *repl, errb *bytes.Buffer) string {
		errb.Reset()
		r.interactive = true
		r.loop(&ttyLines{lines: []string{":quit"}})
		return errb.String()
	}
	r, _, errb := newTestRepl()
	typeIn(r, "param a: real ~ Normal(0, 1)", "param b: real ~ Normal(a, 1)", ":save "+path)
	if got := end(r, errb); got != "" {
		t.Errorf("saved model: %q, want no note", got)
	}
	r.quit = false
	typeIn(r, "param c: real ~ Normal(b, 1)")
	if got, want := end(r, errb), "gpp: note: the model has 1 statement new or changed since the last :save or :load;"; !strings.HasPrefix(got, want) {
		t.Errorf("after one more: %q, want %q", got, want)
	}
	r.quit = false
	typeIn(r, ":undo", ":undo")
	if got, want := end(r, errb), "gpp: note: the model has 1 statement removed since the last :save or :load;"; !strings.HasPrefix(got, want) {
		t.Errorf("after :undo twice: %q, want %q", got, want)
	}
	r2, _, errb2 := newTestRepl()
	typeIn(r2, ":load "+path)
	if got := end(r2, errb2); got != "" {
		t.Errorf("loaded model: %q, want no note", got)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
