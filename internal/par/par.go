// Package par is how a computation borrows goroutines that would otherwise
// wait. The inference engine (infer/sgvb) owns the goroutines and lends
// them as a Team while its helpers would idle; the autodiff tape
// (lang/autodiff) knows which of its operations split into parts.
//
// A split must not change the arithmetic of any output element (rows of a
// matrix product are computed as they would be whole), so that results do
// not depend on the size of the team.
package par

// Task is work in parts that write disjoint memory.
type Task interface {
	// RunPart does part i of n.
	RunPart(i, n int)
}

// Team runs the parts of tasks at once.
type Team interface {
	// Size is the number of parts Run runs at once now; 1 means no help
	// is available at the moment.
	Size() int
	// Run runs parts 0 … Size()−1 of t, part 0 on the calling goroutine,
	// and returns when all are done.
	Run(t Task)
}
