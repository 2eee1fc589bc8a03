package fitfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// Supports are the latent supports fit.json may name.
var Supports = map[string]dist.Support{
	"real": dist.Real, "positive": dist.Positive, "unit": dist.Unit, "simplex": dist.Simplex,
	"ordered": dist.Ordered, "cholesky_factor_corr": dist.CholCorr, "positive_ordered": dist.PositiveOrdered, "corr_matrix": dist.CorrMatrix, "cholesky_factor_cov": dist.CholCov, "cov_matrix": dist.CovMatrix,
	"sum_to_zero_vector": dist.SumToZero, "sum_to_zero_matrix": dist.SumToZeroMatrix,
}

// Read reads a fit.json (for gpp predict, --init, --against, logprob
// and model.LoadFit) and checks it. Errors are *ast.Error positioned in
// the file.
func Read(path string, src []byte) (*File, error) {
	// pareto_k absent (an older fit.json) is unknown, not 0
	ff := File{Outcome: Outcome{ParetoK: Float(math.NaN())}}
	dec := json.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&ff); err != nil {
		return nil, JSONError(path, src, err, "fit")
	}
	if dec.More() {
		return nil, &ast.Error{Pos: OffsetPos(path, src, int(dec.InputOffset())), Msg: "unexpected data after the fit object"}
	}
	if ff.Format != Format {
		return nil, &ast.Error{Pos: FindPos(path, src, `"format"`), Msg: fmt.Sprintf("not a gpp fit file (format %q, want %q)", ff.Format, Format)}
	}
	if len(ff.Restarts) > 0 && len(ff.Factors) > 0 {
		return nil, &ast.Error{Pos: FindPos(path, src, `"restarts"`), Msg: "the fit has both factors and restarts"}
	}
	if len(ff.Restarts) == 0 && len(ff.Factors) == 0 {
		return nil, &ast.Error{Pos: FindPos(path, src, `"factors"`), Msg: "the fit has no factors"}
	}
	if err := checkFactors(path, src, ff.Factors); err != nil {
		return nil, err
	}
	if err := checkGroups(path, src, ff.Groups, ff.Factors); err != nil {
		return nil, err
	}
	for _, rs := range ff.Restarts {
		if len(rs.Factors) == 0 {
			return nil, &ast.Error{Pos: FindPos(path, src, `"restarts"`), Msg: fmt.Sprintf("restart with seed %d has no factors", rs.Seed)}
		}
		if err := checkFactors(path, src, rs.Factors); err != nil {
			return nil, err
		}
		if err := checkGroups(path, src, rs.Groups, rs.Factors); err != nil {
			return nil, err
		}
	}
	return &ff, nil
}

// checkFactors validates the factors of one fit: each on its own, and no
// name twice (which would leave it unclear which one warm-starts).
func checkFactors(path string, src []byte, fs []Factor) error {
	seen := map[string]bool{}
	for _, f := range fs {
		if err := checkFactor(path, src, &f); err != nil {
			return err
		}
		if seen[f.Name] {
			return &ast.Error{Pos: FindPos(path, src, `"name": `+strconv.Quote(f.Name)), Msg: fmt.Sprintf("factor %s appears twice", f.Name)}
		}
		seen[f.Name] = true
	}
	return nil
}

