package datasets

import (
	"fmt"
	"io/fs"
	"strings"

	"mascot.dev/mascot/internal/labels"
)

// edColumns is the Empathetic Dialogues CSV header.
var edColumns = []string{"conv_id", "utterance_idx", "context", "prompt", "speaker_idx", "utterance", "selfeval", "tags"}

// EDUnescape undoes the Empathetic Dialogues escaping of commas inside
// text ("_comma_" -> ",").
func EDUnescape(s string) string { return strings.ReplaceAll(s, "_comma_", ",") }

// loadED reads an Empathetic Dialogues CSV. The file is not quoted CSV:
// fields are split on every comma (commas inside text are _comma_), the
// first eight fields are used and any extra ones ignored, and a new
// conversation starts whenever conv_id changes from the previous row.
func loadED(fsys fs.FS, file string) ([]Sample, error) {
	var out []Sample
	seen := map[string]int{}
	cur := -1 // index in out of the conversation being read
	var seekerIdx string
	header := true
	err := eachLine(fsys, file, func(n int, line []byte) error {
		f := strings.Split(strings.TrimRight(string(line), "\r"), ",")
		if header {
			header = false
			if len(f) < 7 || strings.Join(f[:7], ",") != strings.Join(edColumns[:7], ",") {
				return fmt.Errorf("not an Empathetic Dialogues CSV: header %q, want %s", line, strings.Join(edColumns, ","))
			}
			return nil
		}
		if len(f) < 7 {
			return fmt.Errorf("%d fields, want at least 7 (%s)", len(f), strings.Join(edColumns, ","))
		}
		convID, emotion := f[0], strings.TrimSpace(f[2])
		valence, ok := labels.EDValence(emotion)
		if !ok {
			return fmt.Errorf("conversation %s: emotion %q is not one of the 32 Empathetic Dialogues emotions", convID, emotion)
		}
		if cur < 0 || out[cur].Meta["conv_id"] != convID {
			id := convID
			if k := seen[convID]; k > 0 {
				id = fmt.Sprintf("%s#%d", convID, k+1) // conv_id reused after another conversation
			}
			seen[convID]++
			out = append(out, Sample{
				ID: id, Dataset: EmpatheticDialogues,
				Emotion: emotion, Valence: valence,
				Situation: strings.TrimSpace(EDUnescape(f[3])),
				Meta:      map[string]string{"conv_id": convID, "selfeval": f[6]},
			})
			cur = len(out) - 1
			seekerIdx = f[4]
		}
		sp := Supporter
		if f[4] == seekerIdx {
			sp = Seeker
		}
		out[cur].Context = append(out[cur].Context, Utterance{Speaker: sp, Text: strings.TrimSpace(EDUnescape(f[5]))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if header {
		return nil, fmt.Errorf("empty file, want the header %s", strings.Join(edColumns, ","))
	}
	return out, nil
}
