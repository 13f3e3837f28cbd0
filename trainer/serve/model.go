package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve/constrain"
	"mascot.dev/mascot/trainer/tokenizer"
)

// MarkerFile is the sidecar a model directory may hold to say which
// tokenizer it uses: {"mascot_tokenizer": "bytes"} selects
// tokenizer.NewByteLevel (the tiny demo models); without it the directory
// must hold a tokenizer.json.
const MarkerFile = "mascot.json"

// Marker is the content of MarkerFile.
type Marker struct {
	// Tokenizer is "bytes" for the byte-level demo tokenizer, or empty
	// for tokenizer.json.
	Tokenizer string `json:"mascot_tokenizer"`
}

// WriteByteTokenizerMarker marks dir as a model that uses the byte-level
// demo tokenizer.
func WriteByteTokenizerMarker(dir string) error {
	b, _ := json.MarshalIndent(Marker{Tokenizer: "bytes"}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing tokenizer marker: %w", err)
	}
	return nil
}

// LoadTokenizer returns the tokenizer of a model directory: the byte-level
// demo tokenizer when MarkerFile says "bytes", else tokenizer.json.
func LoadTokenizer(dir string) (*tokenizer.Tokenizer, error) {
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	switch {
	case err == nil:
		var m Marker
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("reading %s: %w", MarkerFile, err)
		}
		switch m.Tokenizer {
		case "bytes":
			return tokenizer.NewByteLevel(), nil
		case "":
		default:
			return nil, fmt.Errorf("reading %s: unknown mascot_tokenizer %q (want \"bytes\" or none)", MarkerFile, m.Tokenizer)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("reading %s: %w", MarkerFile, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return nil, fmt.Errorf("loading tokenizer: %s has neither tokenizer.json nor a %s marker", dir, MarkerFile)
	}
	t, err := tokenizer.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer: %w", err)
	}
	return t, nil
}

// bundle is one loaded base model with its tokenizer.
type bundle struct {
	id, dir string
	model   *qwen3.Model
	tok     *tokenizer.Tokenizer
	stops   []int // end-of-generation ids: tokenizer EOS, <|endoftext|>, config eos
	maxLen  int
	created int64

	vocabOnce sync.Once
	vocab     *constrain.Vocab
}

func loadBundle(dir, id string, maxLen int) (*bundle, error) {
	m, err := qwen3.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("loading model: %w", err)
	}
	if m.Config.IsSequenceClassification() {
		return nil, fmt.Errorf("loading model: %s is a sequence-classification checkpoint, not a causal LM", dir)
	}
	tok, err := LoadTokenizer(dir)
	if err != nil {
		return nil, err
	}
	return newBundle(m, tok, dir, id, maxLen), nil
}

func newBundle(m *qwen3.Model, tok *tokenizer.Tokenizer, dir, id string, maxLen int) *bundle {
	if id == "" {
		id = shownPath(dir)
	}
	if maxLen <= 0 || maxLen > m.Config.MaxPositionEmbeddings {
		maxLen = m.Config.MaxPositionEmbeddings
	}
	b := &bundle{id: id, dir: dir, model: m, tok: tok, maxLen: maxLen, created: time.Now().Unix()}
	sp := tok.Specials()
	seen := map[int]bool{}
	for _, s := range []int{sp.EOS, sp.EndOfText, m.Config.EOSTokenID} {
		if s >= 0 && s < m.Config.VocabSize && !seen[s] {
			seen[s] = true
			b.stops = append(b.stops, s)
		}
	}
	return b
}

// spell is the output bytes of one token: nothing for special tokens.
func (b *bundle) spell(id int) []byte {
	if b.tok.IsSpecial(id) {
		return nil
	}
	return b.tok.DecodeBytes([]int{id})
}

// jsonVocab is the trie used for constrained decoding: every ordinary token
// of the model's vocabulary.
func (b *bundle) jsonVocab() *constrain.Vocab {
	b.vocabOnce.Do(func() {
		b.vocab = constrain.NewVocab(b.model.Config.VocabSize, b.spell)
	})
	return b.vocab
}

// adapter is a loaded LoRA adapter served under its own name.
type adapter struct {
	name, path string
	view       *qwen3.Model
}

func loadAdapter(base *qwen3.Model, name, path string) (*adapter, error) {
	a, err := lora.Load(path)
	if err != nil {
		return nil, err
	}
	v, err := base.WithAdapters(a)
	if err != nil {
		return nil, err
	}
	return &adapter{name: name, path: path, view: v}, nil
}