// checkGroups validates the joint full-rank factors of one fit: each of
// two or more fullrank factors of the fit, no factor in two, and the params
// of a fullrank factor over all their elements.
func checkGroups(path string, src []byte, gs []Group, fs []Factor) error {
	seen := map[string]bool{}
	for _, g := range gs {
		name := strings.Join(g.Names, "+")
		pos := FindPos(path, src, `"groups"`)
		errf := func(format string, args ...any) error {
			return &ast.Error{Pos: pos, Msg: fmt.Sprintf("group %s: ", name) + fmt.Sprintf(format, args...)}
		}
		if len(g.Names) < 2 && !((g.Rank > 0 || g.Band > 0) && len(g.Names) == 1) && !(len(g.Names) == 1 && JointOrdered(fs, g.Names[0], sgvb.FamilyFullRank)) {
			return errf("a group has two or more factors (one, with a rank or a band, or an ordered one's full-rank parts)")
		}
		if g.Rank < 0 {
			return errf("bad rank %d", g.Rank)
		}
		if g.Band != 0 && (sgvb.CheckBand(g.Band) != nil || g.Rank > 0) {
			return errf("bad band %d (a banded group has no rank)", g.Band)
		}
		fam := sgvb.FamilyFullRank
		if g.Rank > 0 {
			fam = sgvb.FamilyLowRank
		}
		if g.Band > 0 {
			fam = sgvb.FamilyBanded
		}
		size, nc := 0, 0
		for k, n := range g.Names {
			var f *Factor
			for i := range fs {
				if fs[i].Name == n {
					f = &fs[i]
				}
			}
			want := fam
			if g.Band > 0 && k > 0 { // an arrowhead's globals: their full-rank marginals
				want = sgvb.FamilyFullRank
			}
			if f == nil || f.Family != want.String() && !(g.Band == 0 && JointOrdered(fs, n, want)) {
				return errf("%s is not %s factor of the fit", n, ast.Article(want.String()))
			}
			elems := sgvb.FactorElems(want, Supports[f.Support], f.Shape) // an ordered one's: its size
			if k == 0 {
				nc = elems
			}
			if seen[n] {
				return errf("%s is in two groups, or twice in one", n)
			}
			seen[n] = true
			size += elems
		}
		if g.Rank > size {
			return errf("rank %d above its %d elements", g.Rank, size)
		}
		if g.Band > 0 && size-nc > sgvb.MaxArrow {
			return errf("%d global elements, at most %d", size-nc, sgvb.MaxArrow)
		}
		for j, n := range groupParamNames(g.Rank, g.Band, size, size-nc) {
			vals, ok := g.Params.Get(n)
			if !ok {
				return errf("missing parameter %q", n)
			}
			if len(vals) != size {
				return errf("parameter %q has %d values, want %d (the members' elements)", n, len(vals), size)
			}
			for i, v := range vals {
				x := float64(v)
				bad := math.IsNaN(x) || math.IsInf(x, 0)
				if g.Band > 0 && j > g.Band+1 { // arrow[r]: zero from element nc + r on
					bad = bad || (i >= nc+j-g.Band-2 && x != 0)
				} else if g.Band > 0 { // band[0] positive, band[k] zero at i < k and for the globals
					bad = bad || (j == 1 && x <= 0) || (j > 1 && (i < j-1 || i >= nc) && x != 0)
				} else if g.Rank > 0 { // d positive, B any
					bad = bad || (n == "d" && x <= 0)
				} else if j > 0 { // column j−1 of a lower-triangular L, positive diagonal
					bad = bad || (i == j-1 && x <= 0) || (i < j-1 && x != 0)
				}
				if bad {
					return errf("parameter %q: bad value %v at element %d", n, x, i)
				}
			}
		}
	}
	return nil
}

// JointOrdered reports whether fs's factor name is an ordered one whose
// parts are marginals of family fam (full-rank or low-rank): a member of
// a group (--fullrank, --family laplace), by its coordinates.
func JointOrdered(fs []Factor, name string, fam sgvb.Family) bool {
	for _, f := range fs {
		if f.Name != name {
			continue
		}
		ok := f.Family == sgvb.FamilyOrdered.String() && len(f.Parts) > 0
		for _, p := range f.Parts {
			ok = ok && p.Family == fam.String()
		}
		return ok
	}
	return false
}

