package fakevllm

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
)

// prompt is what content generation needs from a request.
type prompt struct {
	model        string
	msgs         []string // "role\x00content"
	system       string
	all          string
	seed         *int64
	schema       map[string]any
	directive    bool
	agents       []string
	persona      string
	action, tone string
	promptTokens int
	base         uint64 // rng's hash of model and messages, once hashed
	hashed       bool
}

func newPrompt(req chatRequest, base string) *prompt {
	p := &prompt{model: req.Model, seed: req.Seed}
	if p.model == "" {
		p.model = base
	}
	var all, sys strings.Builder
	for _, m := range req.Messages {
		t := m.text()
		p.msgs = append(p.msgs, m.Role+"\x00"+t)
		all.WriteString(t)
		all.WriteByte('\n')
		if m.Role == "system" || m.Role == "developer" {
			sys.WriteString(t)
			sys.WriteByte('\n')
		}
		p.promptTokens += countWords(t) + 3
	}
	p.all, p.system = all.String(), sys.String()
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" && rf.JSONSchema != nil {
		_ = json.Unmarshal(rf.JSONSchema.Schema, &p.schema)
		if p.schema == nil {
			p.schema = map[string]any{"type": "object"}
		}
	}
	if m := findIf(personaRe, p.system, "ou are "); m != nil && !notPersonas[strings.Fields(m[1])[0]] {
		p.persona = m[1]
	}
	// A speaker's prompt may quote the directive; a persona wins.
	p.directive = p.persona == "" && strings.Contains(p.all, "Agent") && strings.Contains(p.all, "Action") &&
		strings.Contains(p.all, "Tone")
	if p.directive {
		p.agents = agentNames(p.all, p.schema)
	}
	if m := findIf(actionRe, p.all, "Action"); m != nil {
		p.action = strings.TrimSpace(m[1])
	}
	if m := findIf(toneRe, p.all, "Tone"); m != nil {
		p.tone = strings.TrimSpace(m[1])
	}
	return p
}

var (
	personaRe = regexp.MustCompile(`\b[Yy]ou are (?:now |playing )?([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)`)
	actionRe  = regexp.MustCompile(`(?m)^\W*Action\W*:\s*(\S.*)$`)
	toneRe    = regexp.MustCompile(`(?m)^\W*Tone\W*:\s*(\S.*)$`)
	listRe    = regexp.MustCompile(`(?i)\b(?:agents|personas|speakers|candidates)[ \t]*:[ \t]*([^\n]+)`)
	bulletRe  = regexp.MustCompile(`(?m)^\s*(?:[-*•]|\d+[.)])\s*\**([A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})\**\s*(?:[:(—–-]|$)`)
)

// findIf is re.FindStringSubmatch(s), run only when s holds lit, a
// literal every match contains: the patterns' backtracking over every line
// of a long prompt was a fifth of this server's CPU in the candidates
// benchmark, where it shares the client's two cores.
func findIf(re *regexp.Regexp, s, lit string) []string {
	if !strings.Contains(s, lit) {
		return nil
	}
	return re.FindStringSubmatch(s)
}

var notPersonas = map[string]bool{"Director": true, "The": true, "A": true, "An": true, "Judge": true,
	"Moderator": true, "Assistant": true, "Qwen": true, "ChatGPT": true, "Claude": true}

var notAgents = map[string]bool{"Agent": true, "Action": true, "Tone": true, "Note": true, "Example": true,
	"Output": true, "Format": true, "Rules": true, "History": true, "Context": true, "Dialogue": true}

// agentNames finds the agents a directive may name: the schema's enum for
// an "agent" property, an "Agents: A, B" line, or bulleted names.
func agentNames(all string, schema map[string]any) []string {
	if props, ok := schema["properties"].(map[string]any); ok {
		for k, v := range props {
			if isAgentKey(k) {
				if vm, ok := v.(map[string]any); ok {
					if enum, ok := vm["enum"].([]any); ok && len(enum) > 0 {
						out := make([]string, 0, len(enum))
						for _, e := range enum {
							out = append(out, fmt.Sprint(e))
						}
						return out
					}
				}
			}
		}
	}
	if m := listRe.FindStringSubmatch(all); m != nil {
		list, _, _ := strings.Cut(m[1], ". ")
		var out []string
		for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ';' || r == '|' }) {
			f = strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f), "and ")), "*\"'`.")
			if f != "" {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range bulletRe.FindAllStringSubmatch(all, -1) {
		if n := m[1]; !notAgents[n] && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []string{"Agent"}
	}
	return out
}

