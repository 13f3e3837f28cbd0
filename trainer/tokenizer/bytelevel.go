package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// byteToRune maps each byte to the printable character that stands for it in
// byte-level BPE vocabularies; runeToByte is its inverse.
var (
	byteToRune [256]rune
	runeToByte = map[rune]byte{}
)

func init() {
	n := 0
	for b := 0; b < 256; b++ {
		switch {
		case '!' <= b && b <= '~', 0xA1 <= b && b <= 0xAC, 0xAE <= b && b <= 0xFF:
			byteToRune[b] = rune(b)
		default:
			byteToRune[b] = rune(256 + n)
			n++
		}
		runeToByte[byteToRune[b]] = byte(b)
	}
}

// byteLevel returns the byte-level spelling of s: one character per byte.
func byteLevel(s string) string {
	var sb strings.Builder
	sb.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		sb.WriteRune(byteToRune[s[i]])
	}
	return sb.String()
}

// appendUnByteLevel appends the bytes that the byte-level token tok spells.
// Characters outside the byte-level alphabet are appended as their UTF-8
// encoding, as the ByteLevel decoder does.
func appendUnByteLevel(dst []byte, tok string) []byte {
	for _, r := range tok {
		if b, ok := runeToByte[r]; ok {
			dst = append(dst, b)
		} else {
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

// lossyUTF8 converts b to a string, replacing each maximal invalid UTF-8
// subpart with one U+FFFD (Python's errors="replace", Rust's
// String::from_utf8_lossy, WHATWG TextDecoder).
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || w > 1 {
			sb.Write(b[i : i+w])
			i += w
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += invalidSubpart(b[i:])
	}
	return sb.String()
}

// invalidSubpart returns the length of the maximal prefix of b that could
// start a well-formed UTF-8 sequence (at least 1), given that b does not
// start with one.
func invalidSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case 0xC2 <= c && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case 0xE1 <= c && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case 0xF1 <= c && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k > 0 {
			lo, hi = 0x80, 0xBF
		}
		if x < lo || x > hi {
			break
		}
		n++
	}
	return n
}
