package report

// laneKernel turns on dotMany's four-column kernel (tests turn it off to
// compare with plain dot).
var laneKernel = true

// dotMany sets sums[k] = dot(w, cols[k]) for every column, bit for bit,
// four columns per pass over w: the kernel keeps each of dot's four
// partial sums per column in its own SIMD lane, and the tail and the final
// (s0+s1)+(s2+s3) are dot's own.
func dotMany(w []float64, cols [][]float64, sums []float64) {
	if !laneKernel {
		for k, x := range cols {
			sums[k] = dot(w, x)
		}
		return
	}
	n4 := len(w) &^ 3
	var out [16]float64
	for k := 0; k < len(cols); k += 4 {
		var four [4][]float64
		for j := range four {
			four[j] = cols[min(k+j, len(cols)-1)][:len(w)] // pad with the last column
		}
		dotLanes4(w[:n4], four[0], four[1], four[2], four[3], &out)
		for j := 0; j < 4 && k+j < len(cols); j++ {
			x := four[j]
			s0, s1, s2, s3 := out[4*j], out[4*j+1], out[4*j+2], out[4*j+3]
			for i := n4; i < len(w); i++ {
				s0 += w[i] * x[i]
			}
			sums[k+j] = (s0 + s1) + (s2 + s3)
		}
	}
}
