package report

// laneKernel turns on dotMany's SIMD kernels (tests turn it off to
// compare with plain dot).
var laneKernel = true

// dotMany sets sums[k] = dot(w, cols[k]) for every column, bit for bit,
// eight columns per pass over w (AVX, wideKernel) or four: the kernel
// keeps each of dot's four partial sums per column in its own SIMD lane,
// and the tail and the final (s0+s1)+(s2+s3) are dot's own. A last pass
// of fewer columns repeats the last column.
func dotMany(w []float64, cols [][]float64, sums []float64) {
	if !laneKernel {
		for k, x := range cols {
			sums[k] = dot(w, x)
		}
		return
	}
	width := 4
	if wideKernel {
		width = 8
	}
	n4 := len(w) &^ 3
	var out [32]float64
	var pass [8][]float64
	for k := 0; k < len(cols); k += width {
		for j := range width {
			pass[j] = cols[min(k+j, len(cols)-1)][:len(w)]
		}
		if width == 8 {
			dotLanes8(w[:n4], pass[0], pass[1], pass[2], pass[3], pass[4], pass[5], pass[6], pass[7], &out)
		} else {
			dotLanes4(w[:n4], pass[0], pass[1], pass[2], pass[3], (*[16]float64)(out[:16]))
		}
		for j := 0; j < width && k+j < len(cols); j++ {
			x := pass[j]
			s0, s1, s2, s3 := out[4*j], out[4*j+1], out[4*j+2], out[4*j+3]
			for i := n4; i < len(w); i++ {
				s0 += w[i] * x[i]
			}
			sums[k+j] = (s0 + s1) + (s2 + s3)
		}
	}
}
