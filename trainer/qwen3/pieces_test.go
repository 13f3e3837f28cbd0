package qwen3

import (
	"math"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestRMSNormByHand(t *testing.T) {
	// Row [3, 4]: mean square 12.5, rms √12.5; weight is a plain multiplier.
	x := []float32{3, 4, 0, 2}
	y := make([]float32, 4)
	rmsNorm(x, []float32{1, 2}, 0, y)
	r := math.Sqrt(12.5)
	want := []float64{3 / r, 2 * 4 / r, 0, 2 * 2 / math.Sqrt(2)}
	for i := range want {
		if !near(float64(y[i]), want[i], 1e-6) {
			t.Fatalf("y[%d] = %v, want %v", i, y[i], want[i])
		}
	}
}

func TestRoPERotateHalfByHand(t *testing.T) {
	// d=4, theta=10000: inv_freq = [1, 10000^-0.5 = 0.01]. At position 1
	// element i pairs with i+2 (not i+1): (x0,x2) turn by 1 rad, (x1,x3)
	// by 0.01 rad.
	inv := RopeInvFreq(10000, 4)
	if !near(float64(inv[0]), 1, 0) || !near(float64(inv[1]), 0.01, 1e-9) {
		t.Fatalf("inv_freq %v", inv)
	}
	cos, sin := make([]float32, 4), make([]float32, 4)
	ropeAt(inv, 1, cos, sin)
	x := []float32{1, 2, 3, 4}
	rotateHalf(x, cos, sin)
	c1, s1, c2, s2 := math.Cos(1), math.Sin(1), math.Cos(0.01), math.Sin(0.01)
	want := []float64{1*c1 - 3*s1, 2*c2 - 4*s2, 3*c1 + 1*s1, 4*c2 + 2*s2}
	for i := range want {
		if !near(float64(x[i]), want[i], 1e-6) {
			t.Fatalf("x[%d] = %v, want %v", i, x[i], want[i])
		}
	}
	// Position 0 is the identity.
	ropeAt(inv, 0, cos, sin)
	y := []float32{1, 2, 3, 4}
	rotateHalf(y, cos, sin)
	if y[0] != 1 || y[1] != 2 || y[2] != 3 || y[3] != 4 {
		t.Fatalf("position 0 changed the vector: %v", y)
	}
}

func TestGQAHeadMapping(t *testing.T) {
	// Qwen3-0.6B: 16 query heads, 8 kv heads → pairs of contiguous heads.
	want := []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}
	for h, j := range want {
		if got := kvHead(h, 16, 8); got != j {
			t.Fatalf("head %d → kv %d, want %d", h, got, j)
		}
	}
	// Qwen3-8B: 32/8 → blocks of four.
	if kvHead(3, 32, 8) != 0 || kvHead(4, 32, 8) != 1 || kvHead(31, 32, 8) != 7 {
		t.Fatal("8B mapping")
	}
}

func TestSoftmaxAndLogSoftmax(t *testing.T) {
	s := []float32{1, 2, 3}
	softmaxInPlace(s)
	e := []float64{math.Exp(1), math.Exp(2), math.Exp(3)}
	z := e[0] + e[1] + e[2]
	for i := range s {
		if !near(float64(s[i]), e[i]/z, 1e-7) {
			t.Fatalf("softmax %v", s)
		}
	}
	lp := LogSoftmax([]float32{1, 2, 3}, 2)
	z2 := math.Exp(0.5) + math.Exp(1) + math.Exp(1.5)
	if !near(float64(lp[2]), 1.5-math.Log(z2), 1e-6) {
		t.Fatalf("log-softmax at T=2: %v", lp)
	}
	// Over a vocabulary-sized row with masked entries, the probabilities
	// match exp of the log-probs and sum to 1.
	lg := make([]float32, 3000)
	for i := range lg {
		lg[i] = float32((i*7919)%1013)/50 - 10
		if i%17 == 0 {
			lg[i] = float32(math.Inf(-1))
		}
	}
	lp2, p := LogSoftmaxProbs(lg, 0.7, nil)
	if !slices.Equal(lp2, LogSoftmax(lg, 0.7)) {
		t.Fatal("LogSoftmaxProbs's log-probs differ from LogSoftmax's")
	}
	var sum float64
	for i, v := range p {
		sum += v
		if !near(v, math.Exp(float64(lp2[i])), 1e-6) {
			t.Fatalf("p[%d] = %v, exp(log-prob) = %v", i, v, math.Exp(float64(lp2[i])))
		}
	}
	if !near(sum, 1, 1e-9) {
		t.Fatalf("probabilities sum to %v", sum)
	}
	for _, bad := range [][]float32{{1, float32(math.NaN())}, {float32(math.Inf(1)), 0}, {float32(math.Inf(-1))}} {
		if lp, p := LogSoftmaxProbs(bad, 1, nil); !math.IsNaN(float64(lp[0])) || !math.IsNaN(p[0]) {
			t.Errorf("LogSoftmaxProbs(%v) = %v, %v, want NaN", bad, lp, p)
		}
	}
}

