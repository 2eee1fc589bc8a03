package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// tinyScaleLimit is the largest constant scale of a prior that tinyScales
// warns of: 0.001 is BUGS's precision in dnorm(0, 0.001), a vague prior
// there and one that pins the param to its mean in gpp, whose second
// argument is the sd.
const tinyScaleLimit = 0.001

// scaleArg is the argument that is the scale of the families tinyScales
// reads, by their names.
var scaleArg = map[string]int{"Normal": 1, "LogNormal": 1, "Cauchy": 1, "StudentT": 2}

// tinyScales warns of each prior (a param's declared one, or a ~ statement
// on a param) of a family in scaleArg whose scale is a positive constant of
// at most tinyScaleLimit: written from BUGS, where the argument is the
// precision, it silently fixes the param near the prior's centre (a fit put
// two group means at 0 ± 0.0009 with the data near 100).
func (c *checker) tinyScales() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ParamDecl:
			if s.Prior != nil {
				c.tinyScale(s.Name.Name, s.Prior)
			}
		case *ast.TildeStmt:
			if lat := c.info.SelectedLatent(s.LHS); lat != nil {
				c.tinyScale(lat.Name, s.Dist)
			}
		}
		return true
	})
}

// tinyScale warns if call, the prior of the param name, has a constant
// scale in (0, tinyScaleLimit].
func (c *checker) tinyScale(name string, call *ast.CallExpr) {
	i, ok := scaleArg[call.Fun.Name]
	if !ok {
		return
	}
	v := c.constArg(call, i)
	if v == nil || *v <= 0 || *v > tinyScaleLimit {
		return
	}
	args := make([]string, len(call.Args))
	for k, a := range call.Args {
		args[k] = ast.FormatExpr(a)
	}
	scale := args[i]
	if lit, ok := call.Args[i].(*ast.NumberLit); !ok || lit.Value != *v {
		scale += " = " + strconv.FormatFloat(*v, 'g', -1, 64)
	}
	args[i] = strconv.FormatFloat(1/math.Sqrt(*v), 'g', 3, 64)
	three := strconv.FormatFloat(3**v, 'g', 3, 64)
	var what, pins string
	switch call.Fun.Name {
	case "Normal":
		what, pins = "the sd", fmt.Sprintf("`%s` within ±%s of its mean (3 sds)", name, three)
	case "LogNormal":
		what, pins = "the sd of the log", fmt.Sprintf("log(`%s`) within ±%s of its mean (3 sds)", name, three)
	default:
		what, pins = "the scale", fmt.Sprintf("`%s` to a few times %s about its centre", name, strconv.FormatFloat(*v, 'g', 3, 64))
	}
	c.info.Warnings = append(c.info.Warnings, ast.Errorf(call.Args[i].Pos(),
		"the prior %s of `%s` has scale %s: %s's argument %d is %s, not a precision as in BUGS, so this prior pins %s; a precision of %s, as BUGS's dnorm(0, %s), is %s(%s)",
		exprString(call), name, scale, call.Fun.Name, i+1, what, pins, ast.FormatExpr(call.Args[i]), ast.FormatExpr(call.Args[i]), call.Fun.Name, strings.Join(args, ", ")))
}
