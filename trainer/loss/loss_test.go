package loss

import (
	"math"
	"math/rand/v2"
	"testing"
)

const fdStep = 1e-6

func randMat(rng *rand.Rand, rows, cols int, scale, shift float64) [][]float64 {
	m := make([][]float64, rows)
	for i := range m {
		m[i] = make([]float64, cols)
		for j := range m[i] {
			m[i][j] = shift + scale*rng.NormFloat64()
		}
	}
	return m
}

// checkGrad compares an analytic gradient of f with central differences
// over every element of x.
func checkGrad(t *testing.T, name string, x [][]float64, grad [][]float64, f func() float64) {
	t.Helper()
	for i := range x {
		for j := range x[i] {
			o := x[i][j]
			x[i][j] = o + fdStep
			up := f()
			x[i][j] = o - fdStep
			down := f()
			x[i][j] = o
			fd := (up - down) / (2 * fdStep)
			if math.Abs(fd-grad[i][j]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s[%d][%d]: analytic %g, finite difference %g", name, i, j, grad[i][j], fd)
			}
		}
	}
}

func TestGRPOGradientMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const B, C = 4, 5
	mask := randMat(rng, B, C, 0, 1)
	mask[1][4], mask[2][3], mask[2][4] = 0, 0, 0 // after EOS
	for _, lt := range []string{LossGRPO, LossBNPO, LossDrGRPO, LossDAPO} {
		for _, seq := range []bool{false, true} {
			for _, delta := range []float64{0, 1.15} {
				logp := randMat(rng, B, C, 0.5, -1.5)
				old := randMat(rng, B, C, 0, 0)
				for i := range old {
					for j := range old[i] {
						old[i][j] = logp[i][j] + 0.25*rng.NormFloat64() // some ratios outside [0.8, 1.28]
					}
				}
				in := GRPOInput{LogP: logp, OldLogP: old, RefLogP: randMat(rng, B, C, 0.5, -1.5), Mask: mask,
					Advantages: []float64{1.2, -0.7, 0.3, -0.8}}
				cfg := GRPOConfig{Beta: 0.04, Epsilon: 0.2, EpsilonHigh: 0.28, Delta: delta, LossType: lt, Sequence: seq,
					MaxCompletionLength: C, GradAccum: 2, NumItemsInBatch: 30}
				res, err := GRPO(cfg, in)
				if err != nil {
					t.Fatal(err)
				}
				f := func() float64 { r, _ := GRPO(cfg, in); return r.Loss }
				checkGrad(t, lt, logp, res.DLogP, f)
				if res.KL <= 0 {
					t.Errorf("%s: k3 KL %g, want > 0", lt, res.KL)
				}
			}
		}
	}
}