// checkFactor validates one factor of a fit file.
func checkFactor(path string, src []byte, f *Factor) error {
	pos := FindPos(path, src, `"name": `+strconv.Quote(f.Name))
	if f.Name == "" {
		pos = FindPos(path, src, `"factors"`)
		return &ast.Error{Pos: pos, Msg: "a factor has no name"}
	}
	errf := func(format string, args ...any) error {
		return &ast.Error{Pos: pos, Msg: fmt.Sprintf("factor %s: ", f.Name) + fmt.Sprintf(format, args...)}
	}
	fam, err := sgvb.ParseFamily(f.Family)
	if err != nil || fam == sgvb.FamilyAuto {
		return errf("unknown family %q", f.Family)
	}
	if _, ok := Supports[f.Support]; !ok {
		return errf("unknown support %q (want real, positive, unit, simplex, ordered, positive_ordered, cholesky_factor_corr, corr_matrix, cholesky_factor_cov or cov_matrix)", f.Support)
	}
	size := 1
	for _, d := range f.Shape {
		if d <= 0 {
			return errf("bad shape %v", f.Shape)
		}
		size *= d
	}
	if (fam == sgvb.FamilyOrdered) != (f.Support == "ordered" || f.Support == "positive_ordered") || fam != sgvb.FamilyOrdered && len(f.Parts) > 0 {
		return errf("family %s on the %s support", f.Family, f.Support)
	}
	if fam == sgvb.FamilyOrdered {
		return checkOrderedParts(path, src, f, size, errf)
	}
	size = sgvb.FactorElems(fam, Supports[f.Support], f.Shape) // a simplex's full-rank factor: K − 1 a row
	names := paramNames(fam, size, f.Params)
	if fam == sgvb.FamilyLowRank && len(f.Params.Names) != len(names) {
		return errf("a lowrank factor has the parameters mean, d and B[1] … B[R]")
	}
	if fam == sgvb.FamilyBanded && len(f.Params.Names) != len(names) {
		return errf("a banded factor has the parameters mean and band[0] … band[K]")
	}
	for j, n := range names {
		vals, ok := f.Params.Get(n)
		if !ok {
			return errf("missing parameter %q of the %s family", n, fam)
		}
		if len(vals) != size {
			return errf("parameter %q has %d values, want %d (shape %v)", n, len(vals), size, f.Shape)
		}
		positive := !(n == "mean" || n == "meanlog" || n == "value" || strings.HasPrefix(n, "B[")) && !(fam == sgvb.FamilyBanded && j > 1)
		for i, v := range vals {
			x := float64(v)
			bad := math.IsNaN(x) || math.IsInf(x, 0) || (positive && x <= 0)
			if fam == sgvb.FamilyFullRank && j > 0 { // column j−1 of a lower-triangular L, positive diagonal
				bad = math.IsNaN(x) || math.IsInf(x, 0) || (i == j-1 && x <= 0) || (i < j-1 && x != 0)
			}
			if bad {
				return errf("parameter %q: bad value %v at element %d", n, x, i)
			}
		}
	}
	return nil
}

// checkOrderedParts validates the parts of an ordered factor of size
// elements: a real part of one element (G, the firsts of an ordered[G,
// K] factor's rows), then (for size > 1) a positive part of the rest, each
// a valid factor; of a positive_ordered factor, one positive part of size.
func checkOrderedParts(path string, src []byte, f *Factor, size int, errf func(string, ...any) error) error {
	g := 1
	if len(f.Shape) == 2 {
		g = f.Shape[0]
	}
	want := []struct {
		support string
		size    int
	}{{"real", g}, {"positive", size - g}}
	if size == g {
		want = want[:1]
	}
	if f.Support == "positive_ordered" {
		want = want[1:]
		want[0].size = size
	}
	if len(f.Parts) != len(want) {
		return errf("an %s factor of %d elements has %d parts, want %d", f.Support, size, len(f.Parts), len(want))
	}
	for i, w := range want {
		p := &f.Parts[i]
		if p.Support != w.support || compile.ShapeLen(p.Shape) != w.size || len(p.Shape) != 1 || p.Name != f.Name {
			return errf("part %d must be %s factor of shape [%d] named %s", i, ast.Article(w.support), w.size, f.Name)
		}
		if err := checkFactor(path, src, p); err != nil {
			return err
		}
	}
	return nil
}

