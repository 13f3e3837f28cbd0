package report

// laneKernel turns on dotBatch's SIMD kernels (tests turn it off to
// compare with plain dot).
var laneKernel = true

// dotChunk is how many rows of the columns dotBatch reads at a time: 512
// rows of 14 columns are 57 KiB, which stay in the core's cache while
// every weight vector of the batch takes its turn.
const dotChunk = 512

// dotBatch sets sums[b·len(cols)+k] = dot(ws[b], cols[k]) for every weight
// vector and column, bit for bit, eight columns per kernel call (AVX,
// wideKernel) or four: the kernel keeps each of dot's four partial sums
// per column in its own SIMD lane and adds to them chunk after chunk in
// ascending rows, so the sums are dot's whatever the chunking; the tail
// and the final (s0+s1)+(s2+s3) are dot's own. A last pass of fewer
// columns repeats the last column.
//
// A bootstrap's columns (25,000 paired episodes × 14 columns in a 100k
// comparison: 2.8 MB) outgrow the core's cache; read whole once per
// resample, the products waited on memory. In chunks, each chunk is read
// from memory once for all the resamples of a batch.
func dotBatch(ws [][]float64, cols [][]float64, sums []float64) {
	if !laneKernel {
		for b, w := range ws {
			for k, x := range cols {
				sums[b*len(cols)+k] = dot(w, x)
			}
		}
		return
	}
	if len(ws) == 0 || len(cols) == 0 {
		return
	}
	width := 4
	if wideKernel {
		width = 8
	}
	n := len(ws[0])
	n4 := n &^ 3
	passes := (len(cols) + width - 1) / width
	pass := make([][8][]float64, passes)
	for p := range pass {
		for j := range width {
			pass[p][j] = cols[min(p*width+j, len(cols)-1)][:n]
		}
	}
	acc := make([][32]float64, len(ws)*passes) // per vector and pass: the lanes' sums
	for i0 := 0; i0 < n4; i0 += dotChunk {
		i1 := min(i0+dotChunk, n4)
		for b, w := range ws {
			w := w[i0:i1]
			for p := range pass {
				x, out := &pass[p], &acc[b*passes+p]
				if width == 8 {
					dotLanes8(w, x[0][i0:i1], x[1][i0:i1], x[2][i0:i1], x[3][i0:i1],
						x[4][i0:i1], x[5][i0:i1], x[6][i0:i1], x[7][i0:i1], out)
				} else {
					dotLanes4(w, x[0][i0:i1], x[1][i0:i1], x[2][i0:i1], x[3][i0:i1], (*[16]float64)(out[:16]))
				}
			}
		}
	}
	for b, w := range ws {
		for k := range cols {
			p, j := k/width, k%width
			x, out := pass[p][j], &acc[b*passes+p]
			s0, s1, s2, s3 := out[4*j], out[4*j+1], out[4*j+2], out[4*j+3]
			for i := n4; i < n; i++ {
				s0 += w[i] * x[i]
			}
			sums[b*len(cols)+k] = (s0 + s1) + (s2 + s3)
		}
	}
}
