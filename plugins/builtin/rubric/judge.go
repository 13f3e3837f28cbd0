package rubric

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"mascot.dev/mascot/llm"
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// Judge is the rubric judge (sdk.Judge).
type Judge struct {
	cfg     Config
	clients []*chatClient
}

var _ sdk.Judge = (*Judge)(nil)

// New returns an unconfigured rubric judge.
func New() *Judge { return &Judge{} }

// Describe implements sdk.Judge.
func (j *Judge) Describe(context.Context) (sdk.JudgeInfo, error) {
	return sdk.JudgeInfo{Name: "rubric", Version: "1", RubricVersion: RubricVersion, Criteria: PaperV1(),
		Scale:     sdk.Scale{Min: 1, Max: 5},
		ItemKinds: []spec.ItemKind{spec.KindCandidate, spec.KindTurn, spec.KindEpisode, spec.KindComparison}}, nil
}

// Configure implements sdk.Judge.
func (j *Judge) Configure(_ context.Context, raw json.RawMessage) ([]sdk.Diagnostic, error) {
	cfg, ds := sdk.DecodeConfig[Config](raw)
	if spec.HasErrors(ds) {
		return ds, nil
	}
	clients, err := newClients(cfg.Judges)
	if err != nil {
		return append(ds, spec.Errorf("", "%v", err)), nil
	}
	for _, e := range cfg.Judges {
		if e.Concurrency > cfg.Concurrency {
			cfg.Concurrency = e.Concurrency // the endpoint's limit applies in the client
		}
	}
	j.cfg, j.clients = cfg, clients
	return ds, nil
}

// Score implements sdk.Judge: every item is judged by every configured
// judge; per-judge and pooled (mean) scores are returned, with agreement
// statistics over the batch when there are several judges.
func (j *Judge) Score(ctx context.Context, items []sdk.Item) (sdk.ScoreResult, error) {
	if len(j.clients) == 0 {
		return sdk.ScoreResult{Diagnostics: []sdk.Diagnostic{spec.Errorf("", "rubric judge is not configured (no judges)")}}, nil
	}
	res := sdk.ScoreResult{Results: make([]sdk.ItemResult, len(items))}
	ctx, tally := withTally(ctx)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.cfg.Concurrency)
	for i, it := range items {
		g.Go(func() error {
			// Through the host's LLM gateway, the item's requests carry
			// the scope of the unit it belongs to (cache keys, counters).
			ictx := gctx
			if scope := it.Metadata[llm.ScopeMetadata]; scope != "" {
				ictx = llm.WithScope(gctx, scope)
			}
			if it.Kind == spec.KindComparison {
				res.Results[i] = j.compareItem(ictx, it)
			} else {
				res.Results[i] = j.scoreItem(ictx, it)
			}
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return sdk.ScoreResult{}, err
	}
	res.Statistics = append(agreement(res.Results, j.judgeNames()), tallyStatistics(tally)...)
	return res, nil
}

func (j *Judge) judgeNames() []string {
	out := make([]string, len(j.cfg.Judges))
	for i, e := range j.cfg.Judges {
		out[i] = e.Name
	}
	return out
}

// levelOf says which criteria apply to an item.
func levelOf(it sdk.Item) string {
	if it.Kind == spec.KindEpisode {
		return LevelCollective
	}
	return LevelAgent
}

// blocks splits an episode item into N-turn blocks when configured.
func (j *Judge) blocks(it sdk.Item) []sdk.Item {
	n := j.cfg.BlockTurns
	if it.Kind != spec.KindEpisode || n <= 0 || len(it.Turns) <= n {
		return []sdk.Item{it}
	}
	var out []sdk.Item
	for s := 0; s < len(it.Turns); s += n {
		b := it
		b.Turns = it.Turns[s:min(s+n, len(it.Turns))]
		out = append(out, b)
	}
	return out
}

func (j *Judge) scoreItem(ctx context.Context, it sdk.Item) sdk.ItemResult {
	r := sdk.ItemResult{ItemID: it.ID}
	criteria := criteriaFor(PaperV1(), levelOf(it), j.cfg.Criteria)
	if len(criteria) == 0 {
		r.Diagnostics = append(r.Diagnostics, spec.Errorf(it.ID, "no %s criteria selected for a %s item", levelOf(it), it.Kind))
		return r
	}
	schema := scoreSchema(criteria)
	blocks := j.blocks(it)
	per := make([]judgeRun, len(j.clients))
	var wg sync.WaitGroup
	for k, c := range j.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			per[k] = c.scoreBlocks(ctx, it.ID, criteria, schema, blocks, it.Seed)
		}()
	}
	wg.Wait()
	pooled := map[string]float64{}
	for k, run := range per {
		r.RawOutputs = append(r.RawOutputs, run.raws...)
		r.Diagnostics = append(r.Diagnostics, run.diags...)
		for _, cr := range criteria {
			v := run.sums[cr.ID] / float64(len(blocks))
			r.Scores = append(r.Scores, sdk.Score{CriterionID: cr.ID, Judge: j.clients[k].judge.Name, Raw: v,
				Rationale: strings.Join(run.rationales[cr.ID], "\n")})
			pooled[cr.ID] += v / float64(len(j.clients))
		}
	}
	if spec.HasErrors(r.Diagnostics) {
		r.Scores = nil // pooled scores come from all judges or not at all
		return r
	}
	for _, cr := range criteria {
		r.Scores = append(r.Scores, sdk.Score{CriterionID: cr.ID, Raw: pooled[cr.ID], Rationale: "mean over judges"})
	}
	return r
}

// judgeRun is one judge's outcome on one item (summed over blocks).
type judgeRun struct {
	sums       map[string]float64
	rationales map[string][]string
	raws       []sdk.RawOutput
	diags      []sdk.Diagnostic
}

func (c *chatClient) scoreBlocks(ctx context.Context, itemID string, criteria []spec.Criterion, schema json.RawMessage, blocks []sdk.Item, seed int64) judgeRun {
	run := judgeRun{sums: map[string]float64{}, rationales: map[string][]string{}}
	for _, b := range blocks {
		out, err := c.complete(ctx, scorePrompt(criteria, b), "rubric_scores", schema, seed)
		if err != nil {
			run.diags = append(run.diags, sdk.Diagnostic{Severity: spec.SeverityError, ItemID: itemID,
				Summary: fmt.Sprintf("judge %s call failed", c.judge.Name), Detail: err.Error()})
			return run
		}
		run.raws = append(run.raws, sdk.RawOutput{Judge: c.judge.Name, Text: out})
		ps, err := parseScores(out, criteria)
		if err != nil {
			run.diags = append(run.diags, sdk.Diagnostic{Severity: spec.SeverityError, ItemID: itemID,
				Summary: fmt.Sprintf("judge %s output unusable: %v", c.judge.Name, err), Detail: snippet([]byte(out))})
			return run
		}
		for id, p := range ps {
			run.sums[id] += p.raw
			if p.rationale != "" {
				run.rationales[id] = append(run.rationales[id], p.rationale)
			}
		}
	}
	return run
}
