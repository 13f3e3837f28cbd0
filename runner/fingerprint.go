package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"sync"

	"mascot.dev/mascot/results/jsonl"
	"mascot.dev/mascot/schema"
)

// executionOnly are stage fields that change how, not what, a stage
// computes; they stay out of fingerprints.
var executionOnly = []string{"after", "concurrency", "executor", "slurm"}

// stageFingerprint hashes what determines a stage's results.
func stageFingerprint(k Kind, st schema.Stage, exp *schema.Experiment, upstream map[string]string) (string, error) {
	var cfg map[string]any
	if err := json.Unmarshal(st.Raw, &cfg); err != nil {
		return "", err
	}
	for _, f := range executionOnly {
		delete(cfg, f)
	}
	// A training stage's device is part of what it computes (the cuda
	// backend's products round to bfloat16), but the default leaves the
	// fingerprints of configs written before the field as they were.
	if cfg["device"] == "cpu" {
		delete(cfg, "device")
	}
	// Endpoints enter by model id and sampling, never by URL or key.
	type epID struct {
		Kind, Model, ModelDir, ModelStage string
		Sampling                          schema.Sampling
		Thinking                          bool
	}
	eps := map[string]epID{}
	for _, f := range []string{"endpoint", "director", "speaker", "user", "rollout_endpoint"} {
		if name, ok := cfg[f].(string); ok {
			if ep, ok := exp.Endpoints[name]; ok {
				eps[f] = epID{ep.Kind, ep.Model, ep.ModelDir, ep.ModelStage, ep.Sampling, ep.EnableThinking}
			}
		}
	}
	// Referenced datasets, rosters, judges, metrics and rewards enter by value.
	refs := map[string]any{}
	for _, ref := range exp.Kinds.StageRefs(st.Kind) {
		if ref.Target == "stages" {
			continue
		}
		var names []string
		switch v := cfg[ref.Field].(type) {
		case string:
			names = []string{v}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					names = append(names, s)
				}
			}
		}
		for _, n := range names {
			switch ref.Target {
			case "datasets":
				refs["dataset/"+n] = exp.Datasets[n]
				for _, x := range exp.Datasets[n].Exclude { // their samples shape this one's
					refs["dataset/"+n+"/exclude/"+x] = exp.Datasets[x]
				}
			case "rosters":
				refs["roster/"+n] = exp.Rosters[n]
			case "judges":
				j := exp.Judges[n]
				refs["judge/"+n] = j
				if ep, ok := exp.Endpoints[j.Endpoint]; ok {
					refs["judge-endpoint/"+n] = epID{ep.Kind, ep.Model, ep.ModelDir, ep.ModelStage, ep.Sampling, ep.EnableThinking}
				}
			case "metrics":
				refs["metric/"+n] = exp.Metrics[n]
			case "rewards":
				refs["reward/"+n] = exp.Rewards[n]
			}
		}
	}
	ups := make([]string, 0, len(upstream))
	for k, fp := range upstream {
		ups = append(ups, k+"="+fp)
	}
	sort.Strings(ups)
	return digest(map[string]any{
		"kind": k.Name, "version": k.Version, "config": cfg,
		"endpoints": eps, "refs": refs, "upstream": ups,
	})
}

// UnitFingerprint is the fingerprint of a unit with inputs in a stage
// whose fingerprint is stageFP (the runner sets Unit.Fingerprint to it; a
// stage kind's tests compare the inputs it gives against earlier ones). It
// hashes a unit's inputs with its stage fingerprint:
// digest(map{"stage": stageFP, "inputs": canonical inputs}). The inputs
// are canonical already, so the map's encoding is too and is hashed as
// is, without digest's second round trip through any (the same bytes:
// TestUnitFingerprintIsDigestOfStageAndInputs).
func UnitFingerprint(stageFP string, inputs any) (string, error) {
	// json.Marshal of map{"stage": stageFP, "inputs": canonical inputs}:
	// the keys in order, the inputs as they are (compact already), written
	// into one pooled buffer (a unit's inputs hold its whole dialogue
	// context: kilobytes a unit).
	bp := fingerprintBufs.Get().(*[]byte)
	defer fingerprintBufs.Put(bp)
	enc, err := appendHashInputs(append((*bp)[:0], `{"inputs":`...), inputs)
	if err != nil {
		return "", err
	}
	enc = append(enc, `,"stage":`...)
	enc = jsonl.AppendString(enc, stageFP)
	enc = append(enc, '}')
	if cap(enc) <= 1<<20 { // a rare huge one is left to the collector
		*bp = enc
	}
	sum := sha256.Sum256(enc)
	return hex.EncodeToString(sum[:]), nil
}

var fingerprintBufs = sync.Pool{New: func() any { return new([]byte) }}

func digest(v any) (string, error) {
	b, err := hashInputs(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
