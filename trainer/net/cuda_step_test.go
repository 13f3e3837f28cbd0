//go:build cuda

package net

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"mascot.dev/mascot/internal/testgate"
	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cuda"
	"mascot.dev/mascot/trainer/compute/cuda/cudatest"
	"mascot.dev/mascot/trainer/loss"
	"mascot.dev/mascot/trainer/optim"
	"mascot.dev/mascot/trainer/pass"
	"mascot.dev/mascot/trainer/qwen3"
)

// One reward-model step and one GRPO step of a tiny Qwen3, on the cuda
// backend and on the CPU backend from the same weights and adapter:
// loss, outputs, every trainable gradient and the parameters after one
// AdamW step must agree. On the GPU with MASCOT_GPU=1, else on the CUDA
// emulator (cudatest).

func TestMain(m *testing.M) {
	code := m.Run()
	cudatest.Cleanup()
	os.Exit(code)
}

// precisions are the cuda precisions the steps run in, each with its
// tolerance against the CPU. F32 products agree element by element to
// float32 rounding, |cuda − cpu| ≤ 1e-4·(|cpu| + rms(cpu)): the exact
// check of the backend's arithmetic under a real network. BF16 rounds
// attention's operands, probabilities and dS to bfloat16 (FlashAttention's
// precision; these tiny models have no BF16 weights, so attention is the
// only difference), and a gradient that sums many such terms with
// cancellation (a reward model's: chosen minus rejected) moves by more
// than one rounding: there each tensor is held to a relative L2 error
// ‖cuda − cpu‖ ≤ 0.15·‖cpu‖, which catches a wrong kernel (errors of
// order 1) while admitting what the emulator measured, 0.082 at most on
// the reward-model step and 0.020 on the GRPO step.
var precisions = []struct {
	name string
	p    cuda.Precision
	tol  float64
	l2   bool
}{{"f32", cuda.F32, 1e-4, false}, {"bf16", cuda.BF16, 0.15, true}}

func stepConfig() qwen3.Config {
	return qwen3.Config{ModelType: "qwen3", HiddenAct: "silu", VocabSize: 97, HiddenSize: 48, IntermediateSize: 80,
		NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 16, RMSNormEps: 1e-6, RopeTheta: 1e6}
}

// stepResult is what one step left: the loss, the pass's outputs at the
// wanted positions, each trainable gradient and each value after AdamW.
type stepResult struct {
	loss          float64
	outputs       []float64
	grads, values map[string][]float32
}

// finish downloads the gradients, runs one AdamW step on the backend and
// downloads the updated values.
func finish(t *testing.T, m *Model, r *stepResult) {
	t.Helper()
	r.grads, r.values = map[string][]float32{}, map[string][]float32{}
	for _, p := range m.TrainParams() {
		r.grads[p.Name] = download(m.be, p.Grad)
	}
	opt, err := optim.NewDevice(optim.Config{LR: 1e-3, WeightDecay: 0.01}, m.be, m.TrainParams())
	if err != nil {
		t.Fatal(err)
	}
	defer opt.Close()
	if _, err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.TrainParams() {
		r.values[p.Name] = download(m.be, p.Value)
	}
}

// closeTo fails unless every element of got is within tol·(|want| +
// rms(want)) of want, or, with l2, unless ‖got − want‖ ≤ tol·‖want‖.
func closeTo(t *testing.T, what string, got, want []float64, tol float64, l2 bool) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var ss, dd float64
	for i, w := range want {
		ss += w * w
		dd += (got[i] - w) * (got[i] - w)
	}
	rel := math.Sqrt(dd / math.Max(ss, 1e-300))
	if l2 {
		if !(rel <= tol) {
			t.Errorf("%s: relative L2 error %.3g, above %g", what, rel, tol)
		}
		return rel
	}
	rms := math.Sqrt(ss / float64(max(1, len(want))))
	for i := range got {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*(math.Abs(want[i])+rms)) {
			t.Errorf("%s[%d]: cuda %.7g, cpu %.7g (|Δ| %.3g, bound %.3g)", what, i, got[i], want[i], d, tol*(math.Abs(want[i])+rms))
			break
		}
	}
	return rel
}

