package safetensors

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"mascot.dev/mascot/internal/hugemem"
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
//
// The tensors share one slab from internal/hugemem, sized from the shards'
// headers before any data is read: a decoding step reads every weight
// once, and with the weights in 4 KiB pages the 63 M engine model decoded
// one sequence 7 % and eight 8 % slower (docs/benchmarks.md). The slab
// lives while any of its tensors does.
func ReadDir(dir string) (map[string]*Tensor, error) {
	total := 0
	if err := EachTensor(dir, func(ti TensorInfo, _ *io.SectionReader) error {
		total += ti.NumElements()
		return nil
	}); err != nil {
		return nil, err
	}
	slab := hugemem.Floats(total)
	out := map[string]*Tensor{}
	err := EachRaw(dir, func(ti TensorInfo, raw []byte) error {
		n := ti.NumElements()
		if n > len(slab) {
			return fmt.Errorf("reading tensor %q: the checkpoint changed while it was read", ti.Name)
		}
		t := &Tensor{Shape: ti.Shape, Data: slab[:n:n]}
		slab = slab[n:]
		if err := Decode(ti.DType, raw, t.Data); err != nil {
			return fmt.Errorf("reading tensor %q: %w", ti.Name, err)
		}
		out[ti.Name] = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachRaw calls f with every tensor of a checkpoint directory (the same
// files and checks as ReadDir) and its raw little-endian bytes, which are
// valid only during the call.
func EachRaw(dir string, f func(ti TensorInfo, raw []byte) error) error {
	var raw []byte
	return EachTensor(dir, func(ti TensorInfo, r *io.SectionReader) error {
		b, err := readRaw(r, ti, &raw)
		if err != nil {
			return err
		}
		return f(ti, b)
	})
}

// EachTensor calls f with every tensor of a checkpoint directory (the same
// files and checks as ReadDir) and a reader of its raw little-endian
// bytes, so that a loader reads only the tensors it wants, in chunks of
// its choice: trainer/net puts a BF16 checkpoint on a compute backend
// holding a few megabytes of it at a time, never a float32 copy nor even
// one whole tensor. The reader is valid only during the call.
func EachTensor(dir string, f func(ti TensorInfo, r *io.SectionReader) error) error {
	files, idx, err := shardFiles(dir)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, file := range files {
		err := eachInFile(filepath.Join(dir, file), func(ti TensorInfo, r *io.SectionReader) error {
			if seen[ti.Name] {
				return fmt.Errorf("reading shard %s: %w: tensor %q is in two shards", file, ErrInvalid, ti.Name)
			}
			seen[ti.Name] = true
			return f(ti, r)
		})
		if err != nil {
			return err
		}
	}
	for name, file := range idx {
		if !seen[name] {
			return fmt.Errorf("reading shard %s: %w: tensor %q listed in the index is missing", file, ErrInvalid, name)
		}
	}
	return nil
}

// shardFiles returns the safetensors files of dir, sorted, and the index's
// weight map (nil for a single file).
func shardFiles(dir string) ([]string, map[string]string, error) {
	ib, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return []string{SingleFile}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading shard index: %w", err)
	}
	var idx Index
	if err := json.Unmarshal(ib, &idx); err != nil {
		return nil, nil, fmt.Errorf("parsing %s: %w", IndexFile, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, nil, fmt.Errorf("parsing %s: %w: empty weight_map", IndexFile, ErrInvalid)
	}
	shards := map[string]bool{}
	for name, file := range idx.WeightMap {
		if file == "" || file != filepath.Base(file) || file == "." || file == ".." {
			return nil, nil, fmt.Errorf("parsing %s: %w: tensor %q names shard %q outside the directory", IndexFile, ErrInvalid, name, file)
		}
		shards[file] = true
	}
	files := make([]string, 0, len(shards))
	for f := range shards {
		files = append(files, f)
	}
	sort.Strings(files)
	return files, idx.WeightMap, nil
}
