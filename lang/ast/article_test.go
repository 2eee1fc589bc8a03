package ast

import "testing"

// TestArticle: "an" before a vowel's sound, "a" before a consonant's and
// before unit.
func TestArticle(t *testing.T) {
	for word, want := range map[string]string{"ordered": "an ordered", "int": "an int", "unit": "a unit", "simplex": "a simplex", "positive_ordered": "a positive_ordered", "": "a "} {
		if got := Article(word); got != want {
			t.Errorf("Article(%q) = %q, want %q", word, got, want)
		}
	}
}
