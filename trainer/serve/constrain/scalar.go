package constrain

import "math"

func (f *frame) feedString(b byte) result {
	n := f.n
	switch f.phase {
	case pStart:
		if b == '"' {
			f.phase = pBody
			return rConsumed
		}
		return rReject
	case pEsc:
		switch b {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			f.phase = pBody
			return rConsumed
		}
		return rReject
	}
	if f.need > 0 {
		if b < f.cLo || b > f.cHi {
			return rReject
		}
		f.need--
		f.cLo, f.cHi = 0x80, 0xBF
		return rConsumed
	}
	if b == '"' {
		if f.count < n.minLen {
			return rReject
		}
		return rDoneConsumed
	}
	if b < 0x20 || (n.maxLen >= 0 && f.count >= n.maxLen) {
		return rReject
	}
	f.cLo, f.cHi = 0x80, 0xBF
	switch {
	case b == '\\':
		f.phase = pEsc
	case b < 0x80:
	case b >= 0xC2 && b <= 0xDF:
		f.need = 1
	case b >= 0xE0 && b <= 0xEF:
		f.need = 2
		if b == 0xE0 {
			f.cLo = 0xA0
		} else if b == 0xED {
			f.cHi = 0x9F
		}
	case b >= 0xF0 && b <= 0xF4:
		f.need = 3
		if b == 0xF0 {
			f.cLo = 0x90
		} else if b == 0xF4 {
			f.cHi = 0x8F
		}
	default:
		return rReject
	}
	f.count++
	return rConsumed
}

func (f *frame) feedNumber(b byte) result {
	isInt := f.n.kind == kInteger
	digit := b >= '0' && b <= '9'
	d := int64(b - '0')
	switch f.phase {
	case pStart:
		if b == '-' {
			if isInt && f.n.intExt(true, 0, 0) < 0 {
				return rReject
			}
			f.neg, f.phase = true, pMinus
			return rConsumed
		}
		fallthrough
	case pMinus:
		if !digit || (isInt && f.n.intExt(f.neg, d, 1) < 0) {
			return rReject
		}
		f.val, f.nd, f.phase = d, 1, pInt
		return rConsumed
	case pInt:
		if digit && f.val != 0 && f.nd < maxDigits && (!isInt || f.n.intExt(f.neg, f.val*10+d, f.nd+1) >= 0) {
			f.val, f.nd = f.val*10+d, f.nd+1
			return rConsumed
		}
		if b == '.' && !isInt {
			f.phase = pDot
			return rConsumed
		}
	case pDot:
		if digit {
			f.fd, f.phase = 1, pFrac
			return rConsumed
		}
		return rReject
	case pFrac:
		if digit && f.fd < maxDigits {
			f.fd++
			return rConsumed
		}
	}
	if f.complete() {
		return rDoneRefeed
	}
	return rReject
}

// intExt is the fewest digits to append to an integer prefix (sign neg,
// nd digits of value val) to reach a value within the bounds, or -1 when
// none can.
func (n *node) intExt(neg bool, val int64, nd int) int {
	for j := 0; nd+j <= maxDigits; j++ {
		var a, b int64
		switch {
		case nd == 0 && j == 0:
			continue
		case nd == 0 && j == 1:
			a, b = 0, 9
		case nd == 0:
			a, b = pow10(j-1), pow10(j)-1
		case val == 0 && j > 0:
			return -1
		default:
			a, b = val*pow10(j), val*pow10(j)+pow10(j)-1
		}
		if neg {
			a, b = -b, -a
		}
		if a <= n.hi && b >= n.lo {
			return j
		}
	}
	return -1
}

func pow10(j int) int64 { return int64(math.Pow10(j)) }

// rest is the fewest bytes that finish this frame; for a frame below the
// top, its child is counted by the child's own frame.
func (f *frame) rest() int {
	n := f.n
	switch n.kind {
	case kObject:
		switch f.phase {
		case pStart:
			return n.min
		case pOpen, pNeed:
			best := math.MaxInt32
			if f.phase == pOpen && !f.requiredLeft() {
				best = 1
			}
			if k, ok := f.keyFrame(); ok {
				best = min(best, k.rest())
			}
			return best
		case pColon:
			return 1 + n.props[f.next-1].node.min + n.tail(f.next, false)
		case pChild:
			if f.inKey {
				return 0
			}
		}
		return n.tail(f.next, false)
	case kArray:
		per := 1 + n.items.min
		switch f.phase {
		case pStart:
			return n.min
		case pOpen:
			if n.minItems == 0 {
				return 1
			}
			return n.minItems*per - 1 + 1
		case pNeed:
			return n.items.min + max(0, n.minItems-f.count-1)*per + 1
		}
		return max(0, n.minItems-f.count)*per + 1
	case kString:
		switch f.phase {
		case pStart:
			return n.min
		case pEsc:
			return 1 + max(0, n.minLen-f.count) + 1
		}
		return int(f.need) + max(0, n.minLen-f.count) + 1
	case kNumber, kInteger:
		switch f.phase {
		case pStart:
			return n.min
		case pDot:
			return 1
		case pFrac:
			return 0
		}
		if n.kind == kNumber {
			if f.phase == pMinus {
				return 1
			}
			return 0
		}
		return max(0, n.intExt(f.neg, f.val, f.nd))
	}
	best := math.MaxInt32
	for i := f.lo; i < f.hi; i++ {
		r := len(f.lits[i]) - f.pos
		if f.after != nil {
			r += f.after[i]
		}
		best = min(best, r)
	}
	return best
}
