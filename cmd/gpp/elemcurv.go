package main

import (
	"context"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// elemCurved reports whether the table's elements of a param of support
// s are not its unconstrained coordinates but functions of several of
// them, which the curvature check reads by the delta method
// (elementRatios): an ordered param's element k is x_0 plus the
// exponentials of its log gaps 1 … k, a simplex's element a function of
// its row's K − 1 stick-breaking coordinates.
func elemCurved(s dist.Support) bool { return s.IsOrdered() || s == dist.Simplex }

// elementRatios reads the curvature check for the elements of the params
// elemCurved, by the delta method as outputRatios reads outputs: the
// gradient of each element's value at q's mode on the param's own
// coordinates, by central differences, gives its ratio (sgvb.Curvature.
// DeltaRatio). The check's ratios are per coordinate, so an ordered
// param's c[k], k ≥ 1, had none of its own: a trial's ordinal cutpoints
// read c[0] 11× too small, marked, and c[1..3] unmarked, where NUTS's sds
// were 13×, 10× and 8.5× q's. An element whose coordinates include one a
// partial check left out (sgvb.Curvature.Left) gets no ratio and is
// marked unchecked. It draws nothing.
func elementRatios(ctx context.Context, cc *curvCheck, l *pipeline.Loaded, ud *sgvb.Unconstrained) {
	m := l.Model
	u := cc.c.Mode
	if len(u) != ud.Dim() {
		return
	}
	lats := pipeline.Latents(m)
	x, z := make([]float64, ud.TargetDim()), make([]float64, ud.TargetDim())
	values := func(u []float64) {
		ud.Coords(u, x)
		ud.Values(z, x)
	}
	name := latentNamer(m, l)
	xu := append([]float64(nil), u...)
	for li, lat := range m.Latents {
		if !elemCurved(lat.Support) {
			continue
		}
		off, n := ud.LatentRange(li)
		xoff, size := lats[li].Offset, lats[li].Size
		if n == 0 || size*n > outCurvMaxWork {
			continue
		}
		grads := make([][]float64, size)
		for e := range grads {
			grads[e] = make([]float64, len(u))
		}
		vp := make([]float64, size) // the values at u[j] + h
		for j := off; j < off+n; j++ {
			if ctx.Err() != nil {
				return
			}
			h := sgvb.LaplaceStep(u[j])
			xu[j] = u[j] + h
			values(xu)
			copy(vp, z[xoff:xoff+size])
			xu[j] = u[j] - h
			values(xu)
			xu[j] = u[j]
			d := (u[j] + h) - (u[j] - h)
			for e := range size {
				grads[e][j] = (vp[e] - z[xoff+e]) / d
			}
		}
		for e, g := range grads {
			cc.elemNames = append(cc.elemNames, name(lat.Name, lat.Shape, e))
			cc.elemLat = append(cc.elemLat, lat.Name)
			left := leftIn(cc.c, g)
			r := math.NaN()
			if !left {
				r = cc.c.DeltaRatio(g)
			}
			cc.elemRatio = append(cc.elemRatio, r)
			cc.elemLeft = append(cc.elemLeft, left)
			cc.elemOff = append(cc.elemOff, !left && offShare(cc, g) >= outShareOff)
		}
	}
}

// leftIn reports whether a function of the coordinates whose gradient is
// g moves with one that a partial check left out.
func leftIn(c *sgvb.Curvature, g []float64) bool {
	if c.Left == nil {
		return false
	}
	for i, v := range g {
		if v != 0 && c.Left[i] {
			return true
		}
	}
	return false
}

// badElems returns the names of the elements (elementRatios) whose ratio
// is at least min, leaving out those whose variance comes largely from
// coordinates offScale (outShareOff), as badOutputs does.
func (cc *curvCheck) badElems(min float64) []string {
	return badRatios(cc.elemNames, cc.elemRatio, cc.elemOff, min)
}

// uncheckedNames returns, by the table's names, the elements whose sds a
// partial check could not judge: the coordinates it left out (sgvb.
// Curvature.Left, a funnel's scale at q's mode) of params whose
// coordinates are their elements, and the elements (elementRatios) that
// move with one; nil for a full check.
func (cc *curvCheck) uncheckedNames() []string {
	if cc.c.Left == nil {
		return nil
	}
	read := cc.elemsRead()
	var out []string
	for i, left := range cc.c.Left {
		if left && !read[cc.r.Factors[cc.lats[i]].Name] {
			out = append(out, cc.names[i])
		}
	}
	for i, left := range cc.elemLeft {
		if left {
			out = append(out, cc.elemNames[i])
		}
	}
	return out
}

// elemsRead returns the params whose elements elementRatios read, whose
// coordinates are then not named as elements.
func (cc *curvCheck) elemsRead() map[string]bool {
	read := map[string]bool{}
	for _, name := range cc.elemLat {
		read[name] = true
	}
	return read
}
