package safetensors

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Standard file names of a Hugging Face checkpoint directory.
const (
	SingleFile = "model.safetensors"
	IndexFile  = "model.safetensors.index.json"
)

// Index is model.safetensors.index.json. Only WeightMap is used on read.
type Index struct {
	Metadata  map[string]any    `json:"metadata,omitempty"`
	WeightMap map[string]string `json:"weight_map"`
}

// ReadDir reads the weights of a checkpoint directory: the shards named by
// model.safetensors.index.json if present, else model.safetensors. Every
// tensor named in the index must be in its shard, shards must be plain file
// names inside dir, and no tensor may appear in two shards.
func ReadDir(dir string) (map[string]*Tensor, error) {
	ib, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		ts, _, err := ReadFile(filepath.Join(dir, SingleFile))
		return ts, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading shard index: %w", err)
	}
	var idx Index
	if err := json.Unmarshal(ib, &idx); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", IndexFile, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, fmt.Errorf("parsing %s: %w: empty weight_map", IndexFile, ErrInvalid)
	}
	shards := map[string]bool{}
	for name, file := range idx.WeightMap {
		if file == "" || file != filepath.Base(file) || file == "." || file == ".." {
			return nil, fmt.Errorf("parsing %s: %w: tensor %q names shard %q outside the directory", IndexFile, ErrInvalid, name, file)
		}
		shards[file] = true
	}
	files := make([]string, 0, len(shards))
	for f := range shards {
		files = append(files, f)
	}
	sort.Strings(files)
	out := map[string]*Tensor{}
	for _, f := range files {
		ts, _, err := ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		for name, t := range ts {
			if _, dup := out[name]; dup {
				return nil, fmt.Errorf("reading shard %s: %w: tensor %q is in two shards", f, ErrInvalid, name)
			}
			out[name] = t
		}
	}
	for name, f := range idx.WeightMap {
		if _, ok := out[name]; !ok {
			return nil, fmt.Errorf("reading shard %s: %w: tensor %q listed in the index is missing", f, ErrInvalid, name)
		}
	}
	return out, nil
}
