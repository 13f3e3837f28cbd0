package safetensors

import (
	"fmt"
	"math"
)

// DType is a safetensors dtype string such as "BF16".
type DType string

// The dtypes this package converts to and from float32.
const (
	F32  DType = "F32"
	F16  DType = "F16"
	BF16 DType = "BF16"
)

// dtypeBits lists every dtype the format defines with its width in bits,
// so a header naming any of them parses even if we cannot convert it.
var dtypeBits = map[DType]int{
	"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
	"F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32,
	"F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64,
}

// Bits returns the width of one element in bits, or 0 for an unknown dtype.
func (d DType) Bits() int { return dtypeBits[d] }

// Decode converts little-endian raw bytes of dtype d (F32, BF16 or F16)
// into dst, which holds len(raw)/element-size values.
func Decode(d DType, raw []byte, dst []float32) error {
	switch d {
	case F32:
		for i := range dst {
			dst[i] = math.Float32frombits(le32(raw[4*i:]))
		}
	case BF16:
		for i := range dst {
			dst[i] = BF16ToFloat32(le16(raw[2*i:]))
		}
	case F16:
		for i := range dst {
			dst[i] = F16ToFloat32(le16(raw[2*i:]))
		}
	default:
		return fmt.Errorf("converting dtype %s to float32: unsupported", d)
	}
	return nil
}

// encode appends src in dtype d to dst.
func encode(d DType, src []float32, dst []byte) []byte {
	switch d {
	case BF16:
		for _, v := range src {
			u := Float32ToBF16(v)
			dst = append(dst, byte(u), byte(u>>8))
		}
	case F16:
		for _, v := range src {
			u := Float32ToF16(v)
			dst = append(dst, byte(u), byte(u>>8))
		}
	default:
		for _, v := range src {
			u := math.Float32bits(v)
			dst = append(dst, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
		}
	}
	return dst
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// BF16ToFloat32 widens a bfloat16 bit pattern (the upper half of a float32).
func BF16ToFloat32(u uint16) float32 { return math.Float32frombits(uint32(u) << 16) }

// Float32ToBF16 narrows with round-to-nearest-even; NaN stays a quiet NaN.
func Float32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// F16ToFloat32 widens an IEEE 754 binary16 bit pattern.
func F16ToFloat32(u uint16) float32 {
	sign := uint32(u>>15) << 31
	exp := uint32(u>>10) & 0x1f
	man := uint32(u) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		v := float32(man) / 1024 / 16384 // man · 2^-24
		if sign != 0 {
			return -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// Float32ToF16 narrows to IEEE 754 binary16 with round-to-nearest-even.
func Float32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := man >> shift
		rem := man & (1<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, which is the correct rounding
	}
	return sign | uint16(r)
}
