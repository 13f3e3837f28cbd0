package qwen3

import (
	"math"
	"runtime"
	"sync"
)

// eachRow runs f(r, scratch) for every unit r < n (a row, or a row's
// attention head), interleaving units over the CPUs when work is large
// enough (prefill rows grow in cost with their position, so interleaving
// balances them); each goroutine has its own scratch of scratchLen floats.
// The calling goroutine takes the first share itself: below the threshold
// nothing is handed to another goroutine, whose waking and waiting cost a
// decoding step more CPU than its few heads (docs/benchmarks.md).
func eachRow(n, work int, f func(r int, scratch []float32), scratchLen int) {
	p := min(n, runtime.GOMAXPROCS(0))
	if work < eachRowMinWork {
		p = 1
	}
	share := func(w int) {
		scratch := getFloats(max(scratchLen, 1))[:scratchLen]
		for r := w; r < n; r += p {
			f(r, scratch)
		}
		putFloats(scratch)
	}
	var wg sync.WaitGroup
	for w := 1; w < p; w++ {
		wg.Go(func() { share(w) })
	}
	share(0)
	wg.Wait()
}

// eachRowMinWork is the least work (multiply-adds) eachRow spreads. A
// decoding step's attention at eight sequences of a hundred positions
// (some 3·10⁵) took less time than a goroutine's wake-up and park cost
// the other CPU, so spreading it lost per CPU-second and per second
// alike; from some 4·10⁶ (eight sequences at a thousand positions) the
// second CPU shortens the step.
var eachRowMinWork = 1 << 22 // a variable for tests

// rmsNorm writes y = x / sqrt(mean(x²) + eps) · weight over each row of
// width len(weight); the mean is accumulated in float64 (Qwen3RMSNorm
// computes in float32; the difference is below float32 rounding).
//
// Each row's sum of squares is one chain of float64 additions in index
// order, bound by the adder's latency; four rows go through one loop
// together, their chains overlapping, each with the bits of its own loop.
func rmsNorm(x, weight []float32, eps float64, y []float32) {
	n := len(weight)
	if n == 0 {
		return
	}
	rows := len(x) / n
	r := 0
	for ; r+4 <= rows; r += 4 {
		a, b, c, d := x[r*n:(r+1)*n], x[(r+1)*n:(r+2)*n], x[(r+2)*n:(r+3)*n], x[(r+3)*n:(r+4)*n]
		var sa, sb, sc, sd float64
		for i := range n {
			sa += float64(a[i]) * float64(a[i])
			sb += float64(b[i]) * float64(b[i])
			sc += float64(c[i]) * float64(c[i])
			sd += float64(d[i]) * float64(d[i])
		}
		for k, ss := range [4]float64{sa, sb, sc, sd} {
			normRow(x[(r+k)*n:(r+k+1)*n], weight, ss, eps, y[(r+k)*n:(r+k+1)*n])
		}
	}
	for ; r < rows; r++ {
		row := x[r*n : (r+1)*n]
		var ss float64
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		normRow(row, weight, ss, eps, y[r*n:(r+1)*n])
	}
}

// normRow writes out = row / sqrt(ss/n + eps) · weight, ss being row's
// sum of squares (out may be row).
func normRow(row, weight []float32, ss, eps float64, out []float32) {
	inv := float32(1 / math.Sqrt(ss/float64(len(row))+eps))
	out = out[:len(row)]
	for i, v := range row {
		out[i] = v * inv * weight[i]
	}
}

// ropeAt fills cos and sin (each of length d) for position p: element i
// and i+d/2 share the angle p·inv_freq[i] (emb = concat(freqs, freqs)).
func ropeAt(inv []float32, p int, cos, sin []float32) {
	h := len(inv)
	for i := range inv {
		c, s := RopeCosSin(RopeAngle(inv, p, i))
		cos[i], cos[i+h] = c, c
		sin[i], sin[i+h] = s, s
	}
}

