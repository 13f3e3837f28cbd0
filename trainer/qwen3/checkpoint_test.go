package qwen3

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/safetensors"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	m := tinyModel(t, 11)
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	ts, _, err := safetensors.ReadFile(filepath.Join(dir, safetensors.SingleFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ts[HeadKey]; ok {
		t.Fatal("tied checkpoint wrote lm_head.weight")
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := randomIDs(9, m.Config.VocabSize, 1)
	a, _ := m.Forward(ids)
	b, _ := got.Forward(ids)
	if !slices.Equal(a.Data, b.Data) {
		t.Fatal("f32 round trip changed the logits")
	}
	if got.Head() != got.Weights[EmbedKey] {
		t.Fatal("tied head not aliased to the embedding")
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.json"))
	for _, want := range []string{`"rope_theta": 10000`, `"tie_word_embeddings": true`, `"torch_dtype": "float32"`, `"Qwen3ForCausalLM"`} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("config.json lacks %s", want)
		}
	}
}

func TestBF16CheckpointLoads(t *testing.T) {
	m := tinyModel(t, 12)
	dir := t.TempDir()
	if err := m.SaveAs(dir, safetensors.BF16); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := ProjKey(0, QProj)
	for i, v := range m.Weights[k].Data {
		if want := safetensors.BF16ToFloat32(safetensors.Float32ToBF16(v)); got.Weights[k].Data[i] != want {
			t.Fatalf("%s[%d] = %v, want bf16 %v", k, i, got.Weights[k].Data[i], want)
		}
	}
}

func TestTiedCheckpointWithExplicitHeadIgnoresIt(t *testing.T) {
	m := tinyModel(t, 13)
	w := Weights{}
	for k, v := range m.Weights {
		w[k] = v
	}
	zero := &Tensor{Shape: []int{m.Config.VocabSize, m.Config.HiddenSize}, Data: make([]float32, m.Config.VocabSize*m.Config.HiddenSize)}
	w[HeadKey] = zero
	m2, err := New(m.Config, w)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Head() != w[EmbedKey] {
		t.Fatal("explicit lm_head used although tied")
	}
}

func TestScoreHead(t *testing.T) {
	c := Tiny()
	c.Architectures = []string{SequenceClassification}
	c.NumLabels = 1
	pad := 0
	c.PadTokenID = &pad
	m, err := NewRandom(c, 14)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Weights[ScoreKey]; !ok || m.Head() != nil {
		t.Fatal("score head layout")
	}
	ids := []int{5, 9, 33, 7}
	s, err := m.Score(ids)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: score · final hidden state at the last token.
	h, _ := m.Hidden(ids)
	D := c.HiddenSize
	var want float32
	for i := 0; i < D; i++ {
		want += m.ScoreHead().Data[i] * h.Data[3*D+i]
	}
	if d := s[0] - want; d > 1e-5 || d < -1e-5 {
		t.Fatalf("score %v, want %v", s[0], want)
	}
	// Right padding pools at the last real token.
	padded, _ := m.Score(append(slices.Clone(ids), pad, pad))
	if padded[0] != s[0] {
		t.Fatalf("right padding changed the score: %v vs %v", padded[0], s[0])
	}
	if LastNonPad([]int{0, 4, 0}, &pad) != 1 || LastNonPad([]int{0, 0}, &pad) != -1 || LastNonPad([]int{3, 0}, nil) != 1 {
		t.Fatal("LastNonPad")
	}
	if _, err := m.Forward(ids); err == nil {
		t.Fatal("classifier produced logits")
	}
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := back.Score(ids)
	if s2[0] != s[0] || back.Config.PadTokenID == nil || *back.Config.PadTokenID != 0 || back.Config.NumLabels != 1 {
		t.Fatalf("reloaded classifier: %v %+v", s2, back.Config)
	}
}
