package qwen3

// kChunk is the inner length the chunked eight-row kernel (dot8x3zk)
// takes at a time, fixed in its assembly (rows 2 KiB apart): eight rows
// of it are 16 KiB, which L1 keeps beside the weight stream.
const kChunk = 512

// chunkedInner says whether an eight-row product over in inner floats
// goes by chunks: when the eight rows would not stay in L1 (more than
// 1,024 floats each; at 1,024 whole rows were faster, at 1,536 and
// 3,072 chunks, docs/benchmarks.md) and in is a whole number of chunks.
func chunkedInner(in int) bool {
	return zmmKernels && in > 2*kChunk && in%kChunk == 0
}

// matmulT8k is matmulT for eight rows (x holds exactly eight) when
// chunkedInner(in): the rows' chunks are packed once, then each CPU's
// range of outputs goes chunk by chunk through dot8x3zk. Every output
// gets the AVX-512 family's one arithmetic, as on every other path.
func matmulT8k(x []float32, in int, w []float32, out int, y []float32, acc bool) {
	nc := in / kChunk
	xp := getFloats(8 * in)[:8*in]
	for c := range nc {
		for r := range 8 {
			copy(xp[(c*8+r)*kChunk:(c*8+r+1)*kChunk], x[r*in+c*kChunk:])
		}
	}
	parallelFor(out, productWork(8, in, out), colAlign, func(lo, hi int) {
		dotsT8k(x, xp, in, w, lo, hi, y, out, acc)
	})
	putFloats(xp)
}

// dotsT8k computes the outputs lo ≤ j < hi of matmulT8k: outputs lo+i,
// lo+i+g, lo+i+2g together as dotsTz's eight-row blocks do (three long
// streams through the range), all of them over one chunk before the
// next, and the outputs beyond 3g one by one from the unpacked rows.
func dotsT8k(x, xp []float32, in int, w []float32, lo, hi int, y []float32, ldy int, acc bool) {
	g := (hi - lo) / 3
	if g > 0 {
		const partLen = 24 * 16
		part := getFloats(g * partLen)[:g*partLen]
		nc := in / kChunk
		for c := range nc {
			mode := 0
			if c > 0 {
				mode |= 1
			}
			if c == nc-1 {
				mode |= 2
			}
			for i := range g {
				dot8x3zk(&xp[c*8*kChunk], &w[(lo+i)*in+c*kChunk], g*in, 4*in, &part[i*partLen], mode, &y[lo+i], ldy, g, acc)
			}
		}
		putFloats(part)
	}
	for j := lo + 3*g; j < hi; j++ {
		for r := range 8 {
			dot1x1z(&x[r*in], &w[j*in], in, &y[r*ldy+j], acc)
		}
	}
}
