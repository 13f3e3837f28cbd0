package lora

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/safetensors"
)

func TestQwen3_0_6BKeysAndShapes(t *testing.T) {
	ks, err := KeyShapes(qwen3.Qwen3_0_6B(), NewConfig("Qwen/Qwen3-0.6B", 16, 32, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 28*7*2 {
		t.Fatalf("%d keys, want %d", len(ks), 28*7*2)
	}
	got := map[string][]int{}
	for _, k := range ks {
		got[k.Key] = k.Shape
	}
	// docs/design/peft.md, Qwen3-0.6B with r=16.
	want := map[string][]int{
		"self_attn.q_proj.lora_A": {16, 1024}, "self_attn.q_proj.lora_B": {2048, 16},
		"self_attn.k_proj.lora_A": {16, 1024}, "self_attn.k_proj.lora_B": {1024, 16},
		"self_attn.v_proj.lora_A": {16, 1024}, "self_attn.v_proj.lora_B": {1024, 16},
		"self_attn.o_proj.lora_A": {16, 2048}, "self_attn.o_proj.lora_B": {1024, 16},
		"mlp.gate_proj.lora_A": {16, 1024}, "mlp.gate_proj.lora_B": {3072, 16},
		"mlp.up_proj.lora_A": {16, 1024}, "mlp.up_proj.lora_B": {3072, 16},
		"mlp.down_proj.lora_A": {16, 3072}, "mlp.down_proj.lora_B": {1024, 16},
	}
	for _, layer := range []int{0, 13, 27} {
		for mod, shape := range want {
			key := fmt.Sprintf("base_model.model.model.layers.%d.%s.weight", layer, mod)
			if !slices.Equal(got[key], shape) {
				t.Errorf("%s: %v, want %v", key, got[key], shape)
			}
		}
	}
	if ks[0].Key != "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight" {
		t.Errorf("first key %q", ks[0].Key)
	}
}

func TestScaling(t *testing.T) {
	c := NewConfig("x", 16, 32, nil)
	if c.Scaling() != 2 {
		t.Fatal(c.Scaling())
	}
	c.UseRSLoRA = true
	if c.Scaling() != 8 {
		t.Fatal(c.Scaling())
	}
}

func tiny(t *testing.T) *qwen3.Model {
	m, err := qwen3.NewRandom(qwen3.Tiny(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trained returns an adapter with non-zero B, as after some training.
func trained(t *testing.T, m *qwen3.Model, targets []string) *Adapter {
	a, err := New(m.Config, NewConfig("tiny", 4, 8, targets), 3)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for k, w := range a.Weights {
		if !isA(k) {
			for i := range w.Data {
				w.Data[i] = float32(r.NormFloat64() * 0.2)
			}
		}
	}
	return a
}

func logits(t *testing.T, m *qwen3.Model, ads ...qwen3.Adapter) []float32 {
	v, err := m.WithAdapters(ads...)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := v.Forward([]int{3, 99, 256, 7, 42, 500})
	if err != nil {
		t.Fatal(err)
	}
	return lg.Data
}

func TestPEFTInit(t *testing.T) {
	m := tiny(t)
	a, err := New(m.Config, NewConfig("tiny", 8, 16, nil), 9)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Check(m.Config); err != nil {
		t.Fatal(err)
	}
	A, B := a.A(1, qwen3.DownProj), a.B(1, qwen3.DownProj)
	bound := 1 / math.Sqrt(float64(m.Config.IntermediateSize))
	var ss float64
	for _, v := range A.Data {
		if math.Abs(float64(v)) > bound {
			t.Fatalf("A value %v beyond ±%v", v, bound)
		}
		ss += float64(v) * float64(v)
	}
	if std := math.Sqrt(ss / float64(len(A.Data))); math.Abs(std-bound/math.Sqrt(3)) > 0.1*bound {
		t.Fatalf("A std %v, uniform would give %v", std, bound/math.Sqrt(3))
	}
	for _, v := range B.Data {
		if v != 0 {
			t.Fatal("B not zero")
		}
	}
	if !slices.Equal(logits(t, m), logits(t, m, a)) {
		t.Fatal("a fresh adapter changed the logits")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	m := tiny(t)
	a := trained(t, m, nil)
	dir := t.TempDir()
	if err := a.Save(dir); err != nil {
		t.Fatal(err)
	}
	b, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Check(m.Config); err != nil {
		t.Fatal(err)
	}
	want := logits(t, m, a)
	if !slices.Equal(want, logits(t, m, b)) {
		t.Fatal("round trip changed the logits")
	}
	if slices.Equal(want, logits(t, m)) {
		t.Fatal("adapter had no effect")
	}
	var cfg map[string]any
	raw, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	json.Unmarshal(raw, &cfg)
	exp := map[string]any{
		"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "tiny",
		"r": 4.0, "lora_alpha": 8.0, "lora_dropout": 0.0, "bias": "none", "use_rslora": false,
		"use_dora": false, "modules_to_save": nil, "inference_mode": true, "fan_in_fan_out": false,
		"init_lora_weights": true, "revision": nil, "lora_bias": false, "layers_to_transform": nil,
	}
	for k, v := range exp {
		if got, ok := cfg[k]; !ok || got != v {
			t.Errorf("adapter_config %s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if tm, _ := cfg["target_modules"].([]any); len(tm) != 7 || tm[0] != "q_proj" {
		t.Errorf("target_modules %v", cfg["target_modules"])
	}
	if rp, ok := cfg["rank_pattern"].(map[string]any); !ok || len(rp) != 0 {
		t.Errorf("rank_pattern %v", cfg["rank_pattern"])
	}
	_, meta, err := safetensors.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil || meta["format"] != "pt" {
		t.Fatalf("metadata %v %v", meta, err)
	}
}

func TestLoadAcceptsPEFTVariants(t *testing.T) {
	m := tiny(t)
	dir := t.TempDir()
	a := trained(t, m, []string{"q_proj"})
	ts := map[string]*safetensors.Tensor{}
	for k, w := range a.Weights {
		// In-memory PEFT names keep the adapter name.
		ts[k[:len(k)-len(".weight")]+".default.weight"] = (*safetensors.Tensor)(w)
	}
	safetensors.WriteFile(filepath.Join(dir, WeightsFile), ts, safetensors.BF16, nil)
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"peft_type":"LORA","r":4,"lora_alpha":8,
		"target_modules":["q_proj"],"peft_version":"0.17.0","loftq_config":{},"task_type":"CAUSAL_LM"}`), 0o644)
	b, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Check(m.Config); err != nil {
		t.Fatal(err)
	}
	var c Config
	if err := json.Unmarshal([]byte(`{"target_modules":"all-linear"}`), &c); err != nil || len(c.TargetModules) != 7 {
		t.Fatalf("all-linear: %v %v", c.TargetModules, err)
	}
}

func TestLoadRejects(t *testing.T) {
	m := tiny(t)
	a := trained(t, m, []string{"q_proj", "v_proj"})
	cases := map[string]func(dir string){
		"bias":        func(dir string) { rewriteConfig(dir, "bias", "all") },
		"dora":        func(dir string) { rewriteConfig(dir, "use_dora", true) },
		"save":        func(dir string) { rewriteConfig(dir, "modules_to_save", []string{"score"}) },
		"not target":  func(dir string) { rewriteConfig(dir, "target_modules", []string{"q_proj"}) },
		"bad target":  func(dir string) { rewriteConfig(dir, "target_modules", []string{"lm_head"}) },
		"wrong rank":  func(dir string) { rewriteConfig(dir, "r", 8) },
		"no partner":  func(dir string) { dropTensor(dir, KeyB(1, qwen3.VProj)) },
		"foreign key": func(dir string) { addTensor(dir, "base_model.model.model.norm.weight") },
	}
	for name, spoil := range cases {
		dir := t.TempDir()
		if err := a.Save(dir); err != nil {
			t.Fatal(err)
		}
		spoil(dir)
		if _, err := Load(dir); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Shape mismatches against a model are caught by Check and WithAdapters.
	other := qwen3.Tiny()
	other.HiddenSize = 32
	if err := a.Check(other); err == nil {
		t.Error("Check accepted a different model")
	}
}

func rewriteConfig(dir, key string, v any) {
	p := filepath.Join(dir, ConfigFile)
	var c map[string]any
	b, _ := os.ReadFile(p)
	json.Unmarshal(b, &c)
	c[key] = v
	b, _ = json.Marshal(c)
	os.WriteFile(p, b, 0o644)
}

func editTensors(dir string, f func(map[string]*safetensors.Tensor)) {
	p := filepath.Join(dir, WeightsFile)
	ts, _, _ := safetensors.ReadFile(p)
	f(ts)
	safetensors.WriteFile(p, ts, safetensors.F32, nil)
}

func dropTensor(dir, key string) {
	editTensors(dir, func(ts map[string]*safetensors.Tensor) { delete(ts, key) })
}

func addTensor(dir, key string) {
	editTensors(dir, func(ts map[string]*safetensors.Tensor) {
		ts[key] = &safetensors.Tensor{Shape: []int{4, 4}, Data: make([]float32, 16)}
	})
}
