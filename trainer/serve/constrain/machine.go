package constrain

import "sort"

// Machine accepts the bytes of one JSON document valid against a Schema,
// one byte at a time. The zero value is not usable; call Schema.Start.
// Clone is cheap (the stack holds values that share immutable slices).
type Machine struct {
	stack []frame
	done  bool
}

// Start returns a machine at the beginning of a document.
func (s *Schema) Start() *Machine {
	return &Machine{stack: []frame{newFrame(s.root)}}
}

// Clone returns an independent copy of m.
func (m *Machine) Clone() *Machine {
	return &Machine{stack: append([]frame(nil), m.stack...), done: m.done}
}

// Accepting reports whether the bytes fed so far form a complete document.
func (m *Machine) Accepting() bool {
	return m.done || (len(m.stack) == 1 && m.stack[0].complete())
}

// Rest is the fewest bytes that complete the document.
func (m *Machine) Rest() int {
	r := 0
	for i := range m.stack {
		r += m.stack[i].rest()
	}
	return r
}

// FeedBytes feeds every byte of b and reports whether all were accepted;
// on false the machine is left in an unspecified state.
func (m *Machine) FeedBytes(b []byte) bool {
	for _, c := range b {
		if !m.Feed(c) {
			return false
		}
	}
	return true
}

// Feed advances the machine by one byte and reports whether the byte can
// continue a valid document. After a rejected byte the machine is in an
// unspecified state: Clone first when probing.
func (m *Machine) Feed(b byte) bool {
	for {
		if len(m.stack) == 0 {
			return false
		}
		top := &m.stack[len(m.stack)-1]
		res, child := top.feed(b)
		switch res {
		case rReject:
			return false
		case rConsumed:
			return true
		case rPush:
			m.stack = append(m.stack, child)
			continue
		case rConsumedPush:
			m.stack = append(m.stack, child)
			return true
		}
		done := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		if len(m.stack) == 0 {
			m.done = true
		} else {
			m.stack[len(m.stack)-1].childDone(&done)
		}
		if res == rDoneConsumed {
			return true
		}
		if m.done {
			return false
		}
	}
}

type result uint8

const (
	rReject result = iota
	rConsumed
	rDoneConsumed
	rDoneRefeed
	rPush         // push the child and feed it this byte
	rConsumedPush // push the child after consuming this byte
)

// Phases of the frames of each kind.
const (
	pStart uint8 = iota
	pOpen        // object/array: after the opening bracket
	pChild       // object key, object value or array item in progress
	pColon       // object: after a key
	pAfter       // object/array: after a value
	pNeed        // object/array: after a comma
	pBody        // string body
	pEsc         // string: after a backslash
	pMinus       // number: after '-'
	pInt         // number: integer digits
	pDot         // number: after '.'
	pFrac        // number: fraction digits
)

// frame is one value in progress.
type frame struct {
	n     *node
	phase uint8
	inKey bool // object: the child in progress is a key
	next  int  // object: next property index that may be written
	any   bool // object: a property was written
	count int  // array items, string characters
	// literal matching (enum values or object keys)
	lits        []string
	after, idx  []int
	lo, hi, pos int
	// string: pending UTF-8 continuation bytes and the next one's range
	need     uint8
	cLo, cHi byte
	// number
	neg    bool
	val    int64
	nd, fd int
}

func newFrame(n *node) frame {
	f := frame{n: n}
	if n.kind == kLiteral {
		f.lits, f.hi = n.lits, len(n.lits)
	}
	return f
}

// keyFrame is the literal frame for the next object key: properties from
// f.next up to the first required one.
func (f *frame) keyFrame() (frame, bool) {
	type cand struct {
		key        string
		idx, after int
	}
	var cs []cand
	for i := f.next; i < len(f.n.props); i++ {
		p := f.n.props[i]
		cs = append(cs, cand{p.key, i, 1 + p.node.min + f.n.tail(i+1, false)})
		if p.required {
			break
		}
	}
	if len(cs) == 0 {
		return frame{}, false
	}
	sort.Slice(cs, func(a, b int) bool { return cs[a].key < cs[b].key })
	k := frame{n: &node{kind: kLiteral}, hi: len(cs)}
	for _, c := range cs {
		k.lits = append(k.lits, c.key)
		k.idx = append(k.idx, c.idx)
		k.after = append(k.after, c.after)
	}
	return k, true
}

