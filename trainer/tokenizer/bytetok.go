package tokenizer

// qwen3Added lists the Qwen3 added tokens in id order, with their special
// flag (docs/design/qwen3-tokenizer.md).
var qwen3Added = []struct {
	content string
	special bool
}{
	{"<|endoftext|>", true}, {"<|im_start|>", true}, {"<|im_end|>", true},
	{"<|object_ref_start|>", true}, {"<|object_ref_end|>", true},
	{"<|box_start|>", true}, {"<|box_end|>", true},
	{"<|quad_start|>", true}, {"<|quad_end|>", true},
	{"<|vision_start|>", true}, {"<|vision_end|>", true},
	{"<|vision_pad|>", true}, {"<|image_pad|>", true}, {"<|video_pad|>", true},
	{"<tool_call>", false}, {"</tool_call>", false},
	{"<|fim_prefix|>", false}, {"<|fim_middle|>", false}, {"<|fim_suffix|>", false},
	{"<|fim_pad|>", false}, {"<|repo_name|>", false}, {"<|file_sep|>", false},
	{"<tool_response>", false}, {"</tool_response>", false},
	{"<think>", false}, {"</think>", false},
}

// ByteLevelVocabSize is the vocabulary size of NewByteLevel: 256 byte tokens
// and the 26 Qwen3 added tokens.
const ByteLevelVocabSize = 256 + 26

// NewByteLevel returns the tokenizer of the tiny demo models: token id b is
// the byte b (spelt in the byte-level alphabet), ids 256–281 are the Qwen3
// added tokens in Qwen3's order (<|endoftext|> = 256, <|im_start|> = 257,
// <|im_end|> = 258, <think> = 280, </think> = 281). There are no merges and
// no normalizer, so Decode(Encode(s)) == s for any valid UTF-8 s that holds
// no added-token text, and the Qwen3 chat template works unchanged. EOS is
// <|im_end|>, pad is <|endoftext|>.
func NewByteLevel() *Tokenizer {
	vocab := make(map[string]int, 256)
	for b := range 256 {
		vocab[string(byteToRune[b])] = b
	}
	added := make([]AddedToken, len(qwen3Added))
	for i, a := range qwen3Added {
		added[i] = AddedToken{ID: 256 + i, Content: a.content, Special: a.special}
	}
	t, err := build(vocab, nil, added, false, false)
	if err != nil {
		panic("tokenizer: building the byte-level vocabulary: " + err.Error()) // static data
	}
	return t
}
