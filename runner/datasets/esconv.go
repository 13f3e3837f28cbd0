package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"mascot.dev/mascot/internal/labels"
)

// Normalised speaker names of emotional-support samples.
const (
	Seeker    = "seeker"
	Supporter = "supporter"
)

// esRecord covers the three ESConv layouts: ESConv.json and
// FailedESConv.json (content, annotation.strategy) and the Hugging Face
// split files (text, strategy).
type esRecord struct {
	ExperienceType string          `json:"experience_type"`
	EmotionType    string          `json:"emotion_type"`
	ProblemType    string          `json:"problem_type"`
	Situation      string          `json:"situation"`
	SurveyScore    json.RawMessage `json:"survey_score"`
	Dialog         []esTurn        `json:"dialog"`
}

type esTurn struct {
	Speaker    string `json:"speaker"`
	Content    string `json:"content"` // ESConv.json, FailedESConv.json
	Text       string `json:"text"`    // HF split files
	Strategy   string `json:"strategy"`
	Annotation struct {
		Strategy string `json:"strategy"`
		Feedback string `json:"feedback"`
	} `json:"annotation"`
}

// esSpeakers maps each layout's speaker names to the normalised ones.
var esSpeakers = map[string]string{
	"seeker": Seeker, "speaker": Seeker, "usr": Seeker,
	"supporter": Supporter, "listener": Supporter, "sys": Supporter,
}

// esFormats names each layout by its speaker pair.
var esFormats = map[string]string{
	"seeker": "seeker/supporter", "supporter": "seeker/supporter",
	"speaker": "speaker/listener", "listener": "speaker/listener",
	"usr": "usr/sys", "sys": "usr/sys",
}

// loadESConv reads a JSON array of dialogues (ESConv.json,
// FailedESConv.json) or a JSON-lines split file (HF train/valid/test.txt,
// each line a record or {"text": "<record as JSON>"}).
func loadESConv(fsys fs.FS, file string) ([]Sample, error) {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	stem := fileStem(file)
	var out []Sample
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		recs, err := decodeESConvArray(b)
		if err != nil {
			return nil, fmt.Errorf("decoding dialogues: %w", err)
		}
		for i := range recs {
			s, err := esSample(fmt.Sprintf("%s-%d", stem, i), &recs[i])
			if err != nil {
				return nil, fmt.Errorf("dialogue %d: %w", i, err)
			}
			out = append(out, s)
		}
		return out, nil
	}
	err = eachLine(fsys, file, func(n int, line []byte) error {
		var wrap struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(line, &wrap); err != nil {
			return fmt.Errorf("decoding dialogue: %w", err)
		}
		if wrap.Text != nil {
			line = []byte(*wrap.Text)
		}
		var rec esRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("decoding dialogue: %w", err)
		}
		s, err := esSample(fmt.Sprintf("%s-%d", stem, len(out)), &rec)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// decodeESConvArray decodes a JSON array of dialogues with json v2's
// engine under v1's rules (the same records and errors as encoding/json:
// TestESConvDecodesAsEncodingJSON), faster: a stage waits for its
// dataset before its first request (docs/benchmarks.md, "The candidates
// stage against a bare client").
func decodeESConvArray(b []byte) ([]esRecord, error) {
	var recs []esRecord
	err := jsonv1.Unmarshal(b, &recs)
	return recs, err
}

func esSample(id string, r *esRecord) (Sample, error) {
	if len(r.Dialog) == 0 {
		return Sample{}, fmt.Errorf("dialogue %s has no turns", id)
	}
	s := Sample{
		ID: id, Dataset: ESConv,
		Emotion:   r.EmotionType,
		Valence:   labels.ValenceOf(r.EmotionType),
		Situation: strings.TrimSpace(r.Situation),
		Problem:   r.ProblemType,
		Meta:      map[string]string{},
	}
	strategies := map[string]bool{}
	var order []string
	for i, t := range r.Dialog {
		sp, ok := esSpeakers[strings.ToLower(t.Speaker)]
		if !ok {
			return Sample{}, fmt.Errorf("dialogue %s turn %d: unknown speaker %q (want seeker/supporter, speaker/listener or usr/sys)", id, i, t.Speaker)
		}
		u := Utterance{Speaker: sp, Text: strings.TrimSpace(firstNonEmpty(t.Content, t.Text))}
		if sp == Supporter {
			u.Strategy = firstNonEmpty(t.Annotation.Strategy, t.Strategy)
			if u.Strategy != "" && !strategies[u.Strategy] {
				strategies[u.Strategy] = true
				order = append(order, u.Strategy)
			}
		}
		s.Context = append(s.Context, u)
	}
	s.Meta["speakers"] = esFormats[strings.ToLower(r.Dialog[0].Speaker)]
	if len(order) > 0 {
		s.Meta["strategies"] = strings.Join(order, "; ")
	}
	if r.ExperienceType != "" {
		s.Meta["experience_type"] = r.ExperienceType
	}
	var survey struct {
		Seeker map[string]string `json:"seeker"`
	}
	if len(r.SurveyScore) > 0 && json.Unmarshal(r.SurveyScore, &survey) == nil {
		for k, v := range survey.Seeker {
			s.Meta["seeker_"+k] = v
		}
	}
	return s, nil
}
