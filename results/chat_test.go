package results

import (
	"context"
	"testing"

	"mascot.dev/mascot/results/jsonl"
)

// TestSaveChat: a conversation saved three times (growing, then shrunk by
// an undo) stays one episode with one id, holds exactly the last turns,
// marks the person's turns human, and is a done unit of stage chat linked
// to its run.
func TestSaveChat(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	mustRun(t, s, "r")
	u := Unit{Fingerprint: "chat-fp", RunID: "r"}
	ep := func(texts ...string) Episode {
		e := Episode{System: "mascot", Dataset: "chat",
			Record: jsonl.Record{ConvID: "chat-1", AgentsSpoken: map[string]int{}}}
		for i, x := range texts {
			tu := Turn{TurnIdx: i, Response: x, AgentName: "The Anchor"}
			if i%2 == 0 {
				tu = Turn{TurnIdx: i, Response: x, TurnType: "user", Extra: HumanExtra()}
			} else {
				e.AgentsSpoken["The Anchor"]++
			}
			e.Turns = append(e.Turns, tu)
		}
		return e
	}
	id1, err := s.SaveChat(ctx, u, ep("hi", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	id2, err := s.SaveChat(ctx, u, ep("hi", "hello", "sad", "I hear you"))
	if err != nil {
		t.Fatal(err)
	}
	id3, err := s.SaveChat(ctx, u, ep("hi", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 || id2 != id3 {
		t.Fatalf("episode ids %d, %d, %d; want one", id1, id2, id3)
	}
	e, err := s.GetEpisode(ctx, id1)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Turns) != 2 || !IsHuman(e.Turns[0]) || IsHuman(e.Turns[1]) || e.Mode != ModeChat || e.AgentsSpoken["The Anchor"] != 1 {
		t.Fatalf("stored %+v", e)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM episodes`); n != 1 {
		t.Errorf("%d episodes, want 1", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM units u JOIN run_units ru ON ru.fingerprint = u.fingerprint
		WHERE u.state = 'done' AND u.kind = 'chat' AND ru.run_id = 'r' AND ru.stage_key = 'chat'`); n != 1 {
		t.Errorf("%d done chat units linked to the run, want 1", n)
	}
}
