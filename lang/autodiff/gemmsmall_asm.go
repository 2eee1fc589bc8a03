//go:build amd64 && !noasm && !gccgo && !safe

package autodiff

// gemmSmallOK says gemmSmall repeats gonum's Dgemm bit for bit: true where
// gonum's f64 kernels are its amd64 assembly (unfused, four partial sums),
// which gemmSmall is written after.
const gemmSmallOK = true
