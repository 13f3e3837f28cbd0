package safetensors

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

type writeInfo struct {
	DType       DType   `json:"dtype"`
	Shape       []int   `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// Write encodes tensors in dtype (F32, F16 or BF16) with optional metadata.
// Tensors are laid out sorted by name; the header is space-padded to a
// multiple of 8 bytes.
func Write(w io.Writer, tensors map[string]*Tensor, dtype DType, meta map[string]string) error {
	shapes := make(map[string][]int, len(tensors))
	for n, t := range tensors {
		elems := 1
		for _, d := range t.Shape {
			elems *= d
		}
		if elems != len(t.Data) {
			return fmt.Errorf("writing tensor %q: shape %v holds %d elements, data has %d", n, t.Shape, elems, len(t.Data))
		}
		shapes[n] = t.Shape
	}
	return WriteStream(w, shapes, dtype, meta, func(name string, off int, dst []float32) {
		copy(dst, tensors[name].Data[off:])
	})
}

// streamChunk is how many elements WriteStream asks gen for at once.
const streamChunk = 1 << 20

// WriteStream is Write for tensors that are never held whole: gen fills
// dst with elements [off, off+len(dst)) of the tensor name, a chunk at a
// time, so a benchmark can write a multi-gigabyte random checkpoint
// holding a few megabytes.
func WriteStream(w io.Writer, shapes map[string][]int, dtype DType, meta map[string]string, gen func(name string, off int, dst []float32)) error {
	switch dtype {
	case F32, F16, BF16:
	default:
		return fmt.Errorf("writing safetensors: unsupported dtype %s", dtype)
	}
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		if n == "__metadata__" {
			return fmt.Errorf("writing safetensors: tensor name %q is reserved", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	hdr := map[string]any{}
	if len(meta) > 0 {
		hdr["__metadata__"] = meta
	}
	var at int64
	elems := map[string]int{}
	for _, n := range names {
		e := 1
		for _, d := range shapes[n] {
			e *= d
		}
		elems[n] = e
		size := int64(e) * int64(dtype.Bits()/8)
		shape := shapes[n]
		if shape == nil {
			shape = []int{}
		}
		hdr[n] = writeInfo{DType: dtype, Shape: shape, DataOffsets: []int64{at, at + size}}
		at += size
	}
	hb, err := json.Marshal(hdr)
	if err != nil {
		return fmt.Errorf("encoding safetensors header: %w", err)
	}
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var pre [8]byte
	binary.LittleEndian.PutUint64(pre[:], uint64(len(hb)))
	if _, err := bw.Write(pre[:]); err != nil {
		return fmt.Errorf("writing safetensors header: %w", err)
	}
	if _, err := bw.Write(hb); err != nil {
		return fmt.Errorf("writing safetensors header: %w", err)
	}
	var buf []byte
	chunk := make([]float32, min(streamChunk, max(1, at)))
	for _, n := range names {
		for off := 0; off < elems[n]; off += len(chunk) {
			c := chunk[:min(len(chunk), elems[n]-off)]
			gen(n, off, c)
			buf = encode(dtype, c, buf[:0])
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("writing tensor %q: %w", n, err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing safetensors: %w", err)
	}
	return nil
}

// WriteFile writes tensors to path atomically (a temporary file renamed
// into place).
func WriteFile(path string, tensors map[string]*Tensor, dtype DType, meta map[string]string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.safetensors")
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600; weights are read by servers running
	// as other users (vLLM), so they are 0644 like any written file.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := Write(tmp, tensors, dtype, meta); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// WriteDir writes a checkpoint's weights into dir: model.safetensors when
// they fit in maxShardBytes (≤0 means 5 GB, the Hugging Face default), else
// model-0000i-of-0000n.safetensors shards filled greedily in name order plus
// model.safetensors.index.json. Metadata {"format": "pt"} is written.
func WriteDir(dir string, tensors map[string]*Tensor, dtype DType, maxShardBytes int64) error {
	if maxShardBytes <= 0 {
		maxShardBytes = 5_000_000_000
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	var shards []map[string]*Tensor
	var cur map[string]*Tensor
	var curSize, total int64
	for _, n := range names {
		sz := int64(len(tensors[n].Data)) * int64(dtype.Bits()/8)
		total += sz
		if cur == nil || (curSize > 0 && curSize+sz > maxShardBytes) {
			cur = map[string]*Tensor{}
			shards = append(shards, cur)
			curSize = 0
		}
		cur[n] = tensors[n]
		curSize += sz
	}
	meta := map[string]string{"format": "pt"}
	if len(shards) <= 1 {
		if len(shards) == 0 {
			shards = append(shards, map[string]*Tensor{})
		}
		return WriteFile(filepath.Join(dir, SingleFile), shards[0], dtype, meta)
	}
	idx := Index{Metadata: map[string]any{"total_size": total}, WeightMap: map[string]string{}}
	for i, s := range shards {
		file := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(shards))
		if err := WriteFile(filepath.Join(dir, file), s, dtype, meta); err != nil {
			return err
		}
		for n := range s {
			idx.WeightMap[n] = file
		}
	}
	ib, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding shard index: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), append(ib, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing shard index: %w", err)
	}
	return nil
}
