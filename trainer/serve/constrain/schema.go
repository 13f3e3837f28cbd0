package constrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

type kind uint8

const (
	kString kind = iota
	kNumber
	kInteger
	kLiteral // enum, const, boolean, null
	kObject
	kArray
)

// maxDigits caps the integer and the fraction part of numbers.
const maxDigits = 15

// node is one compiled schema.
type node struct {
	kind kind
	// object
	props []prop
	// array
	items              *node
	minItems, maxItems int // maxItems < 0: unbounded
	// string
	minLen, maxLen int // maxLen < 0: unbounded
	// integer bounds
	lo, hi int64
	// literal: canonical JSON texts, sorted
	lits []string
	// min is the fewest bytes of a value of this node.
	min int
}

type prop struct {
	name     string
	key      string // JSON-encoded name, quotes included
	node     *node
	required bool
}

// Schema is a compiled JSON schema; it is immutable and safe for concurrent
// use.
type Schema struct {
	root *node
}

// Compile parses a JSON schema of the supported subset (see the package
// doc).
func Compile(schema []byte) (*Schema, error) {
	v, err := decodeOrdered(schema)
	if err != nil {
		return nil, fmt.Errorf("parsing json schema: %w", err)
	}
	n, err := compile(v, "")
	if err != nil {
		return nil, fmt.Errorf("compiling json schema: %w", err)
	}
	return &Schema{root: n}, nil
}

// MinBytes is the length of the shortest document the schema accepts.
func (s *Schema) MinBytes() int { return s.root.min }

var ignored = map[string]bool{"title": true, "description": true, "default": true, "examples": true,
	"$schema": true, "$id": true, "strict": true, "format": true, "additionalProperties": true, "$comment": true}

func compile(v any, path string) (*node, error) {
	obj, ok := v.(ordered)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object", pathOr(path))
	}
	get := func(k string) (any, bool) {
		for _, kv := range obj {
			if kv.k == k {
				return kv.v, true
			}
		}
		return nil, false
	}
	typ, _ := get("type")
	if e, ok := get("enum"); ok {
		return literals(e, path)
	}
	if c, ok := get("const"); ok {
		return literals([]any{c}, path)
	}
	for _, kv := range obj {
		switch kv.k {
		case "type", "properties", "required", "items", "minItems", "maxItems", "minLength", "maxLength",
			"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		default:
			if !ignored[kv.k] {
				return nil, fmt.Errorf("%s: unsupported keyword %q", pathOr(path), kv.k)
			}
		}
	}
	ts, _ := typ.(string)
	if typ == nil {
		if _, ok := get("properties"); ok {
			ts = "object"
		}
	}
	n := &node{}
	switch ts {
	case "string":
		n.kind = kString
		n.minLen, n.maxLen = intKw(get, "minLength", 0), intKw(get, "maxLength", -1)
		if n.maxLen >= 0 && n.maxLen < n.minLen {
			return nil, fmt.Errorf("%s: maxLength below minLength", pathOr(path))
		}
		n.min = 2 + n.minLen
	case "number":
		n.kind = kNumber
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if _, ok := get(k); ok {
				return nil, fmt.Errorf("%s: %s is supported on integers only", pathOr(path), k)
			}
		}
		n.min = 1
	case "integer":
		n.kind = kInteger
		lim := int64(math.Pow10(maxDigits)) - 1
		n.lo, n.hi = -lim, lim
		if x, ok := numKw(get, "minimum"); ok {
			n.lo = max(n.lo, int64(math.Ceil(x)))
		}
		if x, ok := numKw(get, "exclusiveMinimum"); ok {
			n.lo = max(n.lo, int64(math.Floor(x))+1)
		}
		if x, ok := numKw(get, "maximum"); ok {
			n.hi = min(n.hi, int64(math.Floor(x)))
		}
		if x, ok := numKw(get, "exclusiveMaximum"); ok {
			n.hi = min(n.hi, int64(math.Ceil(x))-1)
		}
		if n.lo > n.hi {
			return nil, fmt.Errorf("%s: no integer lies between the bounds", pathOr(path))
		}
		n.min = intMinLen(n.lo, n.hi)
	case "boolean":
		return literals([]any{true, false}, path)
	case "null":
		return literals([]any{nil}, path)
	case "object":
		if err := compileObject(n, get, path); err != nil {
			return nil, err
		}
	case "array":
		n.kind = kArray
		it, ok := get("items")
		if !ok {
			return nil, fmt.Errorf("%s: an array needs items", pathOr(path))
		}
		var err error
		if n.items, err = compile(it, path+"[]"); err != nil {
			return nil, err
		}
		n.minItems, n.maxItems = intKw(get, "minItems", 0), intKw(get, "maxItems", -1)
		if n.maxItems >= 0 && n.maxItems < n.minItems {
			return nil, fmt.Errorf("%s: maxItems below minItems", pathOr(path))
		}
		n.min = 2 + n.minItems*n.items.min + max(0, n.minItems-1)
	default:
		return nil, fmt.Errorf("%s: unsupported type %v", pathOr(path), typ)
	}
	return n, nil
}

