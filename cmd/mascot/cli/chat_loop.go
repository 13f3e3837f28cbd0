package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"mascot.dev/mascot/runner/chat"
)

func isTerminal(f *os.File) bool { return isatty.IsTerminal(f.Fd()) }

const chatHelp = `/who        the agents who can speak
/directive  show or hide the Director's directive (Agent / Action / Tone)
/undo       take back your last message and the replies to it
/history    the conversation so far
/save       store the conversation now and print where
/quit       end (so does end of input)`

// chatLoop reads messages and commands line by line from in.
func chatLoop(ctx context.Context, in io.Reader, out io.Writer, sys *chat.System, prompt bool) error {
	conv := sys.New()
	showDir := false
	fmt.Fprintf(out, "mascot chat: system %s of run %s (stage %s); /help for commands\n", sys.Name(), sys.RunID(), sys.Stage())
	printTurn := func(t chat.Turn) {
		fmt.Fprintf(out, "[%s] %s\n", t.Speaker, t.Text)
		if showDir && t.Directive != nil {
			fmt.Fprintf(out, "    directive: Agent=%s · Action=%s · Tone=%s\n", t.Directive.AgentName, t.Directive.Action, t.Directive.Tone)
		}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for {
		if prompt {
			fmt.Fprint(out, "you> ")
		}
		if !sc.Scan() {
			break
		}
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			continue
		case line == "/quit" || line == "/exit":
			return chatDone(out, conv)
		case line == "/help":
			fmt.Fprintln(out, chatHelp)
		case line == "/who":
			for _, a := range sys.Roster() {
				fmt.Fprintf(out, "%s — %s\n", a.Name, a.Role)
			}
			if len(sys.Roster()) == 0 {
				fmt.Fprintf(out, "system %s answers with one voice (no roster, no Director)\n", sys.Name())
			}
		case line == "/directive":
			showDir = !showDir
			fmt.Fprintf(out, "directives %s\n", map[bool]string{true: "shown", false: "hidden"}[showDir])
			if showDir {
				if ts := conv.Turns(); len(ts) > 0 && ts[len(ts)-1].Directive != nil {
					printTurn(ts[len(ts)-1])
				}
			}
		case line == "/undo":
			ok, err := conv.Undo(ctx)
			if err != nil {
				return err
			}
			if !ok {
				fmt.Fprintln(out, "nothing to undo")
			} else {
				fmt.Fprintf(out, "undone; %d turns left\n", len(conv.Turns()))
			}
		case line == "/history":
			for _, t := range conv.Turns() {
				printTurn(t)
			}
		case line == "/save":
			if len(conv.Turns()) == 0 {
				fmt.Fprintln(out, "nothing to save yet")
				continue
			}
			if err := conv.Save(ctx); err != nil {
				return err
			}
			fmt.Fprintf(out, "saved as episode %d (conversation %s; mascot ui: /episodes/%d)\n", conv.EpisodeID(), conv.ID(), conv.EpisodeID())
		case strings.HasPrefix(line, "/"):
			fmt.Fprintf(out, "unknown command %s (/help lists them)\n", strings.Fields(line)[0])
		default:
			err := conv.Say(ctx, line, printTurn)
			if errors.Is(err, chat.ErrNoReply) {
				fmt.Fprintf(out, "(%v; your message was taken back, send it again)\n", err)
				continue
			}
			if err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	return chatDone(out, conv)
}

func chatDone(out io.Writer, conv *chat.Conversation) error {
	if conv.EpisodeID() != 0 {
		fmt.Fprintf(out, "conversation %s stored as episode %d\n", conv.ID(), conv.EpisodeID())
	}
	return nil
}
