package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"mascot.dev/mascot/results"
)

// ChatTurn is one turn as the chat page shows it.
type ChatTurn struct {
	Speaker string
	Human   bool
	Text    string
	// The Director's directive, for directed systems ("" otherwise).
	Agent, Action, Tone string
}

// ChatConversation is a live conversation with a run's trained system
// (runner/chat through the CLI; the viewer does not import the runner).
type ChatConversation interface {
	ID() string
	System() string
	Turns() []ChatTurn
	// Say adds the person's message and calls emit with each reply turn as
	// soon as it is generated; the conversation is stored afterwards.
	Say(ctx context.Context, text string, emit func(ChatTurn)) error
	Undo(ctx context.Context) (bool, error)
	EpisodeID() int64
}

// ChatOpener starts a conversation with system ("" = the run's own) of a
// finished run.
type ChatOpener func(ctx context.Context, runID, system string) (ChatConversation, error)

// maxChats bounds the conversations the viewer keeps in memory.
const maxChats = 256

// chatSessions holds the live conversations by id; each has its own lock,
// since a conversation answers one message at a time.
type chatSessions struct {
	mu    sync.Mutex
	convs map[string]*liveChat
}

type liveChat struct {
	sync.Mutex
	run  string
	conv ChatConversation
}

func newChatSessions() *chatSessions { return &chatSessions{convs: map[string]*liveChat{}} }

func (c *chatSessions) get(id string) *liveChat {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.convs[id]
}

func (c *chatSessions) add(run string, conv ChatConversation) (*liveChat, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.convs) >= maxChats {
		return nil, &httpError{http.StatusServiceUnavailable, fmt.Sprintf("%d conversations are open; restart mascot ui to start more", maxChats)}
	}
	l := &liveChat{run: run, conv: conv}
	c.convs[conv.ID()] = l
	return l, nil
}

// chatData is the chat page.
type chatData struct {
	Enabled bool
	Runs    []results.RunListEntry
	RunID   string
	System  string
	ConvID  string
	Episode int64
	Turns   []ChatTurn
	// Stream delivers the reply turns while they are generated (POST);
	// StreamErr is read once it is closed.
	Stream <-chan ChatTurn
	err    *error
	conv   ChatConversation
}

// Stored is the conversation's episode id once stored (read after the
// stream ends).
func (d chatData) Stored() int64 {
	if d.conv == nil {
		return 0
	}
	return d.conv.EpisodeID()
}

// StreamErr is the error that ended the stream, if any.
func (d chatData) StreamErr() string {
	if d.err == nil || *d.err == nil {
		return ""
	}
	return (*d.err).Error()
}

// chatPage is GET /chat[?run=RUN[&system=S]][&conv=ID]: the run picker, or
// the conversation so far with the message form.
func (s *server) chatPage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	d := chatData{Enabled: s.opts.Chat != nil, RunID: q.Get("run"), System: q.Get("system")}
	if id := q.Get("conv"); id != "" {
		l := s.chats.get(id)
		if l == nil {
			return notFound("no live conversation %q (conversations end with mascot ui; stored ones are under the run's episodes)", id)
		}
		if !l.TryLock() {
			return &httpError{http.StatusConflict, "this conversation is answering a message; reload in a moment"}
		}
		d.RunID, d.System, d.ConvID, d.Turns, d.Episode = l.run, l.conv.System(), id, l.conv.Turns(), l.conv.EpisodeID()
		l.Unlock()
	}
	if d.RunID == "" {
		runs, err := s.st.ListRuns(r.Context(), results.RunFilter{Limit: 200})
		if err != nil {
			return err
		}
		d.Runs = runs
	} else if _, err := s.st.GetRun(r.Context(), d.RunID); err != nil {
		return err
	}
	return s.render(w, "chat", page{Title: "Chat with a trained system", Data: d})
}

// chatSubmit is POST /chat: send a message (the page streams the replies
// as they are generated) or undo the last one.
func (s *server) chatSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.opts.Chat == nil {
		return &httpError{http.StatusServiceUnavailable, "chat is off in this viewer (mascot ui enables it on a loopback address)"}
	}
	ctx := r.Context()
	vals := map[string]string{}
	for name, max := range map[string]int{"run": maxField, "system": maxField, "conv": maxField, "message": maxMessage, "action": maxField} {
		v, err := field(r, name, max)
		if err != nil {
			return err
		}
		vals[name] = v
	}
	var l *liveChat
	if id := vals["conv"]; id != "" {
		if l = s.chats.get(id); l == nil {
			return notFound("no live conversation %q", id)
		}
	}
	if vals["action"] == "undo" {
		if l == nil {
			return badRequest("nothing to undo")
		}
		if !l.TryLock() {
			return &httpError{http.StatusConflict, "this conversation is answering a message; undo once it has"}
		}
		_, err := l.conv.Undo(ctx)
		l.Unlock()
		if err != nil {
			return err
		}
		http.Redirect(w, r, "/chat?"+url.Values{"conv": {l.conv.ID()}}.Encode(), http.StatusSeeOther)
		return nil
	}
	if vals["message"] == "" {
		return badRequest("an empty message")
	}
	if l == nil {
		if _, err := s.st.GetRun(ctx, vals["run"]); err != nil {
			return err
		}
		conv, err := s.opts.Chat(ctx, vals["run"], vals["system"])
		if err != nil {
			return &httpError{http.StatusBadGateway, "opening the run's system: " + err.Error()}
		}
		if l, err = s.chats.add(vals["run"], conv); err != nil {
			return err
		}
	}
	if !l.TryLock() {
		return &httpError{http.StatusConflict, "this conversation is answering another message"}
	}
	defer l.Unlock()
	stream := make(chan ChatTurn)
	var sayErr error
	d := chatData{Enabled: true, RunID: l.run, System: l.conv.System(), ConvID: l.conv.ID(),
		Turns: append(l.conv.Turns(), ChatTurn{Speaker: "User", Human: true, Text: vals["message"]}), Stream: stream, err: &sayErr, conv: l.conv}
	go func() {
		defer close(stream)
		sayErr = l.conv.Say(ctx, vals["message"], func(t ChatTurn) { stream <- t })
	}()
	err := s.stream(w, "chat", page{Title: "Chat with a trained system", Data: d})
	for range stream { // the page failed: let Say finish
	}
	return err
}

// stream executes a page straight to the client, flushing every write, so
// a template ranging over a channel shows each item as it arrives.
func (s *server) stream(w http.ResponseWriter, name string, p page) error {
	t := s.pages.pages[name]
	if t == nil {
		return fmt.Errorf("rendering: no template %q", name)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	if err := t.Execute(flushWriter{w, rc}, p); err != nil {
		s.opts.Logger.Error("streaming page", "page", name, "err", err)
	}
	return nil
}

type flushWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (f flushWriter) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	if err == nil {
		if ferr := f.rc.Flush(); ferr != nil && !errors.Is(ferr, http.ErrNotSupported) {
			err = ferr
		}
	}
	return n, err
}
