package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestIDSizeHintCompiles: the lines that an undeclared size's hint
// suggests for a column of ids, pasted in place of the line it names,
// check with the data (the bound alone left J undeclared, a t67 trial).
func TestIDSizeHintCompiles(t *testing.T) {
	for _, c := range []struct{ geno, index, ids string }{
		{"int[N]", "geno", "0,2,1"},
		{"int<lower=1>[N]", "geno - 1", "1,3,2"}, // Stan's 1-based ids
	} {
		geno := c.geno
		src := "data geno: " + geno + "\ndata y: real[N]\nparam z: real[J, 2] ~ Normal(0, 1)\ny ~ Normal(z[" + c.index + ", 0], 1)\n"
		dir := t.TempDir()
		m := writeFile(t, dir, "m.gpp", src)
		id := strings.Split(c.ids, ",")
		d := writeFile(t, dir, "d.csv", "geno,y\n"+id[0]+",0.5\n"+id[1]+",1.2\n"+id[2]+",-0.1\n")
		code, _, stderr := runSafe(t, "check", m, d)
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1: %s", geno, code, stderr)
		}
		hint := regexp.MustCompile("in place of line (\\d+), the two lines `([^`]*)` and `([^`]*)`").FindStringSubmatch(stderr)
		if hint == nil {
			t.Fatalf("%s: no id-column hint in:\n%s", geno, stderr)
		}
		n, _ := strconv.Atoi(hint[1])
		lines := strings.Split(src, "\n")
		if n < 1 || n > len(lines) || !strings.HasPrefix(lines[n-1], "data geno:") {
			t.Fatalf("%s: line %d is not geno's declaration", geno, n)
		}
		lines[n-1] = hint[2] + "\n" + hint[3]
		m2 := writeFile(t, dir, "m2.gpp", strings.Join(lines, "\n"))
		code, stdout, stderr := runSafe(t, "check", m2, d)
		if code != 0 {
			t.Errorf("%s: the suggested lines %q, %q do not check: %s", geno, hint[2], hint[3], stderr)
		} else if !strings.Contains(stdout+stderr, "J = 3") {
			t.Errorf("%s: J is not 3 from the ids 1..3:\n%s%s", geno, stdout, stderr)
		}
	}
}
