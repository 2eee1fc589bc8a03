package main

// gpp predict --new-levels: predictions for groups that the fit did not
// see (brms's allow_new_levels = TRUE with sample_new_levels = "gaussian",
// rstanarm's posterior_predict of new levels). A param whose shape the new
// data make larger than the fit's (a varying intercept per site, with a
// site the fit did not see) keeps the fit's draws for the elements the fit
// saw and draws the new ones, at each draw of q (or of a sample), from the
// param's own prior given that draw's params (compile.LevelSampler, the
// draws of gpp fit --prior), from a stream of their own so that every
// other number is as it would be without them.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// newLevelsStream seeds the draws of new elements (with --seed), apart
// from the draws of q, the outputs' replicates and the left-out data;
// the mean row draws from newLevelsStream+1.
const newLevelsStream = 0x6e65776c6576656c

// newLevelsHint ends the error of a param larger than the fit's, or of a
// label the fit did not see, without --new-levels.
const newLevelsHint = "gpp predict --new-levels draws the new elements from the param's prior"

// growth collects, while the params are matched to a fit's or a sample's,
// those whose shape here is larger than there (shapes: name → the fit's
// shape); allow is --new-levels, without which each is an error naming
// the flag.
type growth struct {
	allow  bool
	shapes map[string][]int
}

// grows reports whether lat, of shape fit in a fit, can be that param with
// new elements: the same rank, no axis shorter and one longer, each longer
// one of a size that data or a const give (real[J], not real[3]).
func grows(m *compile.Model, lat *compile.Latent, fit []int) bool {
	here := lat.Shape
	if len(fit) != len(here) || len(fit) == 0 || slices.Equal(fit, here) {
		return false
	}
	for a := range fit {
		if here[a] < fit[a] || here[a] > fit[a] && m.LiteralSize(lat.Name, a) {
			return false
		}
	}
	return true
}

// Take records that lat, of shape fit in the fit, has new elements here,
// and reports whether --new-levels allows it (g nil: a command other than
// predict, which never does).
func (g *growth) Take(m *compile.Model, lat *compile.Latent, fit []int) bool {
	if g == nil || !g.allow || !grows(m, lat, fit) {
		return false
	}
	if g.shapes == nil {
		g.shapes = map[string][]int{}
	}
	g.shapes[lat.Name] = fit
	return true
}

// Hint is the words that end a shape mismatch of lat, of shape fit there,
// when --new-levels would take it: only a param whose type lets new
// elements be drawn (compile.NewLevelsSupport; the flag refuses a
// sum_to_zero_vector's, say).
func (g *growth) Hint(m *compile.Model, lat *compile.Latent, fit []int) string {
	if g == nil || g.allow || !grows(m, lat, fit) {
		return ""
	}
	if !compile.NewLevelsSupport(lat.Support) {
		return ""
	}
	return "; " + newLevelsHint
}

// levelDraws expands draws in the fit's layout (its params' shapes) into
// the model's and draws the new elements.
type levelDraws struct {
	ls   *compile.LevelSampler
	m    *compile.Model
	dim  int   // the fit's layout's dimension
	offs []int // each latent's offset in the fit's layout
	// olds are each latent's elements that the fit saw, by their place in
	// the fit's layout (nil: all, in order)
	olds      [][]int
	grown     map[string]compile.Grown // the sampler's grown params, by name
	rng, mean *rand.Rand
}

// newLevelDraws prepares the draws of the new elements of m's params of
// the shapes that g collected, from the streams of seed. A param that
// cannot have them is an error at its declaration.
func newLevelDraws(m *compile.Model, g *growth, seed uint64) (*levelDraws, error) {
	ls, err := m.NewLevelSampler(g.shapes)
	if err != nil {
		return nil, err
	}
	lv := &levelDraws{ls: ls, m: m, grown: map[string]compile.Grown{},
		rng: rand.New(rand.NewPCG(seed, newLevelsStream)), mean: rand.New(rand.NewPCG(seed, newLevelsStream+1))}
	for _, gr := range ls.Grown() {
		lv.grown[gr.Name] = gr
	}
	for _, lat := range m.Latents {
		lv.offs = append(lv.offs, lv.dim)
		gr, ok := lv.grown[lat.Name]
		if !ok {
			lv.olds = append(lv.olds, nil)
			lv.dim += lat.Size
			continue
		}
		lv.olds = append(lv.olds, gr.OldIndices)
		lv.dim += len(gr.OldIndices)
	}
	return lv, nil
}

// notes says which params get new elements, and from which prior.
func (lv *levelDraws) notes() []string {
	var out []string
	for _, g := range lv.ls.Grown() {
		out = append(out, fmt.Sprintf("--new-levels: %s is %s here, %s in the fit: its %d new element%s drawn at each draw from its prior %s (%s), given that draw's params",
			g.Name, fitfile.ShapeText(g.Shape), fitfile.ShapeText(g.Fit), g.New, plural(g.New), g.Prior, g.PriorPos))
	}
	return out
}

// fitModel returns a copy of m laid out as the fit was: each grown param
// of the fit's shape, the offsets after each other (fitfile.InitResult reads
// the fit's factors against it).
func (lv *levelDraws) fitModel() *compile.Model {
	mf := *lv.m
	mf.Latents = slices.Clone(lv.m.Latents)
	for i := range mf.Latents {
		l := &mf.Latents[i]
		l.Offset = lv.offs[i]
		if gr, ok := lv.grown[l.Name]; ok {
			l.Shape, l.Size = gr.Fit, compile.ShapeLen(gr.Fit)
		}
	}
	mf.Dim = lv.dim
	return &mf
}

