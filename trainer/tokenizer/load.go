package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// maxID bounds token ids read from files, so a hostile file cannot make Parse
// allocate gigabytes.
const maxID = 1 << 24

// tokenizerFile is the part of tokenizer.json this package reads.
type tokenizerFile struct {
	AddedTokens   []AddedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Model         modelJSON       `json:"model"`
}

type modelJSON struct {
	Type                    string          `json:"type"`
	Dropout                 *float64        `json:"dropout"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	Vocab                   map[string]int  `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
}

// Load reads a Hugging Face tokenizer.json. path may name the file or the
// directory holding it; a tokenizer_config.json beside it, when present,
// supplies eos_token and pad_token.
func Load(path string) (*Tokenizer, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", path, err)
	}
	cfgPath := filepath.Join(filepath.Dir(path), "tokenizer_config.json")
	if cfg, err := os.ReadFile(cfgPath); err == nil {
		if err := t.applyConfig(cfg); err != nil {
			return nil, fmt.Errorf("loading %s: %w", cfgPath, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("loading tokenizer config: %w", err)
	}
	return t, nil
}

// Parse builds a Tokenizer from the bytes of a tokenizer.json.
func Parse(data []byte) (*Tokenizer, error) {
	var f tokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parsing tokenizer.json: %w", err)
	}
	if err := checkPipeline(&f); err != nil {
		return nil, err
	}
	merges, err := parseMerges(f.Model.Merges)
	if err != nil {
		return nil, err
	}
	nfc, err := parseNormalizer(f.Normalizer)
	if err != nil {
		return nil, err
	}
	return build(f.Model.Vocab, merges, f.AddedTokens, nfc, f.Model.IgnoreMerges)
}

// build assembles a Tokenizer from a vocabulary, ordered merges and added
// tokens, validating ids and merges.
func build(vocab map[string]int, merges [][2]string, added []AddedToken, nfc, ignoreMerges bool) (*Tokenizer, error) {
	size := 0
	for tok, id := range vocab {
		if id < 0 || id >= maxID {
			return nil, fmt.Errorf("checking vocab: token %q has id %d outside [0, %d)", tok, id, maxID)
		}
		size = max(size, id+1)
	}
	for _, a := range added {
		if a.ID < 0 || a.ID >= maxID {
			return nil, fmt.Errorf("checking added_tokens: %q has id %d outside [0, %d)", a.Content, a.ID, maxID)
		}
		if a.Content == "" {
			return nil, fmt.Errorf("checking added_tokens: id %d has empty content", a.ID)
		}
		size = max(size, a.ID+1)
	}
	t := &Tokenizer{
		tokens:    make([]string, size),
		addedByID: map[int]*AddedToken{},
		addedIDs:  map[string]int{},
		nfc:       nfc,
	}
	t.model.vocab = make(map[string]int32, len(vocab))
	for tok, id := range vocab {
		if t.tokens[id] != "" {
			return nil, fmt.Errorf("checking vocab: id %d used by %q and %q", id, t.tokens[id], tok)
		}
		t.tokens[id] = tok
		t.model.vocab[tok] = int32(id)
	}
	for b := range 256 {
		t.model.byteIDs[b] = -1
		if id, ok := vocab[string(byteToRune[b])]; ok {
			t.model.byteIDs[b] = int32(id)
		}
	}
	t.model.ignoreMerges = ignoreMerges
	t.model.merges = make(map[uint64]merge, len(merges))
	for rank, mg := range merges {
		l, okL := vocab[mg[0]]
		r, okR := vocab[mg[1]]
		m, okM := vocab[mg[0]+mg[1]]
		if !okL || !okR || !okM {
			return nil, fmt.Errorf("checking merge %d (%q %q): token missing from vocab", rank, mg[0], mg[1])
		}
		k := pairKey(int32(l), int32(r))
		if _, dup := t.model.merges[k]; !dup {
			t.model.merges[k] = merge{rank: int32(rank), id: int32(m)}
		}
	}
	t.added = append([]AddedToken(nil), added...)
	sort.SliceStable(t.added, func(i, j int) bool { return t.added[i].ID < t.added[j].ID })
	var rawToks, nrmToks []*AddedToken
	for i := range t.added {
		a := &t.added[i]
		if prev, ok := t.addedIDs[a.Content]; ok && prev != a.ID {
			return nil, fmt.Errorf("checking added_tokens: %q has ids %d and %d", a.Content, prev, a.ID)
		}
		t.addedByID[a.ID] = a
		t.addedIDs[a.Content] = a.ID
		t.tokens[a.ID] = a.Content
		if a.Normalized {
			nrmToks = append(nrmToks, a)
		} else {
			rawToks = append(rawToks, a)
		}
	}
	t.raw = newMatcher(rawToks, rawContent)
	t.nrm = newMatcher(nrmToks, t.normContent)
	t.specials = t.findSpecials("<|im_end|>", "<|endoftext|>")
	t.maxBytesPerToken = t.bytesPerTokenBound()
	return t, nil
}

// findSpecials fills SpecialIDs given the eos and pad spellings.
func (t *Tokenizer) findSpecials(eos, pad string) SpecialIDs {
	id := func(s string) int {
		if v, ok := t.TokenToID(s); ok {
			return v
		}
		return -1
	}
	s := SpecialIDs{
		EOS: id(eos), Pad: id(pad),
		EndOfText: id("<|endoftext|>"), IMStart: id("<|im_start|>"), IMEnd: id("<|im_end|>"),
		Think: id("<think>"), EndThink: id("</think>"),
	}
	if s.EOS < 0 {
		s.EOS = s.EndOfText
	}
	return s
}

// applyConfig reads eos_token and pad_token from tokenizer_config.json.
func (t *Tokenizer) applyConfig(data []byte) error {
	var cfg struct {
		EOS json.RawMessage `json:"eos_token"`
		Pad json.RawMessage `json:"pad_token"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("parsing tokenizer_config.json: %w", err)
	}
	eos, pad := tokenName(cfg.EOS), tokenName(cfg.Pad)
	if eos == "" {
		eos = "<|im_end|>"
	}
	if pad == "" {
		pad = "<|endoftext|>"
	}
	for _, name := range []string{eos, pad} {
		if _, ok := t.TokenToID(name); !ok {
			return fmt.Errorf("checking special tokens: %q is not in the vocabulary", name)
		}
	}
	t.specials = t.findSpecials(eos, pad)
	return nil
}

// tokenName accepts "tok" or {"content": "tok", ...}; null gives "".
func tokenName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct{ Content string }
	if json.Unmarshal(raw, &o) == nil {
		return o.Content
	}
	return ""
}

// parseMerges accepts both serialisations: ["a b", ...] and [["a","b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err == nil {
		return pairs, nil
	}
	var strs []string
	if err := json.Unmarshal(raw, &strs); err != nil {
		return nil, fmt.Errorf("parsing model.merges: neither [\"a b\"] nor [[\"a\",\"b\"]]: %w", err)
	}
	pairs = make([][2]string, len(strs))
	for i, s := range strs {
		j := bytes.IndexByte([]byte(s), ' ')
		if j <= 0 || j == len(s)-1 || bytes.IndexByte([]byte(s[j+1:]), ' ') >= 0 {
			return nil, fmt.Errorf("parsing model.merges[%d] %q: want two tokens separated by one space", i, s)
		}
		pairs[i] = [2]string{s[:j], s[j+1:]}
	}
	return pairs, nil
}