// InitResult turns the factors of a fit file into a Result for
// Settings.Init (--init) or to draw from (gpp predict, model.LoadFit),
// matching them to the model's latents by name and size. It
// returns warnings for factors that match nothing.
func InitResult(ff *File, factors []Factor, groups []Group, m *compile.Model) (*sgvb.Result, []string) {
	r := &sgvb.Result{Dim: m.Dim}
	if meth, err := sgvb.ParseMethod(ff.Method); err == nil {
		r.Method = meth
	}
	var warns []string
	for _, f := range factors {
		fam, _ := sgvb.ParseFamily(f.Family)
		size := compile.ShapeLen(f.Shape)
		var lat *compile.Latent
		for i := range m.Latents {
			if m.Latents[i].Name == f.Name {
				lat = &m.Latents[i]
			}
		}
		if lat == nil || lat.Size != size {
			warns = append(warns, fmt.Sprintf("--init: factor %s %s matches no latent of the same name and size; ignored", f.Name, ShapeText(f.Shape)))
			continue
		}
		if lat.Support.IsOrdered() != (fam == sgvb.FamilyOrdered) || fam == sgvb.FamilyOrdered && Supports[f.Support] != lat.Support {
			warns = append(warns, fmt.Sprintf("--init: factor %s is %s, the latent %s; ignored", f.Name, f.Support, lat.Support))
			continue
		}
		// The params are of b on the support; the model's latent says how
		// b maps to its values.
		fac := factorOf(f, lat.Offset, lat.Loc, lat.Scale)
		fac.LocV, fac.ScaleV = lat.LocV, lat.ScaleV
		r.Factors = append(r.Factors, fac)
	}
	for _, g := range groups {
		size, ok := 0, true
		var kept []string // the members that m lays out
		var keep []bool   // per coordinate of the group
		for _, name := range g.Names {
			if f := r.Factor(name); f != nil {
				n := sgvb.FactorElems(f.Family, f.Support, f.Shape) // a simplex's: K − 1 a row
				size += n
				kept = append(kept, name)
				keep = append(keep, slices.Repeat([]bool{true}, n)...)
				continue
			}
			// a fit's missing values, which a model compiled to predict
			// does not lay out: the group is the others' marginal
			k := slices.IndexFunc(factors, func(f Factor) bool { return f.Name == name })
			if !m.MissingName(name) || k < 0 {
				ok = false
				break
			}
			size += compile.ShapeLen(factors[k].Shape)
			keep = append(keep, slices.Repeat([]bool{false}, compile.ShapeLen(factors[k].Shape))...)
		}
		if !ok || len(kept) == 0 {
			warns = append(warns, fmt.Sprintf("--init: group %s has a member that matches no latent; its members start from their own factors", strings.Join(g.Names, "+")))
			continue
		}
		sg := sgvb.Group{Names: append([]string(nil), g.Names...), Rank: g.Rank, Band: g.Band}
		glob := 0 // an arrowhead's global elements: all but the first member's
		if k := slices.IndexFunc(factors, func(f Factor) bool { return f.Name == g.Names[0] }); g.Band > 0 && k >= 0 {
			glob = size - compile.ShapeLen(factors[k].Shape) // no simplex: banded factors take none
		}
		for _, n := range groupParamNames(g.Rank, g.Band, size, glob) {
			vals, _ := g.Params.Get(n)
			p := make([]float64, len(vals))
			for i, v := range vals {
				p[i] = float64(v)
			}
			sg.Params = append(sg.Params, p)
		}
		if len(kept) < len(g.Names) {
			mg, err := sg.Marginal(kept, keep)
			if err != nil {
				warns = append(warns, fmt.Sprintf("--init: group %s: %v; its members start from their own factors", strings.Join(g.Names, "+"), err))
				continue
			}
			sg = mg
		}
		r.Groups = append(r.Groups, sg)
	}
	for _, l := range m.Latents {
		found := false
		for _, f := range r.Factors {
			found = found || f.Name == l.Name
		}
		if !found {
			warns = append(warns, fmt.Sprintf("--init: latent %s has no factor in the fit file; it starts from the default", l.Name))
		}
	}
	r.LinkOrdered() // an ordered member's moments, from its coordinates' marginal under its group
	return r, warns
}

// factorOf converts a fit file's factor (checked by checkFactor) into the
// engine's at offset off, its parts (an ordered factor's) after each other.
func factorOf(f Factor, off int, loc, scale float64) sgvb.Factor {
	fam, _ := sgvb.ParseFamily(f.Family)
	size := compile.ShapeLen(f.Shape)
	fac := sgvb.Factor{Name: f.Name, Family: fam, Support: Supports[f.Support], Offset: off, Size: size,
		Shape: append([]int(nil), f.Shape...), Loc: loc, Scale: scale}
	for _, n := range paramNames(fam, sgvb.FactorElems(fam, fac.Support, f.Shape), f.Params) {
		vals, _ := f.Params.Get(n)
		p := make([]float64, len(vals))
		for i, v := range vals {
			p[i] = float64(v)
		}
		fac.Params = append(fac.Params, p)
	}
	for _, part := range f.Parts {
		fac.Parts = append(fac.Parts, factorOf(part, off, 0, 0))
		off += compile.ShapeLen(part.Shape)
	}
	return fac
}

