package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
)

// devPtr is a device address. Device memory is never Go memory: it
// travels as an integer, so neither the garbage collector nor cgo's
// pointer checks see it.
type devPtr uint64

// packedArgs is a kernel's parameters laid out as cuLaunchKernel reads
// them: buf holds the values, each at an offset aligned to its size, and
// offs[i] is where parameter i starts (the launch passes &buf[offs[i]]).
type packedArgs struct {
	buf  []byte
	offs []int
}

// packArgs checks args against the kernel's declared parameters and lays
// them out. A wrong count, a wrong Go type, or an int that does not fit a
// C int is an error naming the parameter.
func packArgs(kernel string, kinds []argKind, args []any) (packedArgs, error) {
	if len(args) != len(kinds) {
		return packedArgs{}, fmt.Errorf("launching %s: %d arguments, the kernel takes %d", kernel, len(args), len(kinds))
	}
	var p packedArgs
	for i, k := range kinds {
		sz := k.size()
		off := (len(p.buf) + sz - 1) / sz * sz
		for len(p.buf) < off+sz {
			p.buf = append(p.buf, 0)
		}
		p.offs = append(p.offs, off)
		dst := p.buf[off : off+sz]
		bad := func() error {
			return fmt.Errorf("launching %s: argument %d is %T, the kernel takes %s", kernel, i, args[i], k)
		}
		switch k {
		case aPtr:
			v, ok := args[i].(devPtr)
			if !ok {
				return packedArgs{}, bad()
			}
			binary.LittleEndian.PutUint64(dst, uint64(v))
		case aU64:
			v, ok := args[i].(uint64)
			if !ok {
				return packedArgs{}, bad()
			}
			binary.LittleEndian.PutUint64(dst, v)
		case aI64:
			v, ok := args[i].(int)
			if !ok {
				return packedArgs{}, bad()
			}
			binary.LittleEndian.PutUint64(dst, uint64(int64(v)))
		case aI32:
			v, ok := args[i].(int)
			if !ok {
				return packedArgs{}, bad()
			}
			if v < math.MinInt32 || v > math.MaxInt32 {
				return packedArgs{}, fmt.Errorf("launching %s: argument %d = %d does not fit a C int", kernel, i, v)
			}
			binary.LittleEndian.PutUint32(dst, uint32(int32(v)))
		case aF32:
			v, ok := args[i].(float32)
			if !ok {
				return packedArgs{}, bad()
			}
			binary.LittleEndian.PutUint32(dst, math.Float32bits(v))
		default:
			return packedArgs{}, fmt.Errorf("launching %s: parameter %d has no kind", kernel, i)
		}
	}
	return p, nil
}
