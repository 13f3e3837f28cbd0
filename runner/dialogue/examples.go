package dialogue

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"mascot.dev/mascot/runner/datasets"
)

// Example is one (context -> supporter reply) pair for few-shot prompts and
// multiagent-esc retrieval.
type Example struct {
	Context  string `json:"context"`
	Response string `json:"response"`
	Strategy string `json:"strategy,omitempty"`
}

// ExamplePool is an immutable example set with a BM25 index over the
// examples' contexts. It is safe for concurrent use.
type ExamplePool struct {
	ex       []Example
	docLen   []int
	postings map[string][]posting // term -> documents containing it
	avgdl    float64
}

// posting is one term's frequency in one document.
type posting struct{ doc, tf int }

// BM25 parameters (the usual defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// NewExamplePool indexes examples.
func NewExamplePool(examples []Example) *ExamplePool {
	p := &ExamplePool{ex: examples, postings: map[string][]posting{}}
	total := 0
	for i, e := range examples {
		toks := tokens(e.Context)
		p.docLen = append(p.docLen, len(toks))
		total += len(toks)
		tf := map[string]int{}
		for _, t := range toks {
			tf[t]++
		}
		for t, f := range tf {
			p.postings[t] = append(p.postings[t], posting{i, f})
		}
	}
	if len(examples) > 0 {
		p.avgdl = float64(total) / float64(len(examples))
	}
	return p
}

// Len is the number of examples.
func (p *ExamplePool) Len() int { return len(p.ex) }

// At returns example i.
func (p *ExamplePool) At(i int) Example { return p.ex[i] }

// Search returns the indexes of the k examples whose context scores highest
// under BM25 against query (ties by lower index; zero scores excluded).
func (p *ExamplePool) Search(query string, k int) []int {
	q := map[string]bool{}
	for _, t := range tokens(query) {
		q[t] = true
	}
	n := float64(len(p.ex))
	score := map[int]float64{}
	for t := range q {
		ps := p.postings[t]
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, ps := range ps {
			ff := float64(ps.tf)
			score[ps.doc] += idf * ff * (bm25K1 + 1) / (ff + bm25K1*(1-bm25B+bm25B*float64(p.docLen[ps.doc])/p.avgdl))
		}
	}
	type hit struct {
		i int
		s float64
	}
	hits := make([]hit, 0, len(score))
	for i, s := range score {
		if s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].s != hits[b].s {
			return hits[a].s > hits[b].s
		}
		return hits[a].i < hits[b].i
	})
	out := make([]int, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.i)
	}
	return out
}

// ExamplesFromSamples turns dataset items into examples. Conversations
// (ESConv, Empathetic Dialogues) give one per supporter utterance, with the
// situation and up to three previous utterances as context and the
// normalised strategy. A meeting query (QMSum) with a reference answer
// gives one: the query as context, the reference answer as the reply; the
// transcript is not repeated (the prompt already holds the meeting the
// user asks about).
func ExamplesFromSamples(samples []datasets.Sample) []Example {
	var out []Example
	for _, s := range samples {
		if s.Query != "" {
			if a := strings.TrimSpace(s.Answer); a != "" {
				out = append(out, Example{Context: "Question about a meeting: " + strings.TrimSpace(s.Query), Response: a})
			}
			continue
		}
		for i, u := range s.Context {
			if !supporterLabels[strings.ToLower(u.Speaker)] || strings.TrimSpace(u.Text) == "" {
				continue
			}
			var b strings.Builder
			if s.Situation != "" {
				fmt.Fprintf(&b, "Situation: %s\n", s.Situation)
			}
			for _, prev := range s.Context[max(0, i-3):i] {
				fmt.Fprintf(&b, "%s: %s\n", prev.Speaker, prev.Text)
			}
			strategy := NormalizeStrategy(u.Strategy)
			if strategy == "" {
				strategy = u.Strategy
			}
			out = append(out, Example{Context: strings.TrimSpace(b.String()), Response: u.Text, Strategy: strategy})
		}
	}
	return out
}
