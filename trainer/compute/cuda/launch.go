//go:build cuda

package cuda

// threads is the block size of every kernel: a multiple of 32, as the
// block reductions need.
const threads = 256

// maxGrid bounds grid.x of the grid-stride kernels (they loop over the
// rest), and maxGridY grid.y.
const (
	maxGrid  = 1 << 20
	maxGridY = 65535
)

// blocksFor is the grid of a grid-stride kernel over n elements.
func blocksFor(n int) int {
	return max(1, min(maxGrid, (n+threads-1)/threads))
}

// launch queues kernel name on grid×threads with args, checked against
// the kernel's declared parameters.
func (b *Backend) launch(op, name string, grid [2]int, args ...any) {
	if b.err != nil {
		return
	}
	fn, ok := b.st.fns[name]
	if !ok {
		b.fail(op, "kernel %s was not loaded", name)
		return
	}
	p, err := packArgs(name, kernelSigs[name], args)
	if b.failErr(op, err) {
		return
	}
	gy := max(1, grid[1])
	b.failErr(op, b.st.api.launch(fn, [3]int{max(1, grid[0]), gy, 1}, [3]int{threads, 1, 1}, 0, b.stream, p))
}

// launch1 launches a grid-stride kernel over n elements.
func (b *Backend) launch1(op, name string, n int, args ...any) {
	b.launch(op, name, [2]int{blocksFor(n), 1}, args...)
}

// launchRows launches a kernel with one block per row (grid-stride over
// rows beyond maxGrid).
func (b *Backend) launchRows(op, name string, rows int, args ...any) {
	b.launch(op, name, [2]int{max(1, min(maxGrid, rows)), 1}, args...)
}
