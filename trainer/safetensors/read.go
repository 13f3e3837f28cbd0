package safetensors

import (
	"fmt"
	"io"
	"os"
)

// Tensor is a dense row-major float32 tensor. It has the same fields as
// qwen3.Tensor, so pointers convert directly.
type Tensor struct {
	Shape []int
	Data  []float32
}

// Read validates the header of the safetensors data in r (size bytes in
// all) and converts every tensor to float32. It returns the tensors by name
// and the "__metadata__" map.
func Read(r io.ReaderAt, size int64) (map[string]*Tensor, map[string]string, error) {
	h, err := ReadHeader(r, size)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]*Tensor, len(h.Tensors))
	var raw []byte
	for _, ti := range h.Tensors {
		t, err := readTensor(r, h, ti, &raw)
		if err != nil {
			return nil, nil, err
		}
		out[ti.Name] = t
	}
	return out, h.Metadata, nil
}

// readTensor reads one tensor through the reusable buffer *raw.
func readTensor(r io.ReaderAt, h *Header, ti TensorInfo, raw *[]byte) (*Tensor, error) {
	b, err := readRaw(io.NewSectionReader(r, h.DataStart+ti.Begin, ti.End-ti.Begin), ti, raw)
	if err != nil {
		return nil, err
	}
	t := &Tensor{Shape: ti.Shape, Data: make([]float32, ti.NumElements())}
	if err := Decode(ti.DType, b, t.Data); err != nil {
		return nil, fmt.Errorf("reading tensor %q: %w", ti.Name, err)
	}
	return t, nil
}

// convertible rejects the dtypes Decode does not convert.
func convertible(ti TensorInfo) error {
	switch ti.DType {
	case F32, F16, BF16:
		return nil
	}
	return fmt.Errorf("reading tensor %q: dtype %s is not convertible to float32", ti.Name, ti.DType)
}

// readRaw reads one tensor's bytes from its section into the reusable
// buffer *raw.
func readRaw(r *io.SectionReader, ti TensorInfo, raw *[]byte) ([]byte, error) {
	if err := convertible(ti); err != nil {
		return nil, err
	}
	n := int(r.Size())
	if cap(*raw) < n {
		*raw = make([]byte, n)
	}
	b := (*raw)[:n]
	if _, err := r.ReadAt(b, 0); err != nil && n > 0 {
		return nil, fmt.Errorf("reading tensor %q: %w", ti.Name, err)
	}
	return b, nil
}

// eachInFile calls f with every tensor of one file and a reader of its
// bytes.
func eachInFile(path string, f func(TensorInfo, *io.SectionReader) error) error {
	fl, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening safetensors: %w", err)
	}
	defer fl.Close()
	st, err := fl.Stat()
	if err != nil {
		return fmt.Errorf("opening safetensors: %w", err)
	}
	h, err := ReadHeader(fl, st.Size())
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	for _, ti := range h.Tensors {
		if err := convertible(ti); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if err := f(ti, io.NewSectionReader(fl, h.DataStart+ti.Begin, ti.End-ti.Begin)); err != nil {
			return err
		}
	}
	return nil
}

// ReadFile reads one safetensors file.
func ReadFile(path string) (map[string]*Tensor, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("opening safetensors: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("opening safetensors: %w", err)
	}
	ts, meta, err := Read(f, st.Size())
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return ts, meta, nil
}
