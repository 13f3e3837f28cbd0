package tokenizer

import (
	"encoding/json"
	"fmt"
)

// component is the common shape of normalizer, pre_tokenizer, decoder and
// post_processor objects in tokenizer.json.
type component struct {
	Type           string       `json:"type"`
	Normalizers    []component  `json:"normalizers"`
	Pretokenizers  []component  `json:"pretokenizers"`
	Pattern        *patternJSON `json:"pattern"`
	Behavior       string       `json:"behavior"`
	Invert         bool         `json:"invert"`
	AddPrefixSpace bool         `json:"add_prefix_space"`
	UseRegex       *bool        `json:"use_regex"`
}

type patternJSON struct {
	Regex  *string `json:"Regex"`
	String *string `json:"String"`
}

func parseComponent(raw json.RawMessage, what string) (*component, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", what, err)
	}
	return &c, nil
}

// parseNormalizer accepts no normalizer, NFC, or a Sequence of NFCs.
func parseNormalizer(raw json.RawMessage) (nfc bool, err error) {
	c, err := parseComponent(raw, "normalizer")
	if err != nil || c == nil {
		return false, err
	}
	switch c.Type {
	case "NFC":
		return true, nil
	case "Sequence":
		for _, n := range c.Normalizers {
			if n.Type != "NFC" {
				return false, fmt.Errorf("checking normalizer: %s inside Sequence is not supported (only NFC)", n.Type)
			}
		}
		return len(c.Normalizers) > 0, nil
	}
	return false, fmt.Errorf("checking normalizer: type %q is not supported (only NFC)", c.Type)
}

// checkPipeline rejects tokenizer.json files whose pre-tokenizer, decoder,
// post-processor or model this package would not reproduce exactly.
func checkPipeline(f *tokenizerFile) error {
	m := f.Model
	if m.Type != "BPE" && m.Type != "" {
		return fmt.Errorf("checking model: type %q is not supported (only BPE)", m.Type)
	}
	if m.Vocab == nil {
		return fmt.Errorf("checking model: no vocab")
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("checking model: dropout %v is not supported", *m.Dropout)
	}
	if m.ByteFallback {
		return fmt.Errorf("checking model: byte_fallback is not supported")
	}
	if m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" {
		return fmt.Errorf("checking model: continuing_subword_prefix %q is not supported", *m.ContinuingSubwordPrefix)
	}
	if m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "" {
		return fmt.Errorf("checking model: end_of_word_suffix %q is not supported", *m.EndOfWordSuffix)
	}
	pre, err := parseComponent(f.PreTokenizer, "pre_tokenizer")
	if err != nil {
		return err
	}
	if err := checkPreTokenizer(pre); err != nil {
		return err
	}
	dec, err := parseComponent(f.Decoder, "decoder")
	if err != nil {
		return err
	}
	if dec == nil || dec.Type != "ByteLevel" {
		return fmt.Errorf("checking decoder: want ByteLevel, got %s", typeOf(dec))
	}
	post, err := parseComponent(f.PostProcessor, "post_processor")
	if err != nil {
		return err
	}
	if post != nil && post.Type != "ByteLevel" {
		return fmt.Errorf("checking post_processor: %s is not supported (only none or ByteLevel)", post.Type)
	}
	return nil
}

// checkPreTokenizer wants Sequence[Split(Qwen2Pattern, Isolated),
// ByteLevel(use_regex=false, add_prefix_space=false)].
func checkPreTokenizer(c *component) error {
	const want = "Sequence[Split(Qwen2 pattern, Isolated), ByteLevel(add_prefix_space=false, use_regex=false)]"
	if c == nil || c.Type != "Sequence" || len(c.Pretokenizers) != 2 {
		return fmt.Errorf("checking pre_tokenizer: want %s, got %s", want, typeOf(c))
	}
	sp, bl := c.Pretokenizers[0], c.Pretokenizers[1]
	if sp.Type != "Split" || sp.Pattern == nil || sp.Pattern.Regex == nil || sp.Behavior != "Isolated" || sp.Invert {
		return fmt.Errorf("checking pre_tokenizer: want %s, first step is %s", want, sp.Type)
	}
	if *sp.Pattern.Regex != Qwen2Pattern {
		return fmt.Errorf("checking pre_tokenizer: Split pattern %q is not the Qwen2 pattern (only that one is implemented)", *sp.Pattern.Regex)
	}
	if bl.Type != "ByteLevel" || bl.AddPrefixSpace || bl.UseRegex == nil || *bl.UseRegex {
		return fmt.Errorf("checking pre_tokenizer: want %s, second step is %s", want, bl.Type)
	}
	return nil
}

func typeOf(c *component) string {
	if c == nil {
		return "none"
	}
	return c.Type
}
