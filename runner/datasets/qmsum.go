package datasets

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"mascot.dev/mascot/internal/labels"
)

type qmMeeting struct {
	ID          string    `json:"id"`
	MeetingID   string    `json:"meeting_id"`
	Topics      []qmTopic `json:"topic_list"`
	General     []qmQuery `json:"general_query_list"`
	Specific    []qmQuery `json:"specific_query_list"`
	Transcripts []struct {
		Speaker string `json:"speaker"`
		Content string `json:"content"`
	} `json:"meeting_transcripts"`
}

type qmTopic struct {
	Topic string      `json:"topic"`
	Spans [][]flexInt `json:"relevant_text_span"`
}

type qmQuery struct {
	Query  string      `json:"query"`
	Answer string      `json:"answer"`
	Spans  [][]flexInt `json:"relevant_text_span"`
}

// loadQMSum reads a QMSum JSONL file, one per-meeting JSON file, or a
// directory of per-meeting JSON files.
func loadQMSum(fsys fs.FS, file string, generalTurns int) ([]Sample, error) {
	st, err := fs.Stat(fsys, file)
	if err != nil {
		return nil, err
	}
	var out []Sample
	switch {
	case st.IsDir():
		names, err := fs.Glob(fsys, path.Join(escapeGlob(file), "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		for _, name := range names {
			s, err := qmsumFile(fsys, name, generalTurns)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
	case strings.HasSuffix(strings.ToLower(file), ".jsonl"):
		stem := fileStem(file)
		err = eachLine(fsys, file, func(n int, line []byte) error {
			var m qmMeeting
			if err := json.Unmarshal(line, &m); err != nil {
				return fmt.Errorf("decoding meeting: %w", err)
			}
			id := firstNonEmpty(m.ID, m.MeetingID, fmt.Sprintf("%s_%d", stem, n-1))
			s, err := qmsumSamples(id, &m, generalTurns)
			out = append(out, s...)
			return err
		})
	default:
		out, err = qmsumFile(fsys, file, generalTurns)
	}
	return out, err
}

func qmsumFile(fsys fs.FS, name string, generalTurns int) ([]Sample, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var m qmMeeting
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path.Base(name), err)
	}
	s, err := qmsumSamples(fileStem(name), &m, generalTurns)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path.Base(name), err)
	}
	return s, nil
}

// qmsumSamples makes one Sample per general and per specific query.
func qmsumSamples(id string, m *qmMeeting, generalTurns int) ([]Sample, error) {
	if len(m.Transcripts) == 0 {
		return nil, fmt.Errorf("meeting %s has no meeting_transcripts", id)
	}
	turns := make([]Utterance, len(m.Transcripts))
	speakers := make([]string, len(m.Transcripts))
	for i, t := range m.Transcripts {
		turns[i] = Utterance{Speaker: t.Speaker, Text: t.Content}
		speakers[i] = t.Speaker
	}
	domain := labels.DomainFromMeetingID(id)
	if domain == "" {
		domain = labels.DomainFromSpeakers(speakers)
	}
	topics := make([]string, len(m.Topics))
	for i, t := range m.Topics {
		topics[i] = t.Topic
	}
	base := func(q qmQuery, kind string, i int) Sample {
		return Sample{
			ID: fmt.Sprintf("%s/%s%d", id, kind[:1], i), Dataset: QMSum,
			Domain: domain, Meeting: id, Query: q.Query, Answer: q.Answer,
			Meta: map[string]string{"query_type": kind, "topics": strings.Join(topics, "; ")},
		}
	}
	var out []Sample
	for i, q := range m.General {
		s := base(q, "general", i)
		n := min(generalTurns, len(turns))
		s.Context = append([]Utterance(nil), turns[:n]...)
		s.Meta["spans"] = "0-" + strconv.Itoa(n-1)
		out = append(out, s)
	}
	for i, q := range m.Specific {
		s := base(q, "specific", i)
		if len(q.Spans) == 0 {
			return nil, fmt.Errorf("meeting %s specific query %d has no relevant_text_span", id, i)
		}
		var spans []string
		for j, sp := range q.Spans {
			if len(sp) != 2 || sp[0] < 0 || sp[0] > sp[1] || int(sp[1]) >= len(turns) {
				return nil, fmt.Errorf("meeting %s specific query %d: span %d %v is outside the %d transcript turns", id, i, j, sp, len(turns))
			}
			if j == 0 {
				s.StartIdx = int(sp[0])
			}
			s.Context = append(s.Context, turns[sp[0]:sp[1]+1]...)
			spans = append(spans, fmt.Sprintf("%d-%d", sp[0], sp[1]))
		}
		s.Meta["spans"] = strings.Join(spans, ",")
		out = append(out, s)
	}
	return out, nil
}

func fileStem(name string) string {
	base := path.Base(name)
	return strings.TrimSuffix(base, path.Ext(base))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// escapeGlob quotes glob metacharacters in a directory name.
func escapeGlob(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}
