// Package autodiff is gpp's reverse-mode automatic differentiation tape over
// tensor values (scalars, column vectors and row-major matrices).
//
// Place in the pipeline: the compiler lowers a checked model into a Program
// built with a Builder (compile → lang/autodiff → infer/sgvb); the SGVB
// engine then calls Program.LogJoint thousands of times to get the log joint
// density and its gradient with respect to one flat latent vector, and
// ForwardJoint where it needs the value alone (its ELBO estimates and
// importance weights: no reverse sweep, no outputs' nodes). dist
// supplies the scalar density kernels that Density nodes evaluate
// elementwise.
//
// A Program is a plain value: nodes live in a slice indexed by id, every
// value and adjoint lives in one flat arena, per-op scratch is allocated
// once, and a steady-state Forward+Backward allocates nothing. Nodes that
// depend on no Input are evaluated once, by Builder.Finish, and never again.
// Every node keeps the ast.Pos of the expression that built it, so a shape
// error at build time and a NaN, an Inf or a failed factorisation at run
// time are reported as an *ast.Error at that position.
//
// Fused ops do in one node what a chain of elementwise nodes would do in
// many passes: GaussRowsSS (Gaussian rows through their scatter matrix;
// a covariance of fixed data is factored once, in Finish), RowScatter (the
// rows' outer products summed in one pass), RowSumProd (rowsum(x .* y .* w) reading gathered rows in place, EPM's
// rates) and DensityPrepared (a density whose kernel does its
// parameter-only work once per distinct parameter set); a density of
// fixed data with a DataHoisted kernel does the work in the data alone
// (log k! of a count) once, in Finish. The compiler
// emits them by pattern; Finish also fuses a Sum of a RowSumProd that
// nothing else reads (EPM's missing pairs) into one node whose forward
// pass forms the row sums its reverse pass reuses, and fuses a linear
// predictor, mu + tau * z[g] or a + b * x (sums and differences of
// scalars, vectors, gathers and their products by scalars), into its last
// node, one pass forward and one back with the chain's arithmetic in its
// order, so bit for bit (linear.go). See BENCHMARKS.md for what they buy.
//
// An ODE node (OpODE, ode.go) solves y' = f(t, y, args) at given times
// with a small Program of its own for f, compiled from a user function's
// body, and carries forward sensitivities for its reverse pass; its
// solver is Dormand–Prince 5(4) or, for stiff systems, the Rosenbrock-W
// method ROS34PW2 (odestiff.go). An algebraic solve (OpAlgebraSolve,
// algebra.go) finds a root of f(y, args) = 0 the same way, f a small
// Program of its own, by Newton's method with a line search or Powell's
// dogleg, and its reverse pass follows the implicit function theorem.
//
// Comparison and logical nodes (Logical, Not) are step functions, 0 or 1
// per element: evaluated forward like any op, with no allocation, but
// passing no adjoint, their derivative being zero wherever it exists. gpp's
// outputs use them (the mean of mu > 0 over the draws is P(mu > 0)); the
// checker keeps them out of the log joint.
//
// A Program is not safe for concurrent use; build one per goroutine.
package autodiff
