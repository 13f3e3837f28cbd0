package benchsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"mascot.dev/mascot/internal/hugemem"
	"mascot.dev/mascot/results"
)

// The fresh case runs each side of a round in a process of its own, the
// suite's binary started afresh, as a user's `mascot run` and a user's
// client program each start: a fresh process first touches every page of
// heap it grows into (on the machines this was measured on, about 11 µs
// of CPU per 4 KiB page), which rounds inside one long-lived process,
// whose heap is already there, do not pay. Each side's CPU is taken in its
// own process around its own work (the stage's run, the bare client's
// requests), not around starting the process or loading the spec. The
// stage's process advises huge pages for its heap first, as every mascot
// process does (internal/hugemem); the bare client's, a plain program,
// does not, so the case measures the two processes as users run them.

// freshSide is what a "fresh" helper is to do.
type freshSide struct {
	Side     string `json:"side"` // "stage" or "bare"
	Dir      string `json:"dir"`
	URL      string `json:"url"`
	Contexts int    `json:"contexts"`
	DB       string `json:"db"`     // stage: the new store's path; bare: the store holding the prompts
	RunID    string `json:"run_id"` // bare: the run whose prompts to send
	Want     int    `json:"want"`   // requests the side must send
}

// freshResult is a fresh helper's report.
type freshResult struct {
	Wall float64 `json:"wall_s"`
	CPU  float64 `json:"cpu_s"`
	Err  string  `json:"err,omitempty"`
}

// runFresh runs one side of a fresh round in a helper process.
func runFresh(side freshSide) (cost, error) {
	var r freshResult
	if err := askHelper("fresh", helperEnv+"_FRESH", side, &r); err != nil {
		return cost{}, err
	}
	if r.Err != "" {
		return cost{}, fmt.Errorf("fresh %s: %s", side.Side, r.Err)
	}
	return cost{wall: r.Wall, cpu: r.CPU}, nil
}

// helpFresh is the "fresh" helper: it runs the side the environment names
// and prints its cost as JSON on the helper's line.
func helpFresh() {
	var side freshSide
	r := freshResult{}
	co, err := func() (cost, error) {
		if err := json.Unmarshal([]byte(os.Getenv(helperEnv+"_FRESH")), &side); err != nil {
			return cost{}, err
		}
		switch side.Side {
		case "stage":
			return freshStage(side)
		case "bare":
			prompts, _, err := storedPrompts(side.DB, side.RunID)
			if err != nil {
				return cost{}, err
			}
			if len(prompts) != side.Want {
				return cost{}, fmt.Errorf("%d prompts stored, want %d", len(prompts), side.Want)
			}
			return bareRequests(context.Background(), side.URL, prompts, candConc)
		}
		return cost{}, fmt.Errorf("no side %q", side.Side)
	}()
	r.Wall, r.CPU = co.wall, co.cpu
	if err != nil {
		r.Err = err.Error()
	}
	out, _ := json.Marshal(r)
	fmt.Println("URL", string(out))
}

// freshStage runs the candidates stage once into a new store, in a
// process set up as `mascot run`'s is (cmd/mascot's Main advises huge
// pages for the heap first; the bare side, a user's own program, does
// not).
func freshStage(side freshSide) (cost, error) {
	hugemem.AdviseProcess()
	l, err := candidatesSpec(side.Dir, side.URL, side.Contexts, 0, false)
	if err != nil {
		return cost{}, err
	}
	_ = results.RemoveDB(side.DB)
	store, err := results.Open(side.DB)
	if err != nil {
		return cost{}, err
	}
	defer func() { _ = results.RemoveDB(side.DB) }()
	defer store.Close()
	co, _, err := runStage(context.Background(), l, store, side.Dir, side.Want)
	return co, err
}
