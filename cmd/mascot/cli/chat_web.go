package cli

import (
	"context"
	"net"
	"sync"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/web"
	"mascot.dev/mascot/runner/chat"
)

// webChats opens runs' systems for the viewer's chat page, once per (run,
// system), and keeps them (engines running) until the viewer stops.
type webChats struct {
	f     *chatFlags
	c     *cobra.Command
	ctx   context.Context // the viewer's: endpoints live as long as it
	store *results.Store

	mu      sync.Mutex
	systems map[string]*chat.System
}

// open implements web.ChatOpener.
func (w *webChats) open(_ context.Context, runID, system string) (web.ChatConversation, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := runID + "\x00" + system
	sys := w.systems[key]
	if sys == nil {
		f := *w.f
		f.system = system
		var err error
		if sys, err = f.open(w.ctx, w.c, w.store, runID); err != nil {
			return nil, err
		}
		w.systems[key] = sys
	}
	return webConv{sys.New()}, nil
}

// close stops every system opened.
func (w *webChats) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.systems {
		_ = s.Close() // the viewer is stopping; nothing is left to report to
	}
}

// loopback reports whether addr listens on a loopback address only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// webConv adapts a conversation to the viewer's interface.
type webConv struct{ c *chat.Conversation }

func (v webConv) ID() string       { return v.c.ID() }
func (v webConv) System() string   { return v.c.System() }
func (v webConv) EpisodeID() int64 { return v.c.EpisodeID() }

func (v webConv) Turns() []web.ChatTurn {
	var out []web.ChatTurn
	for _, t := range v.c.Turns() {
		out = append(out, webTurn(t))
	}
	return out
}

func (v webConv) Say(ctx context.Context, text string, emit func(web.ChatTurn)) error {
	return v.c.Say(ctx, text, func(t chat.Turn) { emit(webTurn(t)) })
}

func (v webConv) Undo(ctx context.Context) (bool, error) { return v.c.Undo(ctx) }

func webTurn(t chat.Turn) web.ChatTurn {
	w := web.ChatTurn{Speaker: t.Speaker, Human: t.Human, Text: t.Text}
	if d := t.Directive; d != nil {
		w.Agent, w.Action, w.Tone = d.AgentName, d.Action, d.Tone
	}
	return w
}
