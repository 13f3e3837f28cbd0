package jsonl

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendFloat appends f as encoding/json's Marshal writes a float64 (%f,
// or %e below 1e-6 and from 1e21 on, with e-09 shortened to e-9). f must
// be finite: Marshal refuses NaN and infinities, and so must the caller.
func AppendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// AppendString appends s as a JSON string exactly as encoding/json's
// Marshal writes it (HTML-safe escapes for <, > and &, \u2028 and \u2029
// escaped, invalid UTF-8 as \ufffd), so that the record codec can skip
// reflection without changing a byte of the export.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look: an export's
		// texts are mostly plain ASCII, and this loop is a tenth of it.
		for i+8 <= len(s) && plainWord(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if plainJSON[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainWord says whether all eight bytes of w are ones AppendString
// copies as they are: none below 0x20 or from 0x80 on, and none of
// " \ < > &. Each test is exact for "some byte is": x−0x01… sets a byte's
// top bit where a borrow came through a zero byte, and the top bits of w
// itself (bytes from 0x80) are tested alone.
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b, lt, gt, amp := w^('"'*ones), w^('\\'*ones), w^('<'*ones), w^('>'*ones), w^('&'*ones)
	bad := (w - 0x20*ones) & ^w // a byte below 0x20 (w's bytes are below 0x80 when this counts)
	bad |= (q - ones) & ^q
	bad |= (b - ones) & ^b
	bad |= (lt - ones) & ^lt
	bad |= (gt - ones) & ^gt
	bad |= (amp - ones) & ^amp
	return (bad|w)&highs == 0
}

// plainJSON marks the ASCII bytes AppendString copies as they are.
var plainJSON = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONInt appends n as a JSON number.
func appendJSONInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// AppendDirective appends d as json.Marshal writes a Directive.
func AppendDirective(b []byte, d Directive) []byte {
	b = AppendString(append(b, `{"agent_name":`...), d.AgentName)
	b = AppendString(append(b, `,"action":`...), d.Action)
	return append(AppendString(append(b, `,"tone":`...), d.Tone), '}')
}
