package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/spec"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/stages/judge/plugstart"
	"mascot.dev/mascot/schema"
)

// Config is #JudgeStage.
type Config struct {
	Items      string   `json:"items"`
	Level      string   `json:"level"`
	Judges     []string `json:"judges"`
	BlockTurns int      `json:"block_turns,omitempty"`
	Compare    []string `json:"compare"`
}

// Levels of a judge stage.
const (
	LevelAgent      = "agent"
	LevelCollective = "collective"
	LevelCompare    = "compare"
)

type stage struct {
	env     *runner.Env
	key     string
	cfg     Config
	source  string // kind of the items stage: candidates | episodes
	plugins map[string]*plugstart.Lazy[*host.PluginJudge]
	// gateway lists the judges that call their endpoint through the
	// run's LLM gateway (the built-in rubric judge): the host counts
	// their requests, so the LLM counts they report are not added again.
	gateway map[string]bool
}

// New builds the stage.
func New(env *runner.Env, st schema.Stage) (runner.Stage, error) {
	s := &stage{env: env, key: st.Key, plugins: map[string]*plugstart.Lazy[*host.PluginJudge]{}, gateway: map[string]bool{}}
	if err := st.Decode(&s.cfg); err != nil {
		return nil, err
	}
	if s.cfg.Level == "" {
		s.cfg.Level = LevelAgent
	}
	up, ok := env.Exp.Stages[s.cfg.Items]
	if !ok {
		return nil, fmt.Errorf("judge stage %s: items names unknown stage %q", st.Key, s.cfg.Items)
	}
	s.source = up.Kind
	switch {
	case s.source != "candidates" && s.source != "episodes":
		return nil, fmt.Errorf("judge stage %s: items must name a candidates or episodes stage, %q is %s", st.Key, s.cfg.Items, s.source)
	case s.cfg.Level == LevelCompare && s.source != "episodes":
		return nil, fmt.Errorf("judge stage %s: level compare needs episodes stages", st.Key)
	case s.cfg.Level == LevelCollective && s.source != "episodes":
		return nil, fmt.Errorf("judge stage %s: level collective needs an episodes stage", st.Key)
	}
	for _, c := range s.cfg.Compare {
		if k := env.Exp.Stages[c].Kind; k != "episodes" {
			return nil, fmt.Errorf("judge stage %s: compare names %q, which is not an episodes stage", st.Key, c)
		}
	}
	for _, name := range s.cfg.Judges {
		if _, ok := env.Exp.Judges[name]; !ok {
			return nil, fmt.Errorf("judge stage %s: unknown judge %q", st.Key, name)
		}
		s.plugins[name] = &plugstart.Lazy[*host.PluginJudge]{}
		s.gateway[name] = env.Gateway != nil && viaGateway(env.Exp.Judges[name])
	}
	return s, nil
}

// work is a unit's payload: the items and where their rows go.
type work struct {
	items   []spec.Item
	targets map[string]target
}

// target is where an item's judgments are written.
type target struct {
	candidateID, turnID, episodeID int64
	agent                          string
	// comparison items: alternative id -> system, and the episodes shown.
	systems  map[string]string
	order    []string
	episodes []int64
	context  string
}

func (s *stage) Units(ctx context.Context) ([]runner.Unit, error) {
	switch {
	case s.cfg.Level == LevelCompare:
		return s.compareUnits(ctx)
	case s.source == "candidates":
		return s.candidateUnits(ctx)
	default:
		return s.episodeUnits(ctx)
	}
}

func (s *stage) Run(ctx context.Context, u runner.Unit) (runner.Commit, error) {
	w := u.Payload.(*work)
	items := w.items
	token := ""
	if s.env.Gateway != nil {
		// The unit's scope: requests through the gateway count in this
		// unit and are cached under its fingerprint, per request.
		var release func()
		token, release = s.env.Gateway.Scope(ctx, u.Fingerprint)
		defer release()
		items = scoped(w.items, token)
	}
	var rows []results.Judgment
	var cmps []results.Comparison
	for _, name := range s.cfg.Judges {
		j, err := s.plugin(ctx, name)
		if err != nil {
			return nil, err
		}
		info, err := j.Describe(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing judge %s: %w", name, err)
		}
		res, err := s.score(ctx, name, j, items)
		if token != "" {
			// Replies the judge could not use are not replayed: a rerun
			// asks again for exactly the items it gave up on.
			s.env.Gateway.Forget(token, voided(items, res))
		}
		if err != nil {
			return nil, fmt.Errorf("judging %s with %s: %w", u.Key, name, err)
		}
		s.env.CountIn(ctx, s.key, "num_annotation_failures", int64(res.AnnotationFailures))

		s.env.CountIn(ctx, s.key, "num_items_judged", int64(len(w.items)-res.AnnotationFailures))
		for _, d := range res.Diagnostics {
			s.env.Log.Warn("judge diagnostic", "stage", s.key, "judge", name, "diagnostic", d.String())
		}
		for i, r := range res.Results {
			if r.Failed {
				for _, d := range r.Diagnostics {
					s.env.Log.Warn("judge voided an item", "stage", s.key, "judge", name, "item", r.ItemID, "diagnostic", d.String())
				}
				continue
			}
			t := w.targets[w.items[i].ID]
			rows = append(rows, judgmentRows(name, info, t, r)...)
			cmps = append(cmps, comparisonRows(name, t, r)...)
		}
		if len(w.items) > 0 && res.AnnotationFailures == len(w.items) {
			// Nothing usable came back: fail the unit so a rerun retries it
			// instead of caching an empty result.
			return nil, fmt.Errorf("judge %s voided all %d items of %s (see the warnings above)", name, len(w.items), u.Key)
		}
	}
	return func(tx *results.Tx) error {
		if _, err := tx.InsertJudgments(rows); err != nil {
			return err
		}
		_, err := tx.InsertComparisons(cmps)
		return err
	}, nil
}

