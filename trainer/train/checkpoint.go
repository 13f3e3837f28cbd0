package train

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"mascot.dev/mascot/trainer/autodiff"
	"mascot.dev/mascot/trainer/optim"
)

// CheckpointFile is the training-state file inside Options.CheckpointDir.
const CheckpointFile = "trainer_state.gob"

// checkpoint is the resumable state of a run: trainable parameters and
// the optimizer (its step count, which is also the run's).
type checkpoint struct {
	Kind   string
	Step   int
	Params map[string][]float32
	Optim  optim.State
}

func saveCheckpoint(dir, kind string, step int, m *autodiff.Model, opt *optim.Optimizer) error {
	c := checkpoint{Kind: kind, Step: step, Params: map[string][]float32{}, Optim: opt.State}
	for _, p := range m.Params.Trainable() {
		c.Params[p.Name] = p.F32()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	tmp, err := os.CreateTemp(dir, CheckpointFile+".*")
	if err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp's 0600 would hide it from other users
		tmp.Close()
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	if err := gob.NewEncoder(tmp).Encode(&c); err != nil {
		tmp.Close()
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, CheckpointFile)); err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	return nil
}

// loadCheckpoint restores a checkpoint if dir holds one and returns its
// step (0 when there is none).
func loadCheckpoint(dir, kind string, m *autodiff.Model, opt *optim.Optimizer) (int, error) {
	f, err := os.Open(filepath.Join(dir, CheckpointFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading checkpoint: %w", err)
	}
	defer f.Close()
	var c checkpoint
	if err := gob.NewDecoder(f).Decode(&c); err != nil {
		return 0, fmt.Errorf("reading checkpoint %s: %w", f.Name(), err)
	}
	if c.Kind != kind {
		return 0, fmt.Errorf("reading checkpoint %s: it belongs to a %s run, not %s", f.Name(), c.Kind, kind)
	}
	for _, p := range m.Params.Trainable() {
		v, ok := c.Params[p.Name]
		if !ok || len(v) != p.Len() {
			return 0, fmt.Errorf("reading checkpoint %s: parameter %s missing or resized", f.Name(), p.Name)
		}
		copy(p.F32(), v)
	}
	if err := opt.Restore(c.Optim); err != nil {
		return 0, fmt.Errorf("reading checkpoint %s: %w", f.Name(), err)
	}
	return c.Step, nil
}