func compileObject(n *node, get func(string) (any, bool), path string) error {
	n.kind = kObject
	req := map[string]bool{}
	if r, ok := get("required"); ok {
		list, ok := r.([]any)
		if !ok {
			return fmt.Errorf("%s: required must be a list", pathOr(path))
		}
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("%s: required must list strings", pathOr(path))
			}
			req[s] = true
		}
	}
	if p, ok := get("properties"); ok {
		props, ok := p.(ordered)
		if !ok {
			return fmt.Errorf("%s: properties must be an object", pathOr(path))
		}
		for _, kv := range props {
			sub, err := compile(kv.v, path+"."+kv.k)
			if err != nil {
				return err
			}
			key, _ := json.Marshal(kv.k)
			n.props = append(n.props, prop{name: kv.k, key: string(key), node: sub, required: req[kv.k]})
			delete(req, kv.k)
		}
	}
	for k := range req {
		return fmt.Errorf("%s: required property %q is not in properties", pathOr(path), k)
	}
	n.min = 1 + n.tail(0, true)
	return nil
}

// tail is the fewest bytes after a value (or after the opening brace when
// first) when the next property to consider is i: every later required
// property with its separator, then the closing brace.
func (n *node) tail(i int, first bool) int {
	t := 1
	for _, p := range n.props[i:] {
		if p.required {
			t += 1 + len(p.key) + 1 + p.node.min
			if first {
				t--
				first = false
			}
		}
	}
	return t
}

// literals compiles an enum: each value's canonical JSON text.
func literals(e any, path string) (*node, error) {
	list, ok := e.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: enum must be a non-empty list", pathOr(path))
	}
	n := &node{kind: kLiteral}
	seen := map[string]bool{}
	for _, x := range list {
		var b []byte
		switch v := x.(type) {
		case json.Number:
			b = []byte(v.String())
		case string, bool, nil:
			b, _ = json.Marshal(v)
		default:
			return nil, fmt.Errorf("%s: enum values must be strings, numbers, booleans or null", pathOr(path))
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			n.lits = append(n.lits, string(b))
		}
	}
	sort.Strings(n.lits)
	n.min = len(n.lits[0])
	for _, l := range n.lits {
		n.min = min(n.min, len(l))
	}
	return n, nil
}

func intMinLen(lo, hi int64) int {
	switch {
	case lo <= 0 && hi >= 0:
		return 1
	case lo > 0:
		return len(strconv.FormatInt(lo, 10))
	default:
		return len(strconv.FormatInt(hi, 10))
	}
}

func intKw(get func(string) (any, bool), k string, def int) int {
	if x, ok := numKw(get, k); ok {
		return int(x)
	}
	return def
}

func numKw(get func(string) (any, bool), k string) (float64, bool) {
	v, ok := get(k)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func pathOr(p string) string {
	if p == "" {
		return "schema"
	}
	return "schema" + p
}

// ordered is a JSON object that keeps its key order.
type ordered []kv

type kv struct {
	k string
	v any
}

func decodeOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the schema")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		var o ordered
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			o = append(o, kv{kt.(string), v})
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		l := []any{}
		for d.More() {
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		_, err := d.Token()
		return l, err
	}
	return t, nil
}
