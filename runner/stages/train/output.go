package train

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"mascot.dev/mascot/internal/safepath"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/trainer/train"
)

// artifactOf returns the last artifact of kind in a stage output.
func artifactOf(out *runner.Output, kind string) (results.Artifact, bool) {
	var a results.Artifact
	ok := false
	for _, x := range out.Artifacts {
		if x.Kind == kind {
			a, ok = x, true
		}
	}
	return a, ok
}

// stageDir returns a fresh env.RunDir/<stage>/ directory (a previous
// attempt's files are removed, so the hashes describe this run only).
func stageDir(env *runner.Env, key string) (string, error) {
	joined, err := safepath.Join(env.RunDir, key)
	if err != nil {
		return "", fmt.Errorf("choosing the output directory of stage %q: %w", key, err)
	}
	dir, err := filepath.Abs(joined)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("clearing %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	return dir, nil
}

// dirHash is the sha256 over "name sha256\n" lines of files, sorted by name.
func dirHash(files map[string]string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s %s\n", n, files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// addFile hashes dir/name into files.
func addFile(files map[string]string, dir, name string) error {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("hashing %s: %w", name, err)
	}
	s := sha256.Sum256(b)
	files[name] = hex.EncodeToString(s[:])
	return nil
}

// artifact describes a training result as an artifact row.
func artifact(kind string, res train.Result, meta map[string]any) results.Artifact {
	var size int64
	for n := range res.Files {
		if st, err := os.Stat(filepath.Join(res.Dir, n)); err == nil {
			size += st.Size()
		}
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta["files"] = res.Files
	if res.ResumedFrom > 0 {
		meta["resumed_from"] = res.ResumedFrom // a requeued job resumed from its checkpoint
	}
	if len(res.Eval) > 0 {
		meta["eval"] = res.Eval
	}
	m, _ := json.Marshal(meta)
	base, _ := meta["base"].(string)
	return results.Artifact{Kind: kind, Path: res.Dir, SHA256: dirHash(identityHashes(res.Dir, res.Files, base)),
		Bytes: size, Meta: m}
}

// stepRows converts a training history into rows.
func stepRows(key string, hist []train.Metrics, perEpoch int) []results.TrainingStep {
	rows := make([]results.TrainingStep, len(hist))
	now := time.Now()
	for i, m := range hist {
		loss, lr, gn := m.Loss, m.LR, m.GradNorm
		r := results.TrainingStep{StageKey: key, Step: m.Step, Loss: &loss, LR: &lr, GradNorm: &gn, Time: now,
			Values: map[string]float64{"tokens": float64(m.Tokens), "tokens_per_sec": m.TokensPerSec}}
		if perEpoch > 0 {
			r.Epoch = float64(m.Step) / float64(perEpoch)
		}
		if m.RewardMean != 0 || m.RewardStd != 0 {
			rm, rs := m.RewardMean, m.RewardStd
			r.Reward = &rm
			r.Values["reward_std"] = rs
		}
		if m.KL != 0 {
			kl := m.KL
			r.KL = &kl
		}
		if m.ClipFraction != 0 {
			r.Values["clip_fraction"] = m.ClipFraction
		}
		for k, v := range m.Extra {
			r.Values[k] = v
		}
		rows[i] = r
	}
	return rows
}

// commit writes the artifact, the step rows and metrics.
func commit(a results.Artifact, steps []results.TrainingStep, metrics []results.Metric) runner.Commit {
	return func(tx *results.Tx) error {
		if _, err := tx.InsertArtifact(a); err != nil {
			return err
		}
		if _, err := tx.InsertTrainingSteps(steps); err != nil {
			return err
		}
		if len(metrics) > 0 {
			if _, err := tx.InsertMetrics(metrics); err != nil {
				return err
			}
		}
		return nil
	}
}

// copyTokenizer copies the base's tokenizer files (tokenizer.json,
// tokenizer_config.json, the byte-level marker) into a model output
// directory so it loads on its own, and hashes them into res.Files.
func copyTokenizer(baseDir string, res train.Result) error {
	for _, n := range []string{"tokenizer.json", "tokenizer_config.json", "mascot.json"} {
		b, err := os.ReadFile(filepath.Join(baseDir, n))
		if err != nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(res.Dir, n), b, 0o644); err != nil {
			return fmt.Errorf("copying %s: %w", n, err)
		}
		if err := addFile(res.Files, res.Dir, n); err != nil {
			return err
		}
	}
	return nil
}
