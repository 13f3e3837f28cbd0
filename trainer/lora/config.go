package lora

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"mascot.dev/mascot/trainer/qwen3"
)

// File names of a PEFT adapter directory.
const (
	ConfigFile  = "adapter_config.json"
	WeightsFile = "adapter_model.safetensors"
)

// AllTargets are the seven linear projections of a Qwen3 layer, in PEFT's
// short names ("all-linear" minus lm_head).
var AllTargets = []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}

// Targets is target_modules: a list of short module names. On read it also
// accepts PEFT's string form "all-linear".
type Targets []string

// UnmarshalJSON accepts a list of names or "all-linear".
func (t *Targets) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s != "all-linear" {
			return fmt.Errorf("target_modules %q: only a list or \"all-linear\" is supported", s)
		}
		*t = append(Targets(nil), AllTargets...)
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("target_modules: %w", err)
	}
	*t = l
	return nil
}

// Config is adapter_config.json with every key docs/design/peft.md lists
// writing. Unknown keys are ignored on read.
type Config struct {
	PeftType            string             `json:"peft_type"`
	TaskType            string             `json:"task_type"`
	BaseModelNameOrPath string             `json:"base_model_name_or_path"`
	Revision            *string            `json:"revision"`
	R                   int                `json:"r"`
	LoraAlpha           float64            `json:"lora_alpha"`
	LoraDropout         float64            `json:"lora_dropout"`
	TargetModules       Targets            `json:"target_modules"`
	Bias                string             `json:"bias"`
	FanInFanOut         bool               `json:"fan_in_fan_out"`
	UseRSLoRA           bool               `json:"use_rslora"`
	UseDoRA             bool               `json:"use_dora"`
	ModulesToSave       []string           `json:"modules_to_save"`
	InitLoraWeights     any                `json:"init_lora_weights"`
	LayersToTransform   any                `json:"layers_to_transform"`
	LayersPattern       any                `json:"layers_pattern"`
	RankPattern         map[string]int     `json:"rank_pattern"`
	AlphaPattern        map[string]float64 `json:"alpha_pattern"`
	InferenceMode       bool               `json:"inference_mode"`
	LoraBias            bool               `json:"lora_bias"`
}

// NewConfig returns a causal-LM LoRA config with PEFT's defaults for every
// other key. targets nil means all seven projections.
func NewConfig(baseModel string, r int, alpha float64, targets []string) Config {
	if targets == nil {
		targets = AllTargets
	}
	return Config{
		PeftType: "LORA", TaskType: "CAUSAL_LM", BaseModelNameOrPath: baseModel,
		R: r, LoraAlpha: alpha, TargetModules: append(Targets(nil), targets...),
		Bias: "none", InitLoraWeights: true,
		RankPattern: map[string]int{}, AlphaPattern: map[string]float64{},
	}
}

// Scaling is lora_alpha/r, or lora_alpha/√r with use_rslora.
func (c Config) Scaling() float32 {
	if c.UseRSLoRA {
		return float32(c.LoraAlpha / math.Sqrt(float64(c.R)))
	}
	return float32(c.LoraAlpha / float64(c.R))
}

// Projs returns the targeted projections in layer order (q,k,v,o,gate,up,down).
func (c Config) Projs() ([]qwen3.Proj, error) {
	want := map[qwen3.Proj]bool{}
	for _, name := range c.TargetModules {
		p, ok := qwen3.ProjByName(name)
		if !ok {
			return nil, fmt.Errorf("target module %q is not a Qwen3 linear projection", name)
		}
		want[p] = true
	}
	var out []qwen3.Proj
	for p := qwen3.Proj(0); p < qwen3.NumProj; p++ {
		if want[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// Validate rejects what this package or vLLM cannot serve.
func (c Config) Validate() error {
	if c.PeftType != "LORA" {
		return fmt.Errorf("validating adapter config: peft_type %q is not LORA", c.PeftType)
	}
	if c.R <= 0 {
		return fmt.Errorf("validating adapter config: r must be positive, got %d", c.R)
	}
	if len(c.TargetModules) == 0 {
		return fmt.Errorf("validating adapter config: target_modules is empty")
	}
	if _, err := c.Projs(); err != nil {
		return fmt.Errorf("validating adapter config: %w", err)
	}
	switch {
	case c.Bias != "" && c.Bias != "none":
		return fmt.Errorf("validating adapter config: bias %q (vLLM needs \"none\")", c.Bias)
	case c.UseDoRA:
		return fmt.Errorf("validating adapter config: DoRA is not supported")
	case len(c.ModulesToSave) > 0:
		return fmt.Errorf("validating adapter config: modules_to_save %v (vLLM needs none)", c.ModulesToSave)
	case len(c.RankPattern) > 0 || len(c.AlphaPattern) > 0:
		return fmt.Errorf("validating adapter config: rank_pattern/alpha_pattern are not supported")
	case c.LayersToTransform != nil:
		return fmt.Errorf("validating adapter config: layers_to_transform is not supported")
	case c.FanInFanOut:
		return fmt.Errorf("validating adapter config: fan_in_fan_out must be false for Qwen3")
	case c.LoraBias:
		return fmt.Errorf("validating adapter config: lora_bias is not supported")
	case c.LoraDropout < 0 || c.LoraDropout >= 1:
		return fmt.Errorf("validating adapter config: lora_dropout %v outside [0, 1)", c.LoraDropout)
	}
	return nil
}

// ReadConfig reads and validates an adapter_config.json.
func ReadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading adapter config: %w", err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("parsing %s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}
