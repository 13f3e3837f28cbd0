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
	b, err := readRaw(r, h, ti, raw)
	if err != nil {
		return nil, err
	}
	t := &Tensor{Shape: ti.Shape, Data: make([]float32, ti.NumElements())}
	if err := Decode(ti.DType, b, t.Data); err != nil {
		return nil, fmt.Errorf("reading tensor %q: %w", ti.Name, err)
	}
	return t, nil
}

// readRaw reads one tensor's bytes into the reusable buffer *raw; only
// the dtypes Decode converts are accepted.
func readRaw(r io.ReaderAt, h *Header, ti TensorInfo, raw *[]byte) ([]byte, error) {
	switch ti.DType {
	case F32, F16, BF16:
	default:
		return nil, fmt.Errorf("reading tensor %q: dtype %s is not convertible to float32", ti.Name, ti.DType)
	}
	n := int(ti.End - ti.Begin)
	if cap(*raw) < n {
		*raw = make([]byte, n)
	}
	b := (*raw)[:n]
	if _, err := r.ReadAt(b, h.DataStart+ti.Begin); err != nil && n > 0 {
		return nil, fmt.Errorf("reading tensor %q: %w", ti.Name, err)
	}
	return b, nil
}

// eachInFile calls f with every tensor of one file and its raw bytes.
func eachInFile(path string, raw *[]byte, f func(TensorInfo, []byte) error) error {
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
		b, err := readRaw(fl, h, ti, raw)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if err := f(ti, b); err != nil {
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
