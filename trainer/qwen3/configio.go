package qwen3

import (
	"encoding/json"
	"fmt"
	"os"
)

// SequenceClassification is the architectures entry of reward-model
// checkpoints (docs/design/qwen3.md, "Sequence classification").
const SequenceClassification = "Qwen3ForSequenceClassification"

// CausalLM is the architectures entry of ordinary Qwen3 checkpoints.
const CausalLM = "Qwen3ForCausalLM"

// ParseConfig decodes a config.json. It accepts rope_theta at the top level
// or inside rope_parameters, a null num_key_value_heads (→ heads), a missing
// head_dim (→ hidden/heads), and an eos_token_id list (the first id is kept),
// then validates the result.
func ParseConfig(b []byte) (Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Config{}, fmt.Errorf("parsing config.json: %w", err)
	}
	var eos []int
	if json.Unmarshal(raw["eos_token_id"], &eos) == nil && len(eos) > 0 {
		raw["eos_token_id"], _ = json.Marshal(eos[0])
	}
	for k, v := range raw {
		if string(v) == "null" {
			delete(raw, k)
		}
	}
	fixed, _ := json.Marshal(raw)
	var c Config
	if err := json.Unmarshal(fixed, &c); err != nil {
		return Config{}, fmt.Errorf("parsing config.json: %w", err)
	}
	if c.RopeTheta == 0 {
		var rp struct {
			RopeTheta float64 `json:"rope_theta"`
		}
		if p, ok := raw["rope_parameters"]; ok {
			if err := json.Unmarshal(p, &rp); err != nil {
				return Config{}, fmt.Errorf("parsing rope_parameters: %w", err)
			}
		}
		c.RopeTheta = rp.RopeTheta
	}
	if c.NumKeyValueHeads == 0 {
		c.NumKeyValueHeads = c.NumAttentionHeads
	}
	if c.HeadDim == 0 && c.NumAttentionHeads > 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	if c.RMSNormEps == 0 {
		c.RMSNormEps = 1e-6
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// LoadConfig reads and parses a config.json file.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("loading config: %w", err)
	}
	return ParseConfig(b)
}

// Validate checks the dimensions the forward pass relies on.
func (c Config) Validate() error {
	switch {
	case c.VocabSize <= 0, c.HiddenSize <= 0, c.IntermediateSize <= 0, c.NumHiddenLayers <= 0,
		c.NumAttentionHeads <= 0, c.NumKeyValueHeads <= 0, c.HeadDim <= 0:
		return fmt.Errorf("validating config: every dimension must be positive: %+v", c)
	case c.NumAttentionHeads%c.NumKeyValueHeads != 0:
		return fmt.Errorf("validating config: %d attention heads are not a multiple of %d kv heads", c.NumAttentionHeads, c.NumKeyValueHeads)
	case c.HeadDim%2 != 0:
		return fmt.Errorf("validating config: head_dim %d must be even for RoPE", c.HeadDim)
	case c.RopeTheta <= 0:
		return fmt.Errorf("validating config: rope_theta must be positive")
	case c.AttentionBias:
		return fmt.Errorf("validating config: attention_bias is not supported (no Qwen3 uses it)")
	case c.HiddenAct != "" && c.HiddenAct != "silu":
		return fmt.Errorf("validating config: hidden_act %q is not supported", c.HiddenAct)
	case c.IsSequenceClassification() && c.NumLabels <= 0:
		return fmt.Errorf("validating config: a sequence-classification config needs num_labels")
	}
	return nil
}

// IsSequenceClassification reports whether the checkpoint has a score head
// instead of lm_head.
func (c Config) IsSequenceClassification() bool {
	for _, a := range c.Architectures {
		if a == SequenceClassification {
			return true
		}
	}
	return false
}

// QDim is the width of the query projection (heads · head_dim).
func (c Config) QDim() int { return c.NumAttentionHeads * c.HeadDim }

// KVDim is the width of the key and value projections.
func (c Config) KVDim() int { return c.NumKeyValueHeads * c.HeadDim }

// KVBytesPerToken is the KV-cache memory of one position: a float32 key
// and value of KVDim per layer.
func (c Config) KVBytesPerToken() int64 { return int64(c.NumHiddenLayers) * int64(c.KVDim()) * 2 * 4 }

// Qwen3_0_6B returns the config of Qwen/Qwen3-0.6B (docs/design/qwen3.md).
func Qwen3_0_6B() Config {
	return Config{
		Architectures: []string{CausalLM}, ModelType: "qwen3", VocabSize: 151936,
		HiddenSize: 1024, IntermediateSize: 3072, NumHiddenLayers: 28, NumAttentionHeads: 16,
		NumKeyValueHeads: 8, HeadDim: 128, HiddenAct: "silu", MaxPositionEmbeddings: 40960,
		RMSNormEps: 1e-6, RopeTheta: 1e6, TieWordEmbeddings: true,
		BOSTokenID: 151643, EOSTokenID: 151645, TorchDtype: "bfloat16",
	}
}

// Tiny returns a small demo config (byte-level vocab of 512) for tests and
// the pretrain demo.
func Tiny() Config {
	return Config{
		Architectures: []string{CausalLM}, ModelType: "qwen3", VocabSize: 512,
		HiddenSize: 64, IntermediateSize: 192, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, HeadDim: 32, HiddenAct: "silu", MaxPositionEmbeddings: 2048,
		RMSNormEps: 1e-6, RopeTheta: 10000, TieWordEmbeddings: true,
		BOSTokenID: 256, EOSTokenID: 257, TorchDtype: "float32",
	}
}
