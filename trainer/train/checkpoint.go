package train

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"mascot.dev/mascot/trainer/optim"
)

// CheckpointFile is the training-state file inside Options.CheckpointDir.
const CheckpointFile = "trainer_state.gob"

// checkpointVersion is the format of trainer_state.gob: 2 keeps the
// optimizer's moments in float32, as the backend optimizer holds them.
// Version 1 (no Version field; float64 moments from the host optimizer)
// is read too, its moments rounded to float32.
const checkpointVersion = 2

// checkpoint is the resumable state of a run: trainable parameters and
// the optimizer (its step count, which is also the run's).
type checkpoint struct {
	Version int
	Kind    string
	Step    int
	Params  map[string][]float32
	Moments optim.DeviceState
	// Optim is version 1's optimizer state (float64 moments).
	Optim optim.State
}

func saveCheckpoint(dir, kind string, step int, m Network, opt *optim.Device) error {
	c := checkpoint{Version: checkpointVersion, Kind: kind, Step: step, Params: map[string][]float32{}, Moments: opt.State()}
	be := m.Backend()
	for _, p := range m.TrainParams() {
		v := make([]float32, p.Value.Len())
		be.Download(v, p.Value)
		c.Params[p.Name] = v
	}
	if err := be.Sync(); err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
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
func loadCheckpoint(dir, kind string, m Network, opt *optim.Device) (int, error) {
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
	switch c.Version {
	case 0: // version 1: float64 moments
		c.Moments = optim.DeviceState{Step: c.Optim.Step, M: narrow(c.Optim.M), V: narrow(c.Optim.V)}
	case checkpointVersion:
	default:
		return 0, fmt.Errorf("reading checkpoint %s: format version %d is newer than this mascot's %d", f.Name(), c.Version, checkpointVersion)
	}
	if c.Kind != kind {
		return 0, fmt.Errorf("reading checkpoint %s: it belongs to a %s run, not %s", f.Name(), c.Kind, kind)
	}
	be := m.Backend()
	for _, p := range m.TrainParams() {
		v, ok := c.Params[p.Name]
		if !ok || len(v) != p.Value.Len() {
			return 0, fmt.Errorf("reading checkpoint %s: parameter %s missing or resized", f.Name(), p.Name)
		}
		be.Upload(p.Value, v)
	}
	if err := opt.Restore(c.Moments); err != nil {
		return 0, fmt.Errorf("reading checkpoint %s: %w", f.Name(), err)
	}
	return c.Step, nil
}

// narrow rounds version-1 moments to float32.
func narrow(in map[string][]float64) map[string][]float32 {
	out := make(map[string][]float32, len(in))
	for k, v := range in {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		out[k] = f
	}
	return out
}
