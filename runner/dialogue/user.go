package dialogue

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// userSchema asks the user model for its reply and current emotion.
var userSchema = json.RawMessage(`{"type":"object","properties":{"emotion":{"type":"string"},"reply":{"type":"string"}},"required":["emotion","reply"],"additionalProperties":false}`)

var (
	emotionLineRE = regexp.MustCompile(`(?im)^\W*(?:emotion|feeling|mood)\W*[:=]\s*(.+)$`)
	replyLineRE   = regexp.MustCompile(`(?is)^\W*(?:reply|response|message)\W*[:=]\s*(.+)$`)
)

// ParseUserReply reads the user model's output: JSON {"emotion", "reply"}
// first, then "Emotion: ..." / "Reply: ..." lines, else the whole text as
// the reply with no emotion.
func ParseUserReply(raw string) (reply, emotion string) {
	text := strings.TrimSpace(thinkRE.ReplaceAllString(raw, ""))
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		var m map[string]any
		if json.Unmarshal([]byte(text[i:j+1]), &m) == nil {
			for k, v := range m {
				s, _ := v.(string)
				switch strings.ToLower(k) {
				case "reply", "response", "message", "text":
					reply = strings.TrimSpace(s)
				case "emotion", "feeling", "mood":
					emotion = normEmotion(s)
				}
			}
			if reply != "" || emotion != "" {
				return reply, emotion
			}
		}
	}
	if m := emotionLineRE.FindStringSubmatchIndex(text); m != nil {
		emotion = normEmotion(text[m[2]:m[3]])
		text = strings.TrimSpace(text[:m[0]] + text[m[1]:])
	}
	if m := replyLineRE.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	return strings.Trim(strings.TrimSpace(text), `"`), emotion
}

// normEmotion keeps the first word of an emotion, lower-cased.
func normEmotion(s string) string {
	f := strings.Fields(strings.ToLower(normWords(s)))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// userCoin reports whether the user replies after round. It depends on the
// round only, so sibling branches see the same user behaviour.
func (e *engine) userCoin(round int) bool {
	return rngFor(e.cfg.Seed, e.cfg.SeedKey, "user-coin", strconv.Itoa(round)).Float64() < e.cfg.UserSim.replyProb()
}

// maybeUser lets the simulated user reply after an agent turn.
func (e *engine) maybeUser(ctx context.Context, st *state, round int, branch string) error {
	if !e.cfg.UserSim.Enabled || !e.userCoin(round) {
		return nil
	}
	_, err := e.userSay(ctx, st, round, branch, "user")
	return err
}

// userSay asks the user model for one message and records it (with its
// emotion) in st. It returns whether a turn was added.
func (e *engine) userSay(ctx context.Context, st *state, round int, branch, step string) (bool, error) {
	d := e.data(st)
	d.Situation = strings.TrimSpace(strings.Join([]string{e.sample.Situation, e.sample.Problem}, " "))
	d.Profile, d.Emotion = e.profile, st.emotion
	if d.History == "" {
		d.History = "(nothing yet: you start the conversation)"
	}
	sys, err := e.p.render("user_system", d)
	if err != nil {
		return false, err
	}
	usr, err := e.p.render("user_user", d)
	if err != nil {
		return false, err
	}
	raw, err := e.c.text(ctx, RoleUser, e.cfg.User, Pos{Step: step, Round: round, Branch: branch}, msgs(sys, usr), userSchema, "user_reply")
	if err != nil {
		return false, e.c.fail(err)
	}
	reply, emotion := ParseUserReply(raw)
	if reply == "" {
		return false, e.c.empty("user reply")
	}
	if emotion != "" {
		st.emotion = emotion
	}
	st.trajectory = append(st.trajectory, st.emotion)
	st.add(Turn{RoundID: round, TurnType: TurnUser, Response: reply, Emotion: st.emotion}, "User")
	return true, nil
}
