package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docLink matches a markdown link's target: ](target).
var docLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// headingSlug is the anchor GitHub gives a heading: lower case, letters,
// digits, spaces, hyphens and underscores kept (other characters
// dropped), each space a hyphen.
func headingSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docAnchors returns the anchors of a markdown file's headings (outside
// fenced code blocks), with GitHub's -1, -2 suffixes for repeats.
func docAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		s := headingSlug(h)
		if n := seen[s]; n > 0 {
			anchors[s+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

// TestDocLinks: every relative link of the README and the docs names a
// file that exists, and every #anchor a heading of its file, so that a
// renamed section does not leave a link that lands at the top of a
// page.
func TestDocLinks(t *testing.T) {
	files := []string{"../../README.md"}
	for _, pat := range []string{"../../docs/*.md", "../../docs/results/*.md", "../../examples/*.md"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = docAnchors(string(b))
		return anchors[path], nil
	}
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %s: no file %s", f, target, dest)
					continue
				}
			}
			links++
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			a, err := anchorsOf(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !a[anchor] {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", f, target, dest, anchor)
			}
		}
	}
	if links < 50 {
		t.Fatalf("found %d relative links in %d files: the link pattern no longer matches the docs", links, len(files))
	}
}