// ShapeText writes a shape as [2, 3], or (scalar).
func ShapeText(s []int) string {
	if len(s) == 0 {
		return "(scalar)"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// JSONError positions a JSON decoding error in its file, a gpp what file
// (fit, kfold, evidence).
func JSONError(path string, src []byte, err error, what string) error {
	malformed := "malformed " + what + " file: "
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &ast.Error{Pos: OffsetPos(path, src, int(syn.Offset)), Msg: malformed + syn.Error()}
	case errors.As(err, &typ):
		// the path less Go's names of embedded structs (Head,
		// Outcome): the file's keys are lower case
		field := strings.Join(slices.DeleteFunc(strings.Split(typ.Field, "."), func(k string) bool { return strings.ToLower(k) != k }), ".")
		if field == "" {
			// the top level: typ.Type is a Go struct's name
			return &ast.Error{Pos: OffsetPos(path, src, int(typ.Offset)),
				Msg: malformed + fmt.Sprintf("the file must be a JSON object, not a JSON %s", typ.Value)}
		}
		return &ast.Error{Pos: OffsetPos(path, src, int(typ.Offset)),
			Msg: malformed + fmt.Sprintf("%s must be %s, not a JSON %s", field, typ.Type, typ.Value)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &ast.Error{Pos: OffsetPos(path, src, len(src)), Msg: malformed + "unexpected end of file"}
	}
	var num *badNumber
	if errors.As(err, &num) {
		if i := valueIndex(src, num.text); i >= 0 {
			return &ast.Error{Pos: OffsetPos(path, src, i+1), Msg: malformed + err.Error()}
		}
	}
	return &ast.Error{Pos: ast.Pos{File: path, Line: 1, Col: 1}, Msg: malformed + err.Error()}
}

// valueIndex returns the offset of the first occurrence of text in src as a
// JSON value (after a colon, a comma or a bracket, and not a key), or -1: where a bad
// number is when two values hold the same text, a guess at the first.
func valueIndex(src []byte, text string) int {
	for off := 0; ; {
		i := bytes.Index(src[off:], []byte(text))
		if i < 0 {
			return -1
		}
		i += off
		before := bytes.TrimRight(src[:i], " \t\r\n")
		after := bytes.TrimLeft(src[i+len(text):], " \t\r\n")
		if len(before) > 0 && strings.IndexByte(":,[", before[len(before)-1]) >= 0 && !bytes.HasPrefix(after, []byte(":")) {
			return i
		}
		off = i + 1
	}
}

// OffsetPos converts a byte offset into a 1-based line and column. An
// offset just past a token points at the token's last byte.
func OffsetPos(path string, src []byte, off int) ast.Pos {
	off = min(max(off, 1), len(src))
	if off > 0 {
		off-- // json offsets count the bytes read, so the culprit is the last
	}
	line, col := 1, 1
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return ast.Pos{File: path, Line: line, Col: col}
}

// FindPos returns the position of the first occurrence of text in src, or
// the start of the file.
func FindPos(path string, src []byte, text string) ast.Pos {
	i := bytes.Index(src, []byte(text))
	if i < 0 {
		return ast.Pos{File: path, Line: 1, Col: 1}
	}
	return OffsetPos(path, src, i+1)
}

// Overflowed is the error of a use (--init, predict, LoadFit) of the
// saved fit ff, read from src at path, whose ELBO or its standard error
// overflowed, at that key of the file; nil when neither did. use names
// the use, advice ends the message.
func Overflowed(path string, src []byte, ff *File, use, advice string) error {
	if !sgvb.Overflows(float64(ff.ELBO), float64(ff.ELBOSE)) {
		return nil
	}
	key, what := `"elbo"`, "its ELBO overflows"
	if !math.IsInf(float64(ff.ELBO), 0) {
		key, what = `"elbo_se"`, "its ELBO's standard error overflows"
	}
	return &ast.Error{Pos: FindPos(path, src, key),
		Msg: use + ": this fit failed (" + what + "): its outputs were written for inspection only, " + advice}
}
