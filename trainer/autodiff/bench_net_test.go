//go:build unix && !cuda

package autodiff

import (
	"math/rand/v2"
	"testing"
	"time"

	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/net"
	"mascot.dev/mascot/trainer/qwen3"
)

// benchNet is benchStep on trainer/net (the default network, CPU backend
// with the BLAS cpu.New picks) beside the graph: the same model, batch,
// seeds and FLOP count, reported against the backend's own sgemm peak
// (cpu.MeasurePeak at 512³, the size sgemmPeak uses) measured in the same
// process. forward runs Forward instead of Backward.
func benchNet(b *testing.B, cfg qwen3.Config, o Options, B, T int, flopFactor float64, forward bool) {
	cfg.HiddenAct = "silu"
	base, err := qwen3.NewRandom(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	be, err := cpu.New(cpu.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m, err := net.New(be, cfg, net.FromWeights(base.Weights), net.Options{LoRA: o.LoRA, Train: o.Train})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	batch := Batch{}
	seed := make([][]float64, B)
	for i := range B {
		batch.IDs = append(batch.IDs, randomRows(rng, cfg.VocabSize, T)[0])
		seed[i] = make([]float64, T)
		for j := range seed[i] {
			seed[i][j] = -1.0 / float64(B*T)
		}
	}
	run := func() error {
		if forward {
			_, err := m.Forward(bg, batch, RunOptions{})
			return err
		}
		_, err := m.Backward(bg, batch, RunOptions{}, seed, nil)
		return err
	}
	if err := run(); err != nil { // buffers grow once
		b.Fatal(err)
	}
	peak := cpu.MeasurePeak(be, 512) / 1e9
	c0 := m.Counters()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	sec, cpuSec := time.Since(start).Seconds(), cpuSeconds()-cpu0
	c := m.Counters()
	steps := float64(b.N)
	flops := flopFactor * forwardFLOPs(cfg, B, T)
	gflops := flops * steps / sec / 1e9
	b.ReportMetric(float64(B*T)*steps/sec, "tokens/s")
	b.ReportMetric(gflops, "GFLOP/s")
	b.ReportMetric(gflops/peak, "of_sgemm_peak")
	b.ReportMetric((c.Hardware-c0.Hardware)/sec/1e9/peak, "hw_of_sgemm_peak")
	if cpuSec > 0 {
		b.ReportMetric(flops*steps/cpuSec/1e9/peak*float64(be.Threads()), "of_sgemm_peak_cpu")
	}
}