// plugin returns the started, configured plugin of judge name.
func (s *stage) plugin(ctx context.Context, name string) (*host.PluginJudge, error) {
	return s.plugins[name].Get(func() (*host.PluginJudge, error) {
		jc := s.env.Exp.Judges[name]
		conf, err := s.pluginConfig(name, jc)
		if err != nil {
			return nil, fmt.Errorf("judge %s: %w", name, err)
		}
		return plugstart.StartJudge(ctx, s.env, s.key, plugstart.Spec{Name: name, Plugin: jc.Plugin,
			Command: jc.Command, SHA256: jc.SHA256, Endpoints: nonEmpty(jc.Endpoint)}, conf)
	})
}

// seed is an item's deterministic seed (its requests' sampling seed, the
// order of comparison alternatives), from what identifies the item's
// content (unit fingerprint and position), never from row ids, which
// follow insertion order: two runs, or a run and its replay, give an item
// the same seed.
func (s *stage) seed(id string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", s.env.Seed(s.key), id)
	return int64(h.Sum64() & 0x7fffffffffffffff)
}

// viaGateway says whether judge jc calls its endpoint through the run's
// LLM gateway: the built-in rubric judge configured from its endpoint
// (one configured with its own "judges" option calls them itself).
func viaGateway(jc schema.Judge) bool {
	if jc.Plugin != "rubric" || len(jc.Command) > 0 {
		return false
	}
	opts, err := plugstart.Options(jc.Options)
	if err != nil {
		return false
	}
	_, own := opts["judges"]
	return !own
}

// pluginConfig is the JSON a judge plugin is configured with: its options,
// and for the built-in rubric judge the endpoint, mode and block size.
func (s *stage) pluginConfig(name string, jc schema.Judge) (json.RawMessage, error) {
	opts, err := plugstart.Options(jc.Options)
	if err != nil {
		return nil, err
	}
	if jc.Plugin == "rubric" && len(jc.Command) == 0 {
		if _, ok := opts["judges"]; !ok {
			ep, ok := s.env.Exp.Endpoints[jc.Endpoint]
			if !ok {
				return nil, fmt.Errorf("unknown endpoint %q", jc.Endpoint)
			}
			if len(ep.URLs) == 0 {
				return nil, fmt.Errorf("endpoint %q has no url", jc.Endpoint)
			}
			// The plugin calls the endpoint through the llm client with
			// the endpoint's own settings (replicas, concurrency, retries,
			// timeouts, sampling), written in the rubric's own options -
			// by way of the run's LLM gateway when there is one, whose
			// client retries, caches, journals, counts and traces each
			// request (the plugin then sends each once, with no key).
			e := rubricEndpoint(jc.Endpoint, ep)
			if s.gateway[name] {
				u := s.env.Gateway.BaseURL(jc.Endpoint, "judge:"+jc.Endpoint)
				t := gatewayTimeout(ep).Seconds()
				e["url"], e["urls"], e["max_retries"], e["timeout_s"], e["total_timeout_s"] = u, []string{u}, 0, t, t
				delete(e, "api_key_env")
			}
			if ep.Sampling.MaxTokens > 0 {
				e["max_tokens"] = ep.Sampling.MaxTokens
			}
			// A judge temperature given in the stage's judge options belongs
			// to the judge entry (the rubric's default is 0).
			if t, ok := opts["temperature"]; ok {
				e["temperature"] = t
				delete(opts, "temperature")
			}
			opts["judges"] = []any{e}
		}
		if s.cfg.Level == LevelCompare {
			opts["mode"] = "compare"
		}
		if s.cfg.BlockTurns > 0 {
			opts["block_turns"] = s.cfg.BlockTurns
		}
	}
	b, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("encoding judge config: %w", err)
	}
	return b, nil
}

// nonEmpty is []string{s}, or nil for "".
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