// TestGRPOOnPolicyValue checks TRL's value at ratio 1 without KL: the
// grpo loss is −mean_i A_i and each token of row i gets −A_i/(n_i·B).
func TestGRPOOnPolicyValue(t *testing.T) {
	logp := [][]float64{{-1, -2, -3}, {-1, -1, -1}}
	mask := [][]float64{{1, 1, 0}, {1, 1, 1}}
	res, err := GRPO(GRPOConfig{Epsilon: 0.2, LossType: LossGRPO}, GRPOInput{LogP: logp, Mask: mask, Advantages: []float64{1, -0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Loss-(-0.25)) > 1e-12 {
		t.Errorf("loss %g, want -0.25", res.Loss)
	}
	if g := res.DLogP[0][0]; math.Abs(g-(-0.25)) > 1e-12 {
		t.Errorf("seed %g, want -0.25", g)
	}
	if g := res.DLogP[0][2]; g != 0 {
		t.Errorf("masked token seed %g, want 0", g)
	}
	if res.ClipRatio != 0 {
		t.Errorf("clip ratio %g on policy", res.ClipRatio)
	}
}

func TestGroupAdvantages(t *testing.T) {
	adv, err := GroupAdvantages([]float64{1, 2, 5, 5}, 2, ScaleGroup)
	if err != nil {
		t.Fatal(err)
	}
	want := -0.5 / (math.Sqrt(0.5) + 1e-4)
	if math.Abs(adv[0]-want) > 1e-12 || math.Abs(adv[1]+want) > 1e-12 || adv[2] != 0 || adv[3] != 0 {
		t.Errorf("group advantages %v, want [%g %g 0 0]", adv, want, -want)
	}
	adv, _ = GroupAdvantages([]float64{1, 3, math.NaN(), 2}, 2, ScaleNone)
	if adv[0] != -1 || adv[1] != 1 || adv[2] != 0 || adv[3] != 0 {
		t.Errorf("unscaled advantages with NaN %v", adv)
	}
	adv, _ = GroupAdvantages([]float64{0, 2, 4, 6}, 2, ScaleBatch)
	bstd := math.Sqrt((9 + 1 + 1 + 9) / 3.0)
	if math.Abs(adv[0]-(-1/(bstd+1e-4))) > 1e-12 {
		t.Errorf("batch-scaled advantage %g", adv[0])
	}
	if _, err := GroupAdvantages([]float64{1, 2, 3}, 2, ScaleGroup); err == nil {
		t.Error("3 rewards in groups of 2 accepted")
	}
}

func TestBradleyTerryGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randMat(rng, 3, 4, 1, 0) // chosen, rejected, margin rows
	res, err := BradleyTerry(x[0], x[1], x[2], 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f := func() float64 { r, _ := BradleyTerry(x[0], x[1], x[2], 0.01); return r.Loss }
	checkGrad(t, "bt", x[:2], [][]float64{res.DChosen, res.DRejected}, f)
	r, _ := BradleyTerry([]float64{2}, []float64{0}, nil, 0)
	if math.Abs(r.Loss-math.Log1p(math.Exp(-2))) > 1e-12 || r.Accuracy != 1 || r.Margin != 2 {
		t.Errorf("bt value %+v", r)
	}
}

func TestDPOGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randMat(rng, 4, 3, 3, -10)
	res, err := DPOSigmoid(0.1, x[0], x[1], x[2], x[3])
	if err != nil {
		t.Fatal(err)
	}
	f := func() float64 { r, _ := DPOSigmoid(0.1, x[0], x[1], x[2], x[3]); return r.Loss }
	checkGrad(t, "dpo", x[:2], [][]float64{res.DChosen, res.DRejected}, f)
	r, _ := DPOSigmoid(0.5, []float64{-1}, []float64{-3}, []float64{-2}, []float64{-2})
	if math.Abs(r.Loss+LogSigmoid(0.5*2)) > 1e-12 || math.Abs(r.Margin-1) > 1e-12 {
		t.Errorf("dpo value %+v", r)
	}
}

func TestMaskedNLLGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	lp := randMat(rng, 2, 4, 1, -2)
	mask := [][]float64{{0, 1, 1, 1}, {0, 0, 1, 0}}
	res, err := MaskedNLL(lp, mask, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := func() float64 { r, _ := MaskedNLL(lp, mask, 0); return r.Loss }
	checkGrad(t, "nll", lp, res.DLogP, f)
	if res.Tokens != 4 {
		t.Errorf("tokens %g, want 4", res.Tokens)
	}
}

func TestMasks(t *testing.T) {
	m := CompletionMask([]int{5, 7, 2, 9, 9}, 2, false)
	if want := []float64{1, 1, 1, 0, 0}; !equal(m, want) {
		t.Errorf("mask %v, want %v", m, want)
	}
	if m := CompletionMask([]int{5, 7}, 2, true); !equal(m, []float64{0, 0}) {
		t.Errorf("truncated mask %v", m)
	}
	if i := LastNonPad([]int{4, 5, 0, 0}, 0); i != 1 {
		t.Errorf("last non-pad %d, want 1", i)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
