package dialogue

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"text/template"

	"mascot.dev/mascot/results/jsonl"
	"mascot.dev/mascot/runner/datasets"
)

// Templates are the Go text/template sources of every prompt. An empty
// field takes the built-in default (DefaultTemplates). Every template is
// executed with a PromptData.
type Templates struct {
	Task                 string `json:"task,omitempty"`
	DirectorSystem       string `json:"director_system,omitempty"`
	DirectorUser         string `json:"director_user,omitempty"`
	SpeakerSystem        string `json:"speaker_system,omitempty"`
	GenericSpeakerSystem string `json:"generic_speaker_system,omitempty"`
	SpeakerUser          string `json:"speaker_user,omitempty"`
	UserSystem           string `json:"user_system,omitempty"`
	UserUser             string `json:"user_user,omitempty"`
	BaselineSystem       string `json:"baseline_system,omitempty"`
	BaselineUser         string `json:"baseline_user,omitempty"`
	ESCAnalysis          string `json:"esc_analysis,omitempty"`
	ESCStrategy          string `json:"esc_strategy,omitempty"`
	ESCResponse          string `json:"esc_response,omitempty"`
	ESCVote              string `json:"esc_vote,omitempty"`
	ESCTieBreak          string `json:"esc_tie_break,omitempty"`
	ESCReflect           string `json:"esc_reflect,omitempty"`
}

// PromptData is what every template sees. Fields irrelevant to a prompt
// are zero.
type PromptData struct {
	Task       string
	Sample     datasets.Sample
	Meeting    bool // the sample is a meeting (QMSum) query
	Roster     Roster
	Agent      Agent
	Directive  jsonl.Directive
	History    string // the conversation so far, one "Name: text" per line
	Transcript string // meeting transcript (meetings only)

	// User simulator.
	Situation string
	Profile   string
	Emotion   string

	// Baselines.
	CoT      bool
	Examples string

	// multiagent-esc.
	Aspect     string // emotion | cause | intention
	Analysis   string
	Strategies []string
	Strategy   string
	Candidates []string
	Response   string
}

// prompts are parsed templates.
type prompts struct {
	t map[string]*template.Template
}

// fields lists every template by name with its source (after defaults).
func (t Templates) fields() map[string]string {
	d := DefaultTemplates()
	pick := func(v, def string) string {
		if strings.TrimSpace(v) == "" {
			return def
		}
		return v
	}
	return map[string]string{
		"task":            pick(t.Task, d.Task),
		"director_system": pick(t.DirectorSystem, d.DirectorSystem),
		"director_user":   pick(t.DirectorUser, d.DirectorUser),
		"speaker_system":  pick(t.SpeakerSystem, d.SpeakerSystem),
		"generic_speaker": pick(t.GenericSpeakerSystem, d.GenericSpeakerSystem),
		"speaker_user":    pick(t.SpeakerUser, d.SpeakerUser),
		"user_system":     pick(t.UserSystem, d.UserSystem),
		"user_user":       pick(t.UserUser, d.UserUser),
		"baseline_system": pick(t.BaselineSystem, d.BaselineSystem),
		"baseline_user":   pick(t.BaselineUser, d.BaselineUser),
		"esc_analysis":    pick(t.ESCAnalysis, d.ESCAnalysis),
		"esc_strategy":    pick(t.ESCStrategy, d.ESCStrategy),
		"esc_response":    pick(t.ESCResponse, d.ESCResponse),
		"esc_vote":        pick(t.ESCVote, d.ESCVote),
		"esc_tie_break":   pick(t.ESCTieBreak, d.ESCTieBreak),
		"esc_reflect":     pick(t.ESCReflect, d.ESCReflect),
	}
}

// compiled caches parsed template sets by their sources (Templates is
// comparable); parsed templates are safe for concurrent Execute.
var compiled sync.Map

// compile parses every template (once per distinct Templates value); the
// error names the broken one.
func (t Templates) compile() (*prompts, error) {
	if p, ok := compiled.Load(t); ok {
		return p.(*prompts), nil
	}
	p := &prompts{t: map[string]*template.Template{}}
	for name, src := range t.fields() {
		tt, err := template.New(name).Option("missingkey=zero").Parse(src)
		if err != nil {
			return nil, fmt.Errorf("parsing template %s: %w", name, err)
		}
		p.t[name] = tt
	}
	compiled.Store(t, p)
	return p, nil
}

// Validate parses every template (defaults included).
func (t Templates) Validate() error {
	_, err := t.compile()
	return err
}

// render executes the named template.
func (p *prompts) render(name string, data PromptData) (string, error) {
	return renderTemplate(p.t[name], data)
}

// renderBufs are the buffers templates execute into: a prompt then takes
// one allocation of its trimmed size, where a strings.Builder grew through
// a copy per doubling (and kept the untrimmed capacity).
var renderBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxRenderBuf keeps an unusually large prompt's buffer out of the pool.
const maxRenderBuf = 256 << 10

// renderTemplate executes t, naming it in the error.
func renderTemplate(t *template.Template, data PromptData) (string, error) {
	b := renderBufs.Get().(*bytes.Buffer)
	b.Reset()
	defer func() {
		if b.Cap() <= maxRenderBuf {
			renderBufs.Put(b)
		}
	}()
	if err := t.Execute(b, data); err != nil {
		return "", fmt.Errorf("rendering template %s: %w", t.Name(), err)
	}
	return string(bytes.TrimSpace(b.Bytes())), nil
}