func (f *frame) requiredLeft() bool {
	for _, p := range f.n.props[f.next:] {
		if p.required {
			return true
		}
	}
	return false
}

func (f *frame) childDone(c *frame) {
	switch f.n.kind {
	case kObject:
		if f.inKey {
			f.inKey = false
			f.next = c.idx[c.lo] + 1
			f.any = true
			f.phase = pColon
			return
		}
		f.phase = pAfter
	case kArray:
		f.phase = pAfter
	}
}

func (f *frame) complete() bool {
	switch f.n.kind {
	case kLiteral:
		return f.lo < f.hi && len(f.lits[f.lo]) == f.pos
	case kNumber:
		return f.phase == pInt || f.phase == pFrac
	case kInteger:
		return f.phase == pInt && f.n.intExt(f.neg, f.val, f.nd) == 0
	}
	return false
}

func (f *frame) feed(b byte) (result, frame) {
	switch f.n.kind {
	case kObject:
		return f.feedObject(b)
	case kArray:
		return f.feedArray(b)
	case kString:
		return f.feedString(b), frame{}
	case kNumber, kInteger:
		return f.feedNumber(b), frame{}
	default:
		return f.feedLiteral(b), frame{}
	}
}

func (f *frame) feedLiteral(b byte) result {
	lo, hi := f.lo, f.hi
	for lo < hi && (len(f.lits[lo]) <= f.pos || f.lits[lo][f.pos] < b) {
		lo++
	}
	for hi > lo && (len(f.lits[hi-1]) <= f.pos || f.lits[hi-1][f.pos] > b) {
		hi--
	}
	if lo < hi {
		f.lo, f.hi = lo, hi
		f.pos++
		if len(f.lits[lo]) == f.pos && hi-lo == 1 {
			return rDoneConsumed
		}
		return rConsumed
	}
	if f.complete() {
		return rDoneRefeed
	}
	return rReject
}

func (f *frame) feedObject(b byte) (result, frame) {
	switch f.phase {
	case pStart:
		if b == '{' {
			f.phase = pOpen
			return rConsumed, frame{}
		}
	case pOpen, pNeed:
		if b == '}' && f.phase == pOpen && !f.requiredLeft() {
			return rDoneConsumed, frame{}
		}
		if b == '"' {
			if k, ok := f.keyFrame(); ok {
				f.phase, f.inKey = pChild, true
				return rPush, k
			}
		}
	case pColon:
		if b == ':' {
			f.phase = pChild
			return rConsumedPush, newFrame(f.n.props[f.next-1].node)
		}
	case pAfter:
		if b == '}' && !f.requiredLeft() {
			return rDoneConsumed, frame{}
		}
		if b == ',' && f.next < len(f.n.props) {
			f.phase = pNeed
			return rConsumed, frame{}
		}
	}
	return rReject, frame{}
}

func (f *frame) feedArray(b byte) (result, frame) {
	n := f.n
	switch f.phase {
	case pStart:
		if b == '[' {
			f.phase = pOpen
			return rConsumed, frame{}
		}
	case pOpen, pNeed:
		if b == ']' && f.phase == pOpen && n.minItems == 0 {
			return rDoneConsumed, frame{}
		}
		if n.maxItems < 0 || f.count < n.maxItems {
			f.count++
			f.phase = pChild
			return rPush, newFrame(n.items)
		}
	case pAfter:
		if b == ']' && f.count >= n.minItems {
			return rDoneConsumed, frame{}
		}
		if b == ',' && (n.maxItems < 0 || f.count < n.maxItems) {
			f.phase = pNeed
			return rConsumed, frame{}
		}
	}
	return rReject, frame{}
}
