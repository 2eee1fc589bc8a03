//go:build !amd64 || noasm || gccgo || safe

package autodiff

// gemmSmallOK is false where gonum's f64 kernels are its pure Go loops
// (one running sum, fused into FMAs on arm64), which gemmSmall does not
// repeat: every product goes to Dgemm, so fits keep their bits.
const gemmSmallOK = false
