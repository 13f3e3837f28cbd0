package constrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

const stopID = 1000

func byteVocab() *Vocab {
	return NewVocab(300, func(id int) []byte {
		if id < 256 {
			return []byte{byte(id)}
		}
		return nil
	})
}

// bpeVocab has multi-byte tokens, some of which span JSON punctuation.
func bpeVocab() (*Vocab, [][]byte) {
	var sp [][]byte
	for i := 0; i < 256; i++ {
		sp = append(sp, []byte{byte(i)})
	}
	for _, s := range []string{`{"`, `":`, `","`, `"}`, `true`, `fal`, `se`, `null`, `12`, `.5`, `ab`, ` the`, `"score":`, `},{"`, `é`, "\n"} {
		sp = append(sp, []byte(s))
	}
	return NewVocab(len(sp), func(id int) []byte { return sp[id] }), sp
}

var schemas = []string{
	`{"type":"object","properties":{"rationale":{"type":"string"},"score":{"type":"integer","minimum":1,"maximum":5}},"required":["rationale","score"],"additionalProperties":false}`,
	`{"type":"object","properties":{"agent":{"type":"string","enum":["Alice","Bob","Bobby"]},"action":{"type":"string","maxLength":12},"tone":{"type":"string"}},"required":["agent","action","tone"]}`,
	`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"boolean"},"c":{"type":"null"},"d":{"type":"array","items":{"type":"integer","minimum":-20,"maximum":300},"minItems":1,"maxItems":3},"e":{"type":"object","properties":{"x":{"type":"string","minLength":2}},"required":["x"]},"f":{"enum":[1,12,"z",true]}},"required":["d","e"]}`,
	`{"type":"object","properties":{"opt":{"type":"string"},"list":{"type":"array","items":{"type":"object","properties":{"k":{"const":"v"},"n":{"type":"integer","exclusiveMinimum":100}},"required":["k","n"]}}}}`,
}

// generate draws random allowed tokens until a stop token.
func generate(t *testing.T, s *Schema, v *Vocab, spell func(int) []byte, size, maxTokens int, r *rand.Rand) ([]byte, bool) {
	t.Helper()
	m := s.Start()
	var out []byte
	for step := 0; step < maxTokens; step++ {
		lg := make([]float32, size)
		v.Mask(m, maxTokens-step, []int{stopID}, lg)
		var ok []int
		for i, x := range lg {
			if !math.IsInf(float64(x), -1) {
				ok = append(ok, i)
			}
		}
		if len(ok) == 0 {
			t.Fatalf("no token allowed after %q", out)
		}
		id := ok[r.IntN(len(ok))]
		if id == stopID {
			return out, true
		}
		b := spell(id)
		if !m.FeedBytes(b) {
			t.Fatalf("mask allowed %q after %q but the machine rejects it", b, out)
		}
		out = append(out, b...)
	}
	return out, false
}

