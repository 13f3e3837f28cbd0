package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// Save writes t as a Hugging Face tokenizer.json (merges as ["a","b"]
// pairs) that Load, the tokenizers library and vLLM read back as the same
// tokenizer.
func (t *Tokenizer) Save(path string) error {
	data, err := t.MarshalJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("saving tokenizer: %w", err)
	}
	return nil
}

// MarshalJSON renders t in the tokenizer.json format.
func (t *Tokenizer) MarshalJSON() ([]byte, error) {
	vocab := make(map[string]int, len(t.model.vocab))
	for tok, id := range t.model.vocab {
		vocab[tok] = int(id)
	}
	type rankedPair struct {
		rank int32
		pair [2]string
	}
	pairs := make([]rankedPair, 0, len(t.model.merges))
	for k, m := range t.model.merges {
		l, r := int32(k>>32), int32(uint32(k))
		pairs = append(pairs, rankedPair{m.rank, [2]string{t.tokens[l], t.tokens[r]}})
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].rank < pairs[j].rank })
	merges := make([][2]string, len(pairs))
	for i, p := range pairs {
		merges[i] = p.pair
	}
	var normalizer any
	if t.nfc {
		normalizer = map[string]any{"type": "NFC"}
	}
	byteLevel := map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}
	added := t.added
	if added == nil {
		added = []AddedToken{}
	}
	f := map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": added,
		"normalizer":   normalizer,
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]string{"Regex": Qwen2Pattern}, "behavior": "Isolated", "invert": false},
			byteLevel,
		}},
		"post_processor": byteLevel,
		"decoder":        byteLevel,
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false,
			"ignore_merges": t.model.ignoreMerges, "vocab": vocab, "merges": merges,
		},
	}
	data, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encoding tokenizer.json: %w", err)
	}
	return data, nil
}