func widen32(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func compareSteps(t *testing.T, got, want stepResult, tol float64, l2 bool) {
	t.Helper()
	closeTo(t, "loss", []float64{got.loss}, []float64{want.loss}, tol, false)
	worst := closeTo(t, "outputs", got.outputs, want.outputs, tol, l2)
	if len(got.grads) != len(want.grads) || len(want.grads) == 0 {
		t.Fatalf("%d trainable gradients on cuda, %d on the CPU", len(got.grads), len(want.grads))
	}
	for name, w := range want.grads {
		worst = max(worst, closeTo(t, "gradient of "+name, widen32(got.grads[name]), widen32(w), tol, l2))
		worst = max(worst, closeTo(t, name+" after AdamW", widen32(got.values[name]), widen32(want.values[name]), tol, l2))
	}
	t.Logf("loss cuda %.7g cpu %.7g; largest relative L2 error of the outputs, gradients and updated values: %.3g",
		got.loss, want.loss, worst)
}

// rmStep is one Bradley–Terry step over four pairs of rows of different
// lengths (rows 2i and 2i+1 are pair i's chosen and rejected).
func rmStep(t *testing.T, be compute.Backend) stepResult {
	cfg := stepConfig()
	lc := pass.LoRAConfig{R: 4, Alpha: 8}
	m, err := New(be, cfg, FromWeights(randomWeights(cfg, 1)),
		Options{LoRA: &lc, Train: pass.TrainLoRAAndScore, ScoreHead: true, Seed: 3, InitLoRA: randomAdapter(cfg, lc, 2)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rows := randomRows(rand.New(rand.NewPCG(5, 6)), cfg.VocabSize, 17, 9, 30, 30, 5, 12, 21, 2)
	at := make([]int, len(rows))
	for i, r := range rows {
		at[i] = len(r) - 1
	}
	var r stepResult
	_, err = m.BackwardScores(bg, pass.Batch{IDs: rows}, pass.RunOptions{ScoreAt: at}, func(score [][]float64) ([][]float64, error) {
		var ch, rej []float64
		for i := 0; i < len(rows); i += 2 {
			ch, rej = append(ch, score[i][at[i]]), append(rej, score[i+1][at[i+1]])
			r.outputs = append(r.outputs, score[i][at[i]], score[i+1][at[i+1]])
		}
		bt, err := loss.BradleyTerry(ch, rej, nil, 0.01)
		if err != nil {
			return nil, err
		}
		r.loss = bt.Loss
		seed := make([][]float64, len(rows))
		for i := range seed {
			seed[i] = make([]float64, len(score[i]))
		}
		for p := range ch {
			seed[2*p][at[2*p]], seed[2*p+1][at[2*p+1]] = bt.DChosen[p], bt.DRejected[p]
		}
		return seed, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	finish(t, m, &r)
	return r
}

// grpoStep is one GRPO step (dapo, β = 0.04, so the adapter-disabled
// reference pass runs too) over two prompts with three completions each,
// on one of the equivalence tests' random configs with a tied head.
func grpoStep(t *testing.T, be compute.Backend) stepResult {
	cfg := randomConfig(rand.New(rand.NewPCG(12, 13)), true)
	lc := pass.LoRAConfig{R: 4, Alpha: 8, Dropout: 0.1}
	m, err := New(be, cfg, FromWeights(randomWeights(cfg, 7)),
		Options{LoRA: &lc, Train: pass.TrainLoRA, Seed: 3, InitLoRA: randomAdapter(cfg, lc, 8)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(9, 10))
	prompts := randomRows(rng, cfg.VocabSize, 7, 11)
	var rows [][]int
	var from []int
	for _, p := range prompts {
		for _, n := range []int{5, 9, 3} {
			rows = append(rows, append(append([]int{}, p...), randomRows(rng, cfg.VocabSize, n)[0]...))
			from = append(from, len(p)-1)
		}
	}
	T := 0
	for _, r := range rows {
		T = max(T, len(r))
	}
	mask := make([][]float64, len(rows))
	for i, r := range rows {
		mask[i] = make([]float64, T)
		for p := from[i]; p < len(r)-1; p++ {
			mask[i][p] = 1
		}
	}
	adv, err := loss.GroupAdvantages([]float64{0.1, 0.7, 0.3, 0.9, 0.2, 0.4}, 3, loss.ScaleGroup)
	if err != nil {
		t.Fatal(err)
	}
	b := pass.Batch{IDs: rows}
	ro := pass.RunOptions{Temperature: 0.9, Dropout: true, DropoutSeed: 11, LogPFrom: from}
	cur, err := m.Forward(bg, b, ro)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := m.Forward(bg, b, pass.RunOptions{Temperature: 0.9, DisableAdapter: true, LogPFrom: from})
	if err != nil {
		t.Fatal(err)
	}
	res, err := loss.GRPO(loss.GRPOConfig{Beta: 0.04, LossType: loss.LossDAPO, Epsilon: 0.2},
		loss.GRPOInput{LogP: cur.LogP, OldLogP: cur.LogP, RefLogP: ref.LogP, Mask: mask, Advantages: adv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Backward(bg, b, ro, res.DLogP, nil); err != nil {
		t.Fatal(err)
	}
	r := stepResult{loss: res.Loss}
	for i, row := range mask {
		for p, v := range row {
			if v != 0 {
				r.outputs = append(r.outputs, cur.LogP[i][p], ref.LogP[i][p])
			}
		}
	}
	finish(t, m, &r)
	return r
}

func testStep(t *testing.T, step func(*testing.T, compute.Backend) stepResult) {
	if !cudatest.GPU() {
		testgate.Long(t, "a tiny Qwen3 step on the CUDA emulator, about half a minute of CPU")
	}
	want := step(t, newCPU(t, 2))
	for _, pc := range precisions {
		t.Run(pc.name, func(t *testing.T) {
			compareSteps(t, step(t, cudatest.Open(t, cuda.Options{Precision: pc.p})), want, pc.tol, pc.l2)
		})
	}
}

func TestCudaRewardModelStepMatchesCPU(t *testing.T) { testStep(t, rmStep) }

func TestCudaGRPOStepMatchesCPU(t *testing.T) { testStep(t, grpoStep) }