func TestRandomDocumentsValidate(t *testing.T) {
	bv := byteVocab()
	pv, sp := bpeVocab()
	for si, src := range schemas {
		s, err := Compile([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		_ = json.Unmarshal([]byte(src), &doc)
		for seed := uint64(0); seed < 25; seed++ {
			r := rand.New(rand.NewPCG(seed, uint64(si)))
			budget := s.MinBytes() + 1 + r.IntN(120)
			for vi, v := range []*Vocab{bv, pv} {
				spell := func(id int) []byte { return []byte{byte(id)} }
				if vi == 1 {
					spell = func(id int) []byte { return sp[id] }
				}
				size := stopID + 1
				out, stopped := generate(t, s, v, spell, size, budget, r)
				if !stopped {
					t.Fatalf("schema %d seed %d: no stop within %d tokens: %q", si, seed, budget, out)
				}
				if !utf8.Valid(out) {
					t.Fatalf("invalid UTF-8: %q", out)
				}
				d := json.NewDecoder(bytes.NewReader(out))
				d.UseNumber()
				var got any
				if err := d.Decode(&got); err != nil {
					t.Fatalf("schema %d seed %d: %q does not parse: %v", si, seed, out, err)
				}
				if err := validate(doc, got); err != nil {
					t.Fatalf("schema %d seed %d: %q: %v", si, seed, out, err)
				}
			}
		}
	}
}

// validate checks v against the subset of JSON schema the package supports.
func validate(schema, v any) error {
	s := schema.(map[string]any)
	if e, ok := s["enum"]; ok {
		for _, x := range e.([]any) {
			if fmt.Sprint(x) == fmt.Sprint(v) {
				return nil
			}
		}
		return fmt.Errorf("%v not in enum %v", v, e)
	}
	if c, ok := s["const"]; ok {
		if fmt.Sprint(c) != fmt.Sprint(v) {
			return fmt.Errorf("%v is not const %v", v, c)
		}
		return nil
	}
	switch s["type"] {
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%v is not a string", v)
		}
		n := utf8.RuneCountInString(str)
		if ml, ok := s["maxLength"].(float64); ok && n > int(ml) {
			return fmt.Errorf("%q longer than %v", str, ml)
		}
		if ml, ok := s["minLength"].(float64); ok && n < int(ml) {
			return fmt.Errorf("%q shorter than %v", str, ml)
		}
	case "integer", "number":
		num, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("%v is not a number", v)
		}
		f, _ := num.Float64()
		if s["type"] == "integer" && strings.ContainsAny(num.String(), ".eE") {
			return fmt.Errorf("%v is not an integer", v)
		}
		if m, ok := s["minimum"].(float64); ok && f < m {
			return fmt.Errorf("%v below %v", f, m)
		}
		if m, ok := s["maximum"].(float64); ok && f > m {
			return fmt.Errorf("%v above %v", f, m)
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok && f <= m {
			return fmt.Errorf("%v not above %v", f, m)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%v is not a boolean", v)
		}
	case "null":
		if v != nil {
			return fmt.Errorf("%v is not null", v)
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%v is not an array", v)
		}
		if m, ok := s["minItems"].(float64); ok && len(l) < int(m) {
			return fmt.Errorf("too few items")
		}
		if m, ok := s["maxItems"].(float64); ok && len(l) > int(m) {
			return fmt.Errorf("too many items")
		}
		for _, x := range l {
			if err := validate(s["items"], x); err != nil {
				return err
			}
		}
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%v is not an object", v)
		}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := o[r.(string)]; !ok {
				return fmt.Errorf("missing required %q", r)
			}
		}
		for k, x := range o {
			ps, ok := props[k]
			if !ok {
				return fmt.Errorf("unknown property %q", k)
			}
			if err := validate(ps, x); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	return nil
}

func TestMachineAcceptsAndRejects(t *testing.T) {
	s, err := Compile([]byte(schemas[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{`{"rationale":"ok","score":3}`, true},
		{`{"rationale":"a\"b\\n","score":5}`, true},
		{`{"rationale":"ü","score":1}`, true},
		{`{"score":3,"rationale":"x"}`, false},
		{`{"rationale":"x","score":6}`, false},
		{`{"rationale":"x","score":0}`, false},
		{`{"rationale":"x","score":35}`, false},
		{`{"rationale":"x"}`, false},
		{`{"rationale":"x","score":3,}`, false},
		{`{"rationale":"x\u0041","score":3}`, false},
		{"{\"rationale\":\"\x01\",\"score\":3}", false},
		{"{\"rationale\":\"\xff\",\"score\":3}", false},
		{`{ "rationale":"x","score":3}`, false},
	} {
		m := s.Start()
		got := m.FeedBytes([]byte(c.doc)) && m.Accepting()
		if got != c.want {
			t.Errorf("%s: accepted=%v, want %v", c.doc, got, c.want)
		}
	}
}

func TestRestIsExact(t *testing.T) {
	s, _ := Compile([]byte(schemas[0]))
	m := s.Start()
	if got, want := m.Rest(), len(`{"rationale":"","score":1}`); got != want || s.MinBytes() != want {
		t.Fatalf("rest at start %d, min %d, want %d", got, s.MinBytes(), want)
	}
	m.FeedBytes([]byte(`{"rationale":"abc`))
	if got, want := m.Rest(), len(`","score":1}`); got != want {
		t.Fatalf("rest mid-string %d, want %d", got, want)
	}
}

func TestCompileRejectsUnsupported(t *testing.T) {
	for _, src := range []string{
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`,
		`{"type":"string","pattern":"x+"}`,
		`{"type":["string","null"]}`,
		`{"type":"number","minimum":1}`,
		`{"type":"object","properties":{},"required":["a"]}`,
		`{"type":"integer","minimum":5,"maximum":4}`,
	} {
		if _, err := Compile([]byte(src)); err == nil {
			t.Errorf("%s: compiled, want an error", src)
		}
	}
}
