package qwen3

// Config is the subset of a Hugging Face Qwen3 config.json the trainer uses.
// Field names follow config.json exactly so checkpoints round-trip.
type Config struct {
	Architectures         []string `json:"architectures,omitempty"`
	ModelType             string   `json:"model_type"`
	VocabSize             int      `json:"vocab_size"`
	HiddenSize            int      `json:"hidden_size"`
	IntermediateSize      int      `json:"intermediate_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	NumKeyValueHeads      int      `json:"num_key_value_heads"`
	HeadDim               int      `json:"head_dim"`
	HiddenAct             string   `json:"hidden_act"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	RMSNormEps            float64  `json:"rms_norm_eps"`
	RopeTheta             float64  `json:"rope_theta"`
	TieWordEmbeddings     bool     `json:"tie_word_embeddings"`
	AttentionBias         bool     `json:"attention_bias"`
	BOSTokenID            int      `json:"bos_token_id"`
	EOSTokenID            int      `json:"eos_token_id"`
	TorchDtype            string   `json:"torch_dtype,omitempty"`
	// NumLabels is set for sequence-classification (reward model) checkpoints.
	NumLabels int `json:"num_labels,omitempty"`
	// PadTokenID is used by the score head to find the last non-pad token.
	PadTokenID *int `json:"pad_token_id,omitempty"`
}

// Tensor is a dense row-major float32 tensor with its shape.
type Tensor struct {
	Shape []int
	Data  []float32
}

// Weights maps Hugging Face safetensors key names (for example
// "model.layers.0.self_attn.q_proj.weight") to tensors.
type Weights map[string]*Tensor
