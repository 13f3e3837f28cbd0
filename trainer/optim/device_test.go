package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/cpu"
	"mascot.dev/mascot/trainer/pass"
)

// The backend optimizer follows the host one (float64 moments) within
// float32 rounding over several clipped, decayed, scheduled steps, and
// reports the same gradient norms; its state round-trips.
func TestDeviceMatchesHost(t *testing.T) {
	be, err := cpu.New(cpu.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := Config{LR: 0.05, WeightDecay: 0.1, MaxGradNorm: 0.5, WarmupSteps: 2, TotalSteps: 6}
	sizes := []int{7, 33}
	var hp []Param
	var dp []pass.Param
	for i, n := range sizes {
		v := make([]float32, n)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		hp = append(hp, Param{Name: string(rune('a' + i)), Value: append([]float32(nil), v...), Grad: make([]float64, n), Decay: i == 0})
		p := pass.Param{Name: hp[i].Name, Decay: i == 0, Value: be.Alloc(compute.F32, n), Grad: be.Alloc(compute.F32, n)}
		be.Upload(p.Value, v)
		dp = append(dp, p)
	}
	host, err := New(cfg, hp)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := NewDevice(cfg, be, dp)
	if err != nil {
		t.Fatal(err)
	}
	for step := range 5 {
		for i, p := range hp {
			g := make([]float32, len(p.Grad))
			for j := range g {
				g[j] = float32(rng.NormFloat64())
				p.Grad[j] = float64(g[j])
			}
			be.Upload(dp[i].Grad, g)
		}
		hs := host.Step()
		ds, err := dev.Step()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(hs.GradNorm-ds.GradNorm) > 1e-9*hs.GradNorm || hs.LR != ds.LR {
			t.Fatalf("step %d: host norm %g lr %g, device norm %g lr %g", step, hs.GradNorm, hs.LR, ds.GradNorm, ds.LR)
		}
		for i, p := range hp {
			got := make([]float32, len(p.Value))
			be.Download(got, dp[i].Value)
			for j := range got {
				if d := math.Abs(float64(got[j] - p.Value[j])); d > 1e-5 {
					t.Fatalf("step %d %s[%d]: device %g, host %g", step, p.Name, j, got[j], p.Value[j])
				}
			}
			be.Download(got, dp[i].Grad)
			for j := range got {
				if got[j] != 0 {
					t.Fatalf("step %d: gradient not zeroed", step)
				}
			}
		}
	}
	st := dev.State()
	dev2, _ := NewDevice(cfg, be, dp)
	if err := dev2.Restore(st); err != nil {
		t.Fatal(err)
	}
	if s2 := dev2.State(); s2.Step != 5 || s2.M["b"][3] != st.M["b"][3] || s2.V["a"][1] != st.V["a"][1] {
		t.Fatalf("restored state differs")
	}
	if err := dev2.Restore(DeviceState{Step: 1, M: map[string][]float32{"a": {1}}}); err == nil {
		t.Fatalf("a mismatched state was accepted")
	}
}