func isAgentKey(k string) bool {
	switch strings.ToLower(k) {
	case "agent", "speaker", "next_speaker", "agent_name", "persona":
		return true
	}
	return false
}

// rng returns the deterministic source for choice i: the 64-bit FNV-1a
// hash of model, messages, seed and choice index. The model's and
// messages' part is hashed once per request (a reply asks for several
// sources, and a 2.4 kB prompt hashed a byte at a time was the server's
// largest cost after JSON: it shares the client's cores in the benchmarks).
func (p *prompt) rng(i int, salt string) *rand.Rand {
	if !p.hashed {
		h := fnvAdd(fnvOffset, p.model)
		for _, m := range p.msgs {
			h = fnvAdd(fnvAdd(h, "\x00"), m)
		}
		if len(p.msgs) == 0 {
			h = fnvAdd(h, p.all)
		}
		p.base, p.hashed = h, true
	}
	h := p.base
	if p.seed != nil {
		h = fnvAdd(h, fmt.Sprintf("\x01seed=%d", *p.seed))
	}
	x := fnvAdd(h, fmt.Sprintf("\x01choice=%d\x01%s", i, salt))
	return rand.New(rand.NewPCG(x, x^0xda3e39cb94b95bdb))
}

// FNV-1a, 64 bits (hash/fnv's New64a, without its interface per byte).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func (p *prompt) id() string { return fmt.Sprintf("%016x", p.rng(0, "id").Uint64()) }

var (
	words = strings.Fields(`the a we you it this that feel think maybe really quite perhaps today meeting project
		budget design team plan idea point question answer time help support listen understand share next step
		together clear simple honest calm hard easy good better best important small big new careful open`)
	actions = []string{"offer empathy and validate the user's feelings", "ask a clarifying question",
		"summarize the key points so far", "share a relevant personal perspective", "suggest a concrete next step",
		"gently challenge an assumption"}
	tones = []string{"warm", "calm", "encouraging", "curious", "direct", "playful"}
)

// sentence is deterministic filler text for choice i.
func (p *prompt) sentence(i int) string {
	r := p.rng(i, "text")
	n := 8 + r.IntN(17)
	out := make([]string, n)
	for k := range out {
		out[k] = words[r.IntN(len(words))]
	}
	s := strings.Join(out, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (p *prompt) reasoning(i int) string {
	return "Let me think about what to say. " + p.sentence(i+1_000_000)
}

// generate is the content of choice i, following the recognised patterns.
func (p *prompt) generate(i int) string {
	r := p.rng(i, "pick")
	agent := ""
	if len(p.agents) > 0 {
		agent = p.agents[r.IntN(len(p.agents))]
	}
	action, tone := actions[r.IntN(len(actions))], tones[r.IntN(len(tones))]
	switch {
	case p.schema != nil:
		v := valueFor(p.schema, "", &genCtx{r: r, agent: agent, action: action, tone: tone, p: p, i: i}, 0)
		b, _ := json.Marshal(v)
		return string(b)
	case p.directive:
		return fmt.Sprintf("Agent: %s\nAction: %s\nTone: %s", agent, action, tone)
	case p.persona != "":
		s := "I'm " + p.persona + ". " + p.sentence(i)
		if p.action != "" && p.tone != "" {
			s += " [directive: " + p.action + " | " + p.tone + "]"
		}
		return s
	}
	return p.sentence(i)
}

// garbage is a directive that names no known agent (FaultGarbageDirective).
func (p *prompt) garbage(i int) string {
	if p.schema != nil {
		return `{"agent": "Nobody In Particular", "action": 42}`
	}
	return "Hmm, someone should probably talk next. " + p.sentence(i)
}
