package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"mascot.dev/mascot/results"
)

// maxShown is how many systems the rater sees at once.
const maxShown = 3

// rateData is the blind rater page.
type rateData struct {
	Runs    []results.RunListEntry
	RunID   string
	Rater   string
	Context string
	// Situation is the user's situation in this context (the episodes'
	// metadata "situation"), what the simulated user came with.
	Situation string
	Shown     int64 // unix ms when the page was rendered
	Slots     []rateSlot
	Recorded  string // id of the preference just recorded
	Count     int    // preferences recorded for the run
}

// rateSlot is one anonymous conversation ("A", "B", "C").
type rateSlot struct {
	Label   string
	Index   int
	Episode *results.Episode
}

// ratePage is GET /rate?run=RUN&rater=ID[&context=C]: a random context of
// the run with two or three systems' conversations in random order, without
// system names. Without run it shows the run picker.
func (s *server) ratePage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	q := r.URL.Query()
	d := rateData{RunID: q.Get("run"), Rater: q.Get("rater"), Recorded: q.Get("done"), Shown: time.Now().UnixMilli()}
	if d.RunID == "" {
		runs, err := s.st.ListRuns(ctx, results.RunFilter{Limit: 200})
		if err != nil {
			return err
		}
		d.Runs = runs
		return s.render(w, "rate", page{Title: "Human evaluation", Data: d})
	}
	run, err := s.st.GetRun(ctx, d.RunID)
	if err != nil {
		return err
	}
	prefs, err := s.st.HumanPreferences(ctx, run.ID)
	if err != nil {
		return err
	}
	d.Count = len(prefs)
	d.Context = q.Get("context")
	if d.Context == "" {
		if d.Context, err = s.randomContext(ctx, run.ID); err != nil {
			return err
		}
	}
	eps, err := s.contextEpisodes(ctx, run.ID, d.Context)
	if err != nil {
		return err
	}
	if len(eps) < 2 {
		return notFound("context %q of run %s has fewer than two systems", d.Context, run.ID)
	}
	rand.Shuffle(len(eps), func(i, j int) { eps[i], eps[j] = eps[j], eps[i] })
	eps = eps[:min(len(eps), maxShown)]
	for i, id := range eps {
		e, err := s.st.GetEpisode(ctx, id)
		if err != nil {
			return err
		}
		d.Slots = append(d.Slots, rateSlot{Label: string(rune('A' + i)), Index: i, Episode: e})
		if raw, ok := e.Metadata.Extra["situation"]; ok && d.Situation == "" {
			_ = json.Unmarshal(raw, &d.Situation)
		}
	}
	return s.render(w, "rate", page{Title: "Human evaluation: which conversation is better?", Data: d})
}

// randomContext picks a conv_id of the run that two or more systems share.
func (s *server) randomContext(ctx context.Context, runID string) (string, error) {
	const multi = `SELECT e.conv_id FROM episodes e
		WHERE EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = ? AND ru.fingerprint = e.unit_fp)
		GROUP BY e.conv_id HAVING COUNT(DISTINCT e.system) >= 2`
	var n int
	if err := s.st.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+multi+`)`, runID).Scan(&n); err != nil {
		return "", fmt.Errorf("counting contexts of run %s: %w", runID, err)
	}
	if n == 0 {
		return "", notFound("run %s has no context with conversations of two or more systems; "+
			"compare it with another run (say a baseline run) at /rate/runs", runID)
	}
	var c string
	err := s.st.Reader().QueryRowContext(ctx, multi+` ORDER BY e.conv_id LIMIT 1 OFFSET ?`, runID, rand.IntN(n)).Scan(&c)
	if err != nil {
		return "", fmt.Errorf("picking a context of run %s: %w", runID, err)
	}
	return c, nil
}

// contextEpisodes returns one episode per system (the lowest sample) of a
// context of the run.
func (s *server) contextEpisodes(ctx context.Context, runID, convID string) ([]int64, error) {
	rows, err := s.st.Reader().QueryContext(ctx, `SELECT e.id, e.system FROM episodes e
		WHERE e.conv_id = ? AND EXISTS (SELECT 1 FROM run_units ru WHERE ru.run_id = ? AND ru.fingerprint = e.unit_fp)
		ORDER BY e.system, e.sample_idx, e.id`, convID, runID)
	if err != nil {
		return nil, fmt.Errorf("reading episodes of context %s: %w", convID, err)
	}
	defer rows.Close()
	var out []int64
	last := ""
	for rows.Next() {
		var id int64
		var sys string
		if err := rows.Scan(&id, &sys); err != nil {
			return nil, fmt.Errorf("reading episodes of context %s: %w", convID, err)
		}
		if len(out) == 0 || sys != last {
			out, last = append(out, id), sys
		}
	}
	return out, rows.Err()
}

// rateFields reads the run, rater and context fields of a rating, bounded
// in size; the rater id is required.
func rateFields(r *http.Request) (run, rater, context string, err error) {
	if run, err = field(r, "run", maxField); err != nil {
		return
	}
	if rater, err = field(r, "rater", maxRaterID); err != nil {
		return
	}
	if context, err = field(r, "context", maxField); err != nil {
		return
	}
	if rater == "" {
		err = badRequest("a rater id is required")
	}
	return
}

// rateSubmit is POST /rate: maps the chosen slot back to its system and
// records the preference (rater id, time, time spent) in the store.
func (s *server) rateSubmit(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	runID, rater, convID, err := rateFields(r)
	if err != nil {
		return err
	}
	if _, err := s.st.GetRun(ctx, runID); err != nil {
		return err
	}
	valid, err := s.contextEpisodes(ctx, runID, convID)
	if err != nil {
		return err
	}
	ok := map[int64]bool{}
	for _, id := range valid {
		ok[id] = true
	}
	p := results.HumanPreference{RunID: runID, RaterID: rater, ContextID: convID, Time: time.Now()}
	seen := map[string]bool{}
	for _, v := range r.PostForm["ep"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || !ok[id] {
			return badRequest("episode %q is not a conversation of context %q in run %s", v, convID, runID)
		}
		e, err := s.st.GetEpisode(ctx, id)
		if err != nil {
			return err
		}
		if seen[e.System] {
			return badRequest("system shown twice")
		}
		seen[e.System] = true
		p.Systems, p.EpisodeIDs = append(p.Systems, e.System), append(p.EpisodeIDs, id)
	}
	if len(p.Systems) < 2 {
		return badRequest("a preference needs two or more conversations")
	}
	switch c := r.PostForm.Get("choice"); c {
	case results.Tie:
		p.Choice = results.Tie
	default:
		i, err := strconv.Atoi(c)
		if err != nil || i < 0 || i >= len(p.Systems) {
			return badRequest("choice %q is not one of the conversations shown", c)
		}
		p.Choice = p.Systems[i]
	}
	if shown, err := strconv.ParseInt(r.PostForm.Get("shown"), 10, 64); err == nil && shown > 0 {
		p.Note = fmt.Sprintf("seconds=%.1f", time.Since(time.UnixMilli(shown)).Seconds())
	}
	ids, err := s.st.AddHumanPreferences(ctx, []results.HumanPreference{p})
	if err != nil {
		return fmt.Errorf("recording preference: %w", err)
	}
	next := url.Values{"run": {runID}, "rater": {rater}, "done": {strconv.FormatInt(ids[0], 10)}}
	http.Redirect(w, r, "/rate?"+next.Encode(), http.StatusSeeOther)
	return nil
}