// expand writes the coordinates xf and values zf of a draw in the fit's
// layout into x and z, in the model's, and draws the new elements with
// rng. A prior whose arguments are outside their supports at the draw is
// an error at the prior.
func (lv *levelDraws) expand(rng *rand.Rand, xf, zf, x, z []float64) error {
	for i, lat := range lv.m.Latents {
		fo := lv.offs[i]
		if lv.olds[i] == nil {
			copy(x[lat.Offset:lat.Offset+lat.Size], xf[fo:fo+lat.Size])
			if zf != nil {
				copy(z[lat.Offset:lat.Offset+lat.Size], zf[fo:fo+lat.Size])
			}
			continue
		}
		for k, e := range lv.olds[i] {
			x[lat.Offset+e] = xf[fo+k]
			if zf != nil {
				z[lat.Offset+e] = zf[fo+k]
			}
		}
	}
	return lv.ls.Draw(rng, x, z)
}

// relayout lays the columns of the draws (reportVariables of the fit's
// q) out as the model's: each param at its offset here, a grown one of its
// shape here, and the columns after each other.
func (lv *levelDraws) relayout(vars []variable) ([]variable, int) {
	ncol := 0
	for i := range vars {
		v := &vars[i]
		for _, lat := range lv.m.Latents {
			if v.output || lat.Name != v.name {
				continue
			}
			v.off = lat.Offset
			if v.corrK == 0 { // a matrix-valued param's shape is its value's
				v.shape, v.elems = lat.Shape, compile.ColumnMajor(lat.Shape)
			}
		}
		v.first = ncol
		ncol += len(v.elems)
	}
	lv.markPrior(vars)
	return vars, ncol
}

// priorFamily is the family column of an element drawn from its prior
// (--new-levels), which no fitted factor or sampler gave.
const priorFamily = "prior"

// markPrior marks the elements of vars' grown params that the fit or
// sample did not see, drawn from the prior (variable.fromPrior).
func (lv *levelDraws) markPrior(vars []variable) {
	for i := range vars {
		v := &vars[i]
		gr, ok := lv.grown[v.name]
		if v.output || !ok {
			continue
		}
		v.fromPrior = make([]bool, compile.ShapeLen(gr.Shape))
		for k := range v.fromPrior {
			v.fromPrior[k] = true
		}
		for _, k := range gr.OldIndices {
			v.fromPrior[k] = false
		}
	}
}

// typeShape reads the shape of a param from its type text in a sample's
// coords.csv (real[30, 2]: [30 2]); nil for a scalar or a type whose
// shape is not its coordinates' (matrix-valued params, whose size is
// not a group count).
func typeShape(typ string) []int {
	i := strings.LastIndexByte(typ, '[')
	if i < 0 || !strings.HasSuffix(typ, "]") {
		return nil
	}
	var shape []int
	for _, f := range strings.Split(typ[i+1:len(typ)-1], ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil
		}
		shape = append(shape, n)
	}
	return shape
}

// sampleGrows reports whether lat, of type typ in a sample, differs from
// the sample's only by a larger shape, and returns the sample's shape.
func sampleGrows(m *compile.Model, lat *compile.Latent, typ string) ([]int, bool) {
	if lat.Support.IsCoords() {
		return nil, false // coordinates not of the value's shape
	}
	fs := typeShape(typ)
	if !grows(m, lat, fs) {
		return nil, false
	}
	there := *lat
	there.Shape = fs
	return fs, fitfile.LatentTypeText(&there) == typ
}

// levelsErr positions err (from newLevelDraws) for printError.
func levelsErr(err error) error {
	if _, ok := ast.Positioned(err); ok {
		return err
	}
	return fmt.Errorf("--new-levels: %v", err)
}

// growLevels marks the fit's codings of columns of labels to take new
// labels (--new-levels), coded after the fit's in order of first
// appearance.
func growLevels(levels map[string]data.Levels, grow bool) map[string]data.Levels {
	if grow {
		for k, lv := range levels {
			lv.Grow = true
			levels[k] = lv
		}
	}
	return levels
}

// unseenLabelHint adds a hint to each error of a label that the fit did
// not see (data.BindCoded's), which cmd (gpp predict --new-levels, the
// REPL's :predict --new-levels) would code.
func unseenLabelHint(err error, cmd string) error {
	list, ok := ast.Positioned(err)
	if !ok {
		return err
	}
	out := make(ast.ErrorList, len(list))
	for i, e := range list {
		out[i] = e
		if strings.Contains(e.Msg, "is not one the fit coded") {
			out[i] = &ast.Error{Pos: e.Pos, Msg: e.Msg + "; " + cmd + " codes it after them and draws its group's params from their priors"}
		}
	}
	return out
}

// levelNotes prints which params get new elements, and a note when
// --new-levels found none.
func levelNotes(con *console, lv *levelDraws, flag bool, model string) {
	if lv == nil {
		if flag {
			con.info("gpp: note: --new-levels: no param of %s is larger here than in the fit: nothing new to draw", model)
		}
		return
	}
	for _, n := range lv.notes() {
		con.info("gpp: note: %s", n)
	}
}
