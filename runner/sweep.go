package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"mascot.dev/mascot/schema"
)

// Variant is one point of a sweep: config path -> value (JSON). An axis
// whose path is "@NAME" sets the @tag NAME instead (-t NAME=value), so a
// sweep can give each variant its own server URL.
type Variant struct {
	Axes map[string]json.RawMessage `json:"axes"`
	Seed *int                       `json:"seed,omitempty"`
}

// Label renders a variant as "path=value, ...".
func (v Variant) Label() string {
	keys := make([]string, 0, len(v.Axes))
	for k := range v.Axes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+string(v.Axes[k]))
	}
	if v.Seed != nil {
		parts = append(parts, fmt.Sprintf("seed=%d", *v.Seed))
	}
	return strings.Join(parts, ", ")
}

// IsTagAxis reports whether an axis path names an @tag ("@vllm").
func IsTagAxis(path string) bool { return strings.HasPrefix(path, "@") }

// load returns opts with the variant applied: its axes as overrides
// (which replace what the spec writes, see schema.Options.Overrides), its
// tag axes as tags and its seed as the experiment seed.
func (v Variant) load(opts schema.Options) schema.Options {
	opts.Overrides = append([]string(nil), opts.Overrides...)
	opts.Tags = append([]string(nil), opts.Tags...)
	keys := make([]string, 0, len(v.Axes))
	for k := range v.Axes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := v.Axes[k]
		if IsTagAxis(k) {
			s := string(val)
			if u, err := strconv.Unquote(s); err == nil {
				s = u
			}
			name := strings.TrimPrefix(k, "@")
			// The axis's value replaces a -t of the same tag.
			opts.Tags = slices.DeleteFunc(opts.Tags, func(t string) bool { return strings.HasPrefix(t, name+"=") })
			opts.Tags = append(opts.Tags, name+"="+s)
			continue
		}
		opts.Overrides = append(opts.Overrides, k+"="+string(val))
	}
	if v.Seed != nil {
		opts.Overrides = append(opts.Overrides, fmt.Sprintf("seed=%d", *v.Seed))
	}
	return opts
}

// Expand lists a sweep's variants: the cartesian product of the axes
// (grid) or their element-wise pairing (zip), each repeated per seed.
func Expand(sw *schema.Sweep) ([]Variant, error) {
	if sw == nil || len(sw.Axes) == 0 {
		return nil, fmt.Errorf("the experiment declares no sweep axes (add a sweep: block, or pass -m path=a,b)")
	}
	paths := make([]string, 0, len(sw.Axes))
	for p := range sw.Axes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var base []map[string]json.RawMessage
	switch sw.Mode {
	case "zip":
		n := len(sw.Axes[paths[0]])
		for _, p := range paths {
			if len(sw.Axes[p]) != n {
				return nil, fmt.Errorf("zip sweep: axis %s has %d values, %s has %d", p, len(sw.Axes[p]), paths[0], n)
			}
		}
		for i := 0; i < n; i++ {
			m := map[string]json.RawMessage{}
			for _, p := range paths {
				m[p] = sw.Axes[p][i]
			}
			base = append(base, m)
		}
	default:
		base = []map[string]json.RawMessage{{}}
		for _, p := range paths {
			var next []map[string]json.RawMessage
			for _, b := range base {
				for _, v := range sw.Axes[p] {
					m := map[string]json.RawMessage{}
					for k, x := range b {
						m[k] = x
					}
					m[p] = v
					next = append(next, m)
				}
			}
			base = next
		}
	}
	var out []Variant
	for _, b := range base {
		if len(sw.Seeds) == 0 {
			out = append(out, Variant{Axes: b})
			continue
		}
		for _, s := range sw.Seeds {
			s := s
			out = append(out, Variant{Axes: b, Seed: &s})
		}
	}
	return out, nil
}

// ParseMultirun turns `-m path=a,b,c` flags into a sweep: a grid over
// the paths (a zip with zip set). Each value is a CUE literal as written
// (2, 0.5, true, "x", [1, 2]) or else a string; commas inside brackets,
// braces or quotes do not split.
func ParseMultirun(flags []string, zip bool) (*schema.Sweep, error) {
	sw := &schema.Sweep{Mode: "grid", Axes: map[string][]json.RawMessage{}, MaxParallel: 2}
	if zip {
		sw.Mode = "zip"
	}
	for _, f := range flags {
		path, vals, ok := strings.Cut(f, "=")
		if !ok || path == "" || vals == "" {
			return nil, fmt.Errorf("-m %q: want path=value1,value2 (comma-separated values)", f)
		}
		if _, dup := sw.Axes[path]; dup {
			return nil, fmt.Errorf("-m %q: axis %s is given twice", f, path)
		}
		for _, v := range splitValues(vals) {
			sw.Axes[path] = append(sw.Axes[path], literal(strings.TrimSpace(v)))
		}
	}
	return sw, nil
}

// splitValues splits on top-level commas.
func splitValues(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// literal is v as JSON: itself when it is JSON, else a JSON string.
func literal(v string) json.RawMessage {
	if json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	b, _ := json.Marshal(v)
	return b
}