// rotateHalf applies x·cos + rotate_half(x)·sin in place to one head
// vector, where rotate_half(x) = concat(-x[d/2:], x[:d/2]).
func rotateHalf(x, cos, sin []float32) {
	h := len(x) / 2
	for i := 0; i < h; i++ {
		a, b := x[i], x[i+h]
		x[i] = a*cos[i] - b*sin[i]
		x[i+h] = b*cos[i+h] + a*sin[i+h]
	}
}

func silu(x float32) float32 { return x / (1 + float32(math.Exp(float64(-x)))) }

// softmaxInPlace turns scores into probabilities (max-subtracted, float64
// sum).
func softmaxInPlace(s []float32) {
	mx := float32(math.Inf(-1))
	for _, v := range s {
		mx = max(mx, v)
	}
	var sum float64
	var buf [256]float64
	for lo := 0; lo < len(s); lo += len(buf) {
		c := s[lo:min(lo+len(buf), len(s))]
		e := buf[:len(c)]
		for i, v := range c {
			e[i] = float64(v - mx)
		}
		ExpNegs(e)
		for i, v := range e {
			c[i] = float32(v)
			sum += v
		}
	}
	inv := float32(1 / sum)
	for i := range s {
		s[i] *= inv
	}
}

// LogSoftmax returns log(softmax(logits/temperature)); temperature ≤ 0 is
// treated as 1. The sum of exponentials is taken with ExpNegs (1e-8
// relative error) in float64: samplers call this once per token over the
// whole vocabulary. A NaN or +Inf logit, or no finite one, makes every
// output NaN.
func LogSoftmax(logits []float32, temperature float32) []float32 {
	var buf [256]float64
	lp, _ := logSoftmax(logits, temperature, buf[:], false)
	return lp
}

// LogSoftmaxProbs is LogSoftmax that also returns the probabilities
// softmax(logits/temperature) in float64, from the same exponentials, so a
// sampler need not exponentiate the vocabulary again. The probabilities
// are written to probs when it is long enough (a sampler's scratch), else
// to a new slice.
func LogSoftmaxProbs(logits []float32, temperature float32, probs []float64) ([]float32, []float64) {
	if len(probs) < len(logits) {
		probs = make([]float64, len(logits))
	}
	return logSoftmax(logits, temperature, probs[:len(logits)], true)
}

// logSoftmax computes the log-probs, and with keep the probabilities in
// scratch (len(logits) long); without keep scratch is a buffer of any
// length the exponentials pass through.
func logSoftmax(logits []float32, temperature float32, scratch []float64, keep bool) ([]float32, []float64) {
	if temperature <= 0 {
		temperature = 1
	}
	// out first holds logits/T (a float32 division, as the log-probs use),
	// so each logit is divided once.
	out := make([]float32, len(logits))
	mx := math.Inf(-1)
	bad := false
	for i, v := range logits {
		q := v / temperature
		out[i] = q
		if x := float64(q); x > mx {
			mx = x
		} else if x != x {
			bad = true
		}
	}
	var p []float64
	if keep {
		p = scratch
	}
	if bad || math.IsInf(mx, 0) {
		for i := range out {
			out[i] = float32(math.NaN())
		}
		for i := range p {
			p[i] = math.NaN()
		}
		return out, p
	}
	var sum float64
	for lo := 0; lo < len(out); lo += len(scratch) {
		c := out[lo:min(lo+len(scratch), len(out))]
		e := scratch[:len(c)]
		if keep {
			e = p[lo : lo+len(c)]
		}
		for i, q := range c {
			e[i] = float64(q) - mx
		}
		ExpNegs(e)
		for _, v := range e {
			sum += v
		}
	}
	lse := mx + math.Log(sum)
	for i, q := range out {
		out[i] = float32(float64(q) - lse)
	}
	inv := 1 / sum
	for i := range p {
		p[i] *= inv
	}
	return out, p
}
