package train

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"mascot.dev/mascot/trainer/sample"
	"mascot.dev/mascot/trainer/serve/constrain"
)

// grammar constrains the Director's in-process draws to the JSON schema
// its requests carry (a directive whose agent is one of the roster), with
// the masking the built-in engine applies to a json_schema request
// (trainer/serve/constrain): the policy then samples from the same
// distribution it acts with when an endpoint serves it, and its directives
// parse.
type grammar struct {
	tok  tok
	size int // the model's vocabulary (logits) size

	once  sync.Once
	vocab *constrain.Vocab

	mu       sync.Mutex
	compiled map[string]*constrain.Schema
}

func newGrammar(tk tok, vocabSize int) *grammar {
	return &grammar{tok: tk, size: vocabSize, compiled: map[string]*constrain.Schema{}}
}

// spell is a token's output bytes; nothing for special and unused ids.
func (g *grammar) spell(id int) []byte {
	if id >= g.tok.VocabSize() || g.tok.IsSpecial(id) {
		return nil
	}
	return g.tok.DecodeBytes([]int{id})
}

func (g *grammar) schema(raw json.RawMessage) (*constrain.Schema, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.compiled[string(raw)]; ok {
		return s, nil
	}
	s, err := constrain.Compile(raw)
	if err != nil {
		return nil, fmt.Errorf("compiling the Director's JSON schema: %w", err)
	}
	g.compiled[string(raw)] = s
	return s, nil
}

// processor masks, at every step, the tokens that cannot continue a
// document valid against schema within maxTokens (EOS once it is
// complete). A budget too small for the shortest document is an error, as
// the built-in engine refuses such a max_tokens.
func (g *grammar) processor(raw json.RawMessage, maxTokens int) (sample.LogitsProcessor, error) {
	sch, err := g.schema(raw)
	if err != nil {
		return nil, err
	}
	if sch.MinBytes()+1 > maxTokens {
		return nil, fmt.Errorf("max_completion_length %d is too small for the Director's JSON schema: its shortest directive takes %d tokens plus the end token", maxTokens, sch.MinBytes())
	}
	mask := g.masker(sch, maxTokens)
	return func(_ int, generated []int, logits []float32) { mask(generated, logits) }, nil
}

// masker is the mask of the step after generated: -Inf on every logit
// whose token cannot continue a valid document within maxTokens.
func (g *grammar) masker(sch *constrain.Schema, maxTokens int) func(generated []int, logits []float32) {
	g.once.Do(func() { g.vocab = constrain.NewVocab(g.size, g.spell) })
	stops := []int{g.tok.EOS()}
	return func(generated []int, logits []float32) {
		m := sch.Start()
		for _, t := range generated {
			m.FeedBytes(g.spell(t))
		}
		g.vocab.Mask(m, maxTokens-len(generated), stops, logits)
	}
}

// forced marks the completion tokens the schema forced: at their step the
// processor's mask left that token alone (the JSON around a directive's
// fields, the rest of an agent's name once its first letters tell it
// apart, the end token of a complete directive). They are not choices of
// the policy, and the GRPO loss leaves them out (rollouts.episode).
func (g *grammar) forced(raw json.RawMessage, maxTokens int, completion []int) ([]bool, error) {
	sch, err := g.schema(raw)
	if err != nil {
		return nil, err
	}
	mask := g.masker(sch, maxTokens)
	out := make([]bool, len(completion))
	logits := make([]float32, g.size)
	for k := range completion {
		clear(logits)
		mask(completion[:k], logits)
		allowed := 0
		for _, l := range logits {
			if !math.IsInf(float64(l), -1) {
				allowed++
			}
		}
		out[k] = allowed == 1
	}
	return out, nil
}
