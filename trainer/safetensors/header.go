package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"unicode/utf8"
)

// MaxHeaderSize is the largest JSON header accepted, as in the reference
// implementation (MAX_HEADER_SIZE).
const MaxHeaderSize = 100_000_000

// ErrInvalid is wrapped by every error about a malformed file.
var ErrInvalid = errors.New("invalid safetensors file")

// TensorInfo describes one tensor of a header.
type TensorInfo struct {
	Name  string
	DType DType
	Shape []int
	// Begin and End are byte offsets into the data buffer (End exclusive).
	Begin, End int64
}

// NumElements is the product of the shape (1 for a scalar).
func (t TensorInfo) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Header is a validated safetensors header.
type Header struct {
	// Tensors sorted by Begin offset.
	Tensors []TensorInfo
	// Metadata is the optional "__metadata__" string map (nil if absent).
	Metadata map[string]string
	// DataStart is the file offset of the data buffer (8 + header length).
	DataStart int64
}

type rawInfo struct {
	DType       *string  `json:"dtype"`
	Shape       []uint64 `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// ReadHeader reads and validates the header of a safetensors file of the
// given total size. It checks that the tensors tile the rest of the file.
func ReadHeader(r io.ReaderAt, size int64) (*Header, error) {
	if size < 8 {
		return nil, invalid("file of %d bytes is shorter than the 8-byte length prefix", size)
	}
	var pre [8]byte
	if _, err := r.ReadAt(pre[:], 0); err != nil {
		return nil, fmt.Errorf("reading header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(pre[:])
	if n > MaxHeaderSize {
		return nil, invalid("header length %d exceeds the %d limit", n, MaxHeaderSize)
	}
	if n > uint64(size-8) {
		return nil, invalid("header length %d runs past the end of a %d-byte file", n, size)
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, 8); err != nil {
		return nil, fmt.Errorf("reading header: %w", err)
	}
	h, err := parseHeader(buf)
	if err != nil {
		return nil, err
	}
	h.DataStart = 8 + int64(n)
	dataLen := size - h.DataStart
	var end int64
	if len(h.Tensors) > 0 {
		end = h.Tensors[len(h.Tensors)-1].End
	}
	if end != dataLen {
		return nil, invalid("tensors cover %d data bytes but the file holds %d", end, dataLen)
	}
	return h, nil
}

// parseHeader decodes the JSON header and validates every entry and the
// tiling of offsets from 0 (but not the total against the file size).
func parseHeader(buf []byte) (*Header, error) {
	if !utf8.Valid(buf) {
		return nil, invalid("header is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(buf))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, invalid("header is not a JSON object")
	}
	h := &Header{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, invalid("reading header key: %v", err)
		}
		name, ok := tok.(string)
		if !ok {
			return nil, invalid("header key is not a string")
		}
		if seen[name] {
			return nil, invalid("duplicate header key %q", name)
		}
		seen[name] = true
		if name == "__metadata__" {
			if err := dec.Decode(&h.Metadata); err != nil {
				return nil, invalid("__metadata__ must map strings to strings: %v", err)
			}
			continue
		}
		var ri rawInfo
		if err := dec.Decode(&ri); err != nil {
			return nil, invalid("tensor %q: %v", name, err)
		}
		ti, err := checkInfo(name, ri)
		if err != nil {
			return nil, err
		}
		h.Tensors = append(h.Tensors, ti)
	}
	if _, err := dec.Token(); err != nil {
		return nil, invalid("header object is not closed: %v", err)
	}
	// Trailing bytes after the object may only be the writer's space padding.
	rest, _ := io.ReadAll(dec.Buffered())
	if len(bytes.Trim(rest, " \t\r\n")) != 0 {
		return nil, invalid("unexpected data after the header object")
	}
	if dec.More() {
		return nil, invalid("unexpected data after the header object")
	}
	sort.Slice(h.Tensors, func(i, j int) bool {
		a, b := h.Tensors[i], h.Tensors[j]
		if a.Begin != b.Begin {
			return a.Begin < b.Begin
		}
		return a.End < b.End
	})
	var at int64
	for _, t := range h.Tensors {
		if t.Begin != at {
			if t.Begin < at {
				return nil, invalid("tensor %q overlaps the previous tensor (begins at %d, previous ends at %d)", t.Name, t.Begin, at)
			}
			return nil, invalid("gap before tensor %q (begins at %d, previous ends at %d)", t.Name, t.Begin, at)
		}
		at = t.End
	}
	return h, nil
}

// checkInfo validates one entry: known dtype, sane shape, offsets that
// match the shape's byte size.
func checkInfo(name string, ri rawInfo) (TensorInfo, error) {
	if ri.DType == nil {
		return TensorInfo{}, invalid("tensor %q has no dtype", name)
	}
	dt := DType(*ri.DType)
	b := dt.Bits()
	if b == 0 {
		return TensorInfo{}, invalid("tensor %q has unknown dtype %q", name, dt)
	}
	if ri.Shape == nil {
		return TensorInfo{}, invalid("tensor %q has no shape", name)
	}
	if len(ri.DataOffsets) != 2 {
		return TensorInfo{}, invalid("tensor %q needs data_offsets [begin, end]", name)
	}
	begin, end := ri.DataOffsets[0], ri.DataOffsets[1]
	if end < begin || end > math.MaxInt64 {
		return TensorInfo{}, invalid("tensor %q has data_offsets [%d, %d]", name, begin, end)
	}
	shape := make([]int, len(ri.Shape))
	nbits := uint64(b)
	for i, d := range ri.Shape {
		hi, lo := bits.Mul64(nbits, d)
		if hi != 0 || d > math.MaxInt32*64 {
			return TensorInfo{}, invalid("tensor %q has an absurd shape %v", name, ri.Shape)
		}
		nbits = lo
		shape[i] = int(d)
	}
	if nbits%8 != 0 {
		return TensorInfo{}, invalid("tensor %q of %d bits is not a whole number of bytes", name, nbits)
	}
	if want := nbits / 8; end-begin != want {
		return TensorInfo{}, invalid("tensor %q: shape %v of %s needs %d bytes, data_offsets span %d", name, shape, dt, want, end-begin)
	}
	return TensorInfo{Name: name, DType: dt, Shape: shape, Begin: int64(begin), End: int64(end)}, nil
}
