package sample

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"mascot.dev/mascot/trainer/qwen3"
)

// LogitsProcessor may edit a sequence's next-token logits in place before
// sampling (e.g. set banned tokens to −Inf). step counts generated tokens
// so far; generated holds them (do not keep it).
type LogitsProcessor func(step int, generated []int, logits []float32)

// Params controls sampling. The zero value is greedy with no token limit
// other than MaxTokens, which must be positive.
type Params struct {
	// Temperature divides the logits; 0 means greedy (argmax).
	Temperature float32
	// TopK keeps the K most likely tokens; 0 disables it.
	TopK int
	// TopP keeps the smallest prefix of mass ≥ TopP; 0 or 1 disables it.
	TopP float32
	// Seed selects the random streams: sequence i uses PCG(Seed, i).
	Seed uint64
	// StopTokens end a sequence (the stop token is kept in the output).
	StopTokens []int
	// MaxTokens caps the completion length.
	MaxTokens int
	// Processor, if set, edits the logits of every step.
	Processor LogitsProcessor
}

// Finish reasons, as OpenAI reports them.
const (
	FinishStop   = "stop"
	FinishLength = "length"
)

// Result is one completion.
type Result struct {
	Tokens []int
	// LogProbs[i] is log p(Tokens[i]) under the temperature-scaled,
	// processor-edited distribution (see the package doc).
	LogProbs     []float32
	FinishReason string
}

// ErrNoToken is returned when the processor masked every token.
var ErrNoToken = errors.New("sampling: every token is masked")

// Generate samples one completion of prompt.
func Generate(ctx context.Context, m *qwen3.Model, prompt []int, p Params) (Result, error) {
	rs, err := GenerateN(ctx, m, prompt, 1, p)
	if err != nil {
		return Result{}, err
	}
	return rs[0], nil
}

// GenerateN samples n completions of one prompt: the prompt is prefilled
// once, its cache cloned, and the n sequences decoded as one batch.
func GenerateN(ctx context.Context, m *qwen3.Model, prompt []int, n int, p Params) ([]Result, error) {
	if n <= 0 {
		return nil, fmt.Errorf("sampling: n must be positive, got %d", n)
	}
	c := m.NewCache()
	logits, err := prefill(ctx, m, c, prompt)
	if err != nil {
		return nil, fmt.Errorf("sampling: %w", err)
	}
	caches := []*qwen3.Cache{c}
	first := [][]float32{logits}
	for i := 1; i < n; i++ {
		caches = append(caches, c.Clone())
		first = append(first, slices.Clone(logits))
	}
	return decode(ctx, m, caches, first, p)
}

// GenerateBatch samples one completion of each prompt, decoding them as
// one batch; sequence i uses PCG(Seed, i).
func GenerateBatch(ctx context.Context, m *qwen3.Model, prompts [][]int, p Params) ([]Result, error) {
	caches := make([]*qwen3.Cache, len(prompts))
	first := make([][]float32, len(prompts))
	for i, pr := range prompts {
		caches[i] = m.NewCache()
		lg, err := prefill(ctx, m, caches[i], pr)
		if err != nil {
			return nil, fmt.Errorf("sampling prompt %d: %w", i, err)
		}
		first[i] = lg
	}
	return decode(ctx, m, caches, first, p)
}

// PrefillChunk is how many prompt tokens one prefill call takes: a longer
// prompt is prefilled in chunks with the context checked between them, so
// that a cancelled rollout of a long prompt on a large model stops within
// a chunk's time; a prompt up to it is prefilled in one call.
const PrefillChunk = 512

func prefill(ctx context.Context, m *qwen3.Model, c *qwen3.Cache, ids []int) ([]float32, error) {
	if len(ids) == 0 {
		return m.Prefill(c, ids) // its error
	}
	var logits []float32
	for lo := 0; lo < len(ids); lo += PrefillChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if logits, err = m.Prefill(c, ids[lo:min(lo+PrefillChunk, len(ids))]); err != nil {
			return nil, err
		}
	}
	return logits, nil
}

// decode runs the sampling loop over sequences whose next-token logits are
// already known.
func decode(ctx context.Context, m *qwen3.Model, caches []*qwen3.Cache, logits [][]float32, p Params) ([]Result, error) {
	if p.MaxTokens <= 0 {
		return nil, fmt.Errorf("sampling: max tokens must be positive, got %d", p.MaxTokens)
	}
	if p.Temperature < 0 || p.TopK < 0 || p.TopP < 0 || p.TopP > 1 {
		return nil, fmt.Errorf("sampling: invalid params temperature=%v top_k=%d top_p=%v", p.Temperature, p.TopK, p.TopP)
	}
	stop := map[int]bool{}
	for _, t := range p.StopTokens {
		stop[t] = true
	}
	res := make([]Result, len(caches))
	rngs := make([]*rand.Rand, len(caches))
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(p.Seed, uint64(i)))
	}
	active := make([]int, len(caches))
	for i := range active {
		active[i] = i
	}
	var buf []float32
	for step := 0; len(active) > 0; step++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("sampling: %w", err)
		}
		var stepCaches []*qwen3.Cache
		var stepTokens, still []int
		for j, i := range active {
			lg := logits[j]
			if p.Processor != nil {
				p.Processor(step, res[i].Tokens, lg)
			}
			tok, lp, err := choose(lg, p, rngs[i])
			if err != nil {
				return nil, err
			}
			res[i].Tokens = append(res[i].Tokens, tok)
			res[i].LogProbs = append(res[i].LogProbs, lp)
			switch {
			case stop[tok]:
				res[i].FinishReason = FinishStop
			case len(res[i].Tokens) >= p.MaxTokens:
				res[i].FinishReason = FinishLength
			default:
				stepCaches = append(stepCaches, caches[i])
				stepTokens = append(stepTokens, tok)
				still = append(still, i)
			}
		}
		active = still
		if len(active) == 0 {
			break
		}
		// A step's logits are read by the draws above only, before the
		// next step writes over them.
		var err error
		if logits, buf, err = m.StepBatchInto(stepCaches, stepTokens, buf); err != nil {
			return nil, fmt.Errorf("sampling: %w", err)
		}
	}
	return res, nil
}

// choose picks the next token from logits and returns it with its
// log-prob (see the package doc for which distribution).
func choose(logits []float32, p Params, r *rand.Rand) (int, float32, error) {
	tok, lp, _, err := Choose(logits, p, r)
	return tok, lp, err
}