func TestConfigShapesOfQwen3_0_6B(t *testing.T) {
	c := Qwen3_0_6B()
	s := c.Shapes()
	check := map[string][]int{
		"model.embed_tokens.weight":                      {151936, 1024},
		"model.layers.0.self_attn.q_proj.weight":         {2048, 1024},
		"model.layers.27.self_attn.k_proj.weight":        {1024, 1024},
		"model.layers.5.self_attn.o_proj.weight":         {1024, 2048},
		"model.layers.5.self_attn.q_norm.weight":         {128},
		"model.layers.5.mlp.down_proj.weight":            {1024, 3072},
		"model.layers.5.post_attention_layernorm.weight": {1024},
	}
	for k, want := range check {
		got := s[k]
		if len(got) != len(want) || got[0] != want[0] || (len(want) > 1 && got[1] != want[1]) {
			t.Errorf("%s: %v, want %v", k, got, want)
		}
	}
	if _, ok := s[HeadKey]; ok {
		t.Error("tied 0.6B must not list lm_head")
	}
	if len(s) != 2+28*11 {
		t.Errorf("%d tensors, want %d", len(s), 2+28*11)
	}
	if n := c.NumParams(); n != 596049920 {
		t.Errorf("0.6B has %d parameters, want 596049920", n)
	}
}

func TestParseConfig(t *testing.T) {
	top := `{"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":10,"hidden_size":8,
	"intermediate_size":16,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":null,
	"head_dim":4,"hidden_act":"silu","rms_norm_eps":1e-06,"rope_theta":1000000,"rope_scaling":null,
	"tie_word_embeddings":true,"eos_token_id":[7,8],"sliding_window":null}`
	c, err := ParseConfig([]byte(top))
	if err != nil {
		t.Fatal(err)
	}
	if c.RopeTheta != 1e6 || c.NumKeyValueHeads != 2 || c.EOSTokenID != 7 || !c.TieWordEmbeddings {
		t.Fatalf("%+v", c)
	}
	nested := `{"vocab_size":10,"hidden_size":8,"intermediate_size":16,"num_hidden_layers":1,
	"num_attention_heads":2,"num_key_value_heads":1,
	"rope_parameters":{"rope_type":"default","rope_theta":5000}}`
	c, err = ParseConfig([]byte(nested))
	if err != nil {
		t.Fatal(err)
	}
	if c.RopeTheta != 5000 || c.HeadDim != 4 || c.RMSNormEps != 1e-6 {
		t.Fatalf("%+v", c)
	}
	bad := `{"vocab_size":10,"hidden_size":8,"intermediate_size":16,"num_hidden_layers":1,
	"num_attention_heads":3,"num_key_value_heads":2,"head_dim":4,"rope_theta":1}`
	if _, err := ParseConfig([]byte(bad)); err == nil {
		t.Fatal("3 heads over 2 kv heads accepted")
	}
}

// TestMatmulRowInvariant checks that a row's product has the same bits
// whatever the number of rows in the call (one included), with and
// without accumulation, with every kernel family this CPU runs (AVX-512,
// AVX2/FMA, portable), for inner sizes each family takes (multiples of 16,
// of 8, odd and even multiples) and ones they leave to the next, for every
// row count 1–9 and counts that leave one to seven rows beyond a multiple
// of eight (the AVX-512 family's eight-row kernel, its overlapping last
// call and its four-row and one-row kernels), and that the products are right
// (against float64).
func TestMatmulRowInvariant(t *testing.T) {
	for _, fma := range kernelFamilies(t) {
		useKernels(fma)
		for _, in := range []int{192, 36, 8, 24, 48, 80} {
			for _, out := range []int{8, 13, 64, 389} {
				checkRowInvariant(t, fma, in, out)
			}
		}
	}
}

