package reward

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Func scores one completion of a prompt.
type Func func(ctx context.Context, prompt, completion string) (float64, error)

// ErrAbstain is returned (possibly wrapped) by a component that has no
// opinion on a completion; Weighted skips it.
var ErrAbstain = errors.New("reward: abstained")

// ModelScore wraps a reward model's scoring callback (for example a
// trainer/qwen3 sequence-classification model over the rendered prompt
// and completion) as a reward.
func ModelScore(score func(ctx context.Context, prompt, completion string) (float64, error)) Func {
	return func(ctx context.Context, prompt, completion string) (float64, error) {
		s, err := score(ctx, prompt, completion)
		if err != nil {
			return 0, fmt.Errorf("scoring with reward model: %w", err)
		}
		return s, nil
	}
}

// Judge wraps a judge callback whose scores lie in [lo, hi] and maps them
// linearly to [0, 1], clamping outliers.
func Judge(judge func(ctx context.Context, prompt, completion string) (float64, error), lo, hi float64) (Func, error) {
	if !(hi > lo) {
		return nil, fmt.Errorf("creating judge reward: scale [%g, %g] is empty", lo, hi)
	}
	return func(ctx context.Context, prompt, completion string) (float64, error) {
		s, err := judge(ctx, prompt, completion)
		if err != nil {
			return 0, fmt.Errorf("judging completion: %w", err)
		}
		return math.Min(1, math.Max(0, (s-lo)/(hi-lo))), nil
	}, nil
}

// FormatOptions configure the format reward.
type FormatOptions struct {
	// Pattern, when set, replaces the default checks: 1 on a full match, 0 otherwise.
	Pattern *regexp.Regexp
}

var (
	residue     = []string{"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>"}
	speakerTag  = regexp.MustCompile(`^\p{L}+:`)
	sentenceEnd = ".!?…\"')。！？"
)

// Format returns the format reward defined in the package doc.
func Format(o FormatOptions) Func {
	return func(_ context.Context, _, completion string) (float64, error) {
		if o.Pattern != nil {
			if loc := o.Pattern.FindStringIndex(completion); loc != nil && loc[0] == 0 && loc[1] == len(completion) {
				return 1, nil
			}
			return 0, nil
		}
		s := strings.TrimSpace(completion)
		var score float64
		if s != "" {
			score++
		}
		clean := true
		for _, r := range residue {
			if strings.Contains(completion, r) {
				clean = false
			}
		}
		if clean {
			score++
		}
		if !speakerTag.MatchString(s) {
			score++
		}
		if last, _ := utf8.DecodeLastRuneInString(s); s != "" && strings.ContainsRune(sentenceEnd, last) {
			score++
		}
		return score / 4, nil
	}
}

// Conciseness returns the conciseness reward for a target word count.
func Conciseness(target int) (Func, error) { return ConcisenessWithin(0, target) }

// ConcisenessWithin is Conciseness with a minimum: fewer than minWords
// words (0: no minimum) earn n/minWords.
func ConcisenessWithin(minWords, target int) (Func, error) {
	if target <= 0 {
		return nil, fmt.Errorf("creating conciseness reward: target %d words must be positive", target)
	}
	if minWords < 0 || minWords > target {
		return nil, fmt.Errorf("creating conciseness reward: minimum %d words must lie in [0, target %d]", minWords, target)
	}
	return func(_ context.Context, _, completion string) (float64, error) {
		n := len(strings.FieldsFunc(completion, unicode.IsSpace))
		switch {
		case n == 0:
			return 0, nil
		case n < minWords:
			return float64(n) / float64(minWords), nil
		case n <= target:
			return 1, nil
		default:
			return math.Max(0, 1-float64(n-target)/float64(target)), nil
		}
	}, nil
}

// Component is one weighted part of a combined reward.
type Component struct {
	Name   string
	Weight float64
	Func   Func
}

// Weighted combines components into Σ w_k·r_k (see the package doc).
// Use Evaluate to also get the per-component values.
func Weighted(parts ...Component) Func {
	return func(ctx context.Context, prompt, completion string) (float64, error) {
		total, _, err := Evaluate(ctx, parts, prompt, completion)
		return total, err
	}
}

// Evaluate returns the weighted sum and each component's raw value (NaN
// for an abstention).
func Evaluate(ctx context.Context, parts []Component, prompt, completion string) (float64, map[string]float64, error) {
	vals := make(map[string]float64, len(parts))
	total, any := 0.0, false
	for _, p := range parts {
		v, err := p.Func(ctx, prompt, completion)
		if errors.Is(err, ErrAbstain) {
			vals[p.Name] = math.NaN()
			continue
		}
		if err != nil {
			return 0, nil, fmt.Errorf("computing reward %s: %w", p.Name, err)
		}
		vals[p.Name] = v
		total += p.Weight * v
		any = true
	}
	if !any {
		return math.NaN(), vals, nil
	}
	return total, vals, nil
}