func checkRowInvariant(t *testing.T, fma string, in, out int) {
	t.Helper()
	const maxRows = 140
	w, x, acc := make([]float32, out*in), make([]float32, maxRows*in), make([]float32, maxRows*out)
	for i := range w {
		w[i] = float32((i*7919)%1013)/1013 - 0.5
	}
	for i := range x {
		x[i] = float32((i*104729)%997)/997 - 0.5
	}
	for i := range acc {
		acc[i] = float32(i%17) / 17
	}
	for _, accumulate := range []bool{false, true} {
		ref := map[int][]float32{}
		for _, rows := range []int{maxRows, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 64, 65, 71, 72, 130} {
			y := slices.Clone(acc[:rows*out])
			matmulT(x[:rows*in], rows, in, w, out, y, accumulate)
			for r := range rows {
				got := y[r*out : (r+1)*out]
				want, ok := ref[r]
				if !ok {
					ref[r] = got
					for j := range got {
						var exact float64
						if accumulate {
							exact = float64(acc[r*out+j])
						}
						for k := range in {
							exact += float64(x[r*in+k]) * float64(w[j*in+k])
						}
						if math.Abs(float64(got[j])-exact) > 1e-4 {
							t.Fatalf("kernels %s in %d out %d: row %d col %d is %v, want %v", fma, in, out, r, j, got[j], exact)
						}
					}
					continue
				}
				for j := range got {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("kernels %s in %d out %d accumulate %v: row %d col %d is %v in a batch of %d rows, %v in a batch of %d",
							fma, in, out, accumulate, r, j, got[j], rows, want[j], maxRows)
					}
				}
			}
		}
	}
}

// TestMatmulPaddedRows checks the five-to-seven-row path (matmulT8): the
// outputs of each row have the bits of that row alone, and nothing past
// the rows' outputs is written.
func TestMatmulPaddedRows(t *testing.T) {
	for _, fma := range kernelFamilies(t) {
		useKernels(fma)
		const in, out = 64, 53
		w, x := make([]float32, out*in), make([]float32, 7*in)
		for i := range w {
			w[i] = float32((i*7919)%1013)/1013 - 0.5
		}
		for i := range x {
			x[i] = float32((i*104729)%997)/997 - 0.5
		}
		for rows := 5; rows <= 7; rows++ {
			y := make([]float32, (rows+1)*out)
			for i := range y {
				y[i] = 42
			}
			matmulT(x[:rows*in], rows, in, w, out, y[:rows*out], false)
			for r := range rows {
				one := make([]float32, out)
				matmulT(x[r*in:(r+1)*in], 1, in, w, out, one, false)
				for j := range out {
					if math.Float32bits(y[r*out+j]) != math.Float32bits(one[j]) {
						t.Fatalf("%s: %d rows, row %d output %d: %v, alone %v", fma, rows, r, j, y[r*out+j], one[j])
					}
				}
			}
			for i := rows * out; i < len(y); i++ {
				if y[i] != 42 {
					t.Fatalf("%s: %d rows wrote past its outputs at %d", fma, rows, i)
				}
			}
			// An empty inner dimension gives zeros, as on every other path.
			matmulT(nil, rows, 0, nil, out, y[:rows*out], false)
			for i := range rows * out {
				if y[i] != 0 {
					t.Fatalf("%s: %d rows of inner size 0: output %d is %v", fma, rows, i, y[i])
				}
			}
		}
	}
}

// TestRMSNormRowsTogether checks rmsNorm, which sums four rows' squares in
// one loop, against one plain loop per row, bit for bit, for one to nine
// rows, in place and not.
func TestRMSNormRowsTogether(t *testing.T) {
	const n = 67
	w := make([]float32, n)
	for i := range w {
		w[i] = float32((i*31)%19)/7 - 1
	}
	for rows := 1; rows <= 9; rows++ {
		x := make([]float32, rows*n)
		for i := range x {
			x[i] = float32((i*104729)%997)/97 - 5
		}
		want := make([]float32, len(x))
		for r := range rows {
			var ss float64
			for _, v := range x[r*n : (r+1)*n] {
				ss += float64(v) * float64(v)
			}
			inv := float32(1 / math.Sqrt(ss/n+1e-6))
			for i := range n {
				want[r*n+i] = x[r*n+i] * inv * w[i]
			}
		}
		y := make([]float32, len(x))
		rmsNorm(x, w, 1e-6, y)
		rmsNorm(x, w, 1e-6, x)
		for i := range want {
			if math.Float32bits(y[i]) != math.Float32bits(want[i]) || math.Float32bits(x[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d rows, value %d: %v (in place %v), one loop per row %v", rows, i, y[i], x[i], want[i])
			}
		}
	}
}
