package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"mascot.dev/mascot/results"
)

// maxArms bounds the arms one cross-run rating session compares.
const maxArms = 8

// rateRunsData is the cross-run rater page.
type rateRunsData struct {
	Arms     []results.ArmEpisodes // the picker
	Chosen   []string              // arm labels being compared
	Rater    string
	Context  string
	Shown    int64
	Slots    []rateSlot
	Criteria []string // "" (overall) first, then the judges' criteria of the shown episodes
	Recorded string
	Count    int
}

// rateRunsPage is GET /rate/runs?arm=RUN:SYSTEM&arm=...&rater=ID: a random
// context shared by two or more of the arms, one conversation of each in
// random order, without run or system names, rated overall and per
// criterion. With fewer than two arms it shows the picker.
func (s *server) rateRunsPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	q := r.URL.Query()
	d := rateRunsData{Rater: q.Get("rater"), Recorded: q.Get("done"), Shown: time.Now().UnixMilli(), Context: q.Get("context")}
	arms, err := s.parseArms(ctx, q["arm"])
	if err != nil {
		return err
	}
	if len(arms) < 2 {
		if d.Arms, err = s.st.RateableArms(ctx, 50); err != nil {
			return err
		}
		return s.render(w, "rate_runs", page{Title: "Human evaluation across runs", Data: d})
	}
	for _, a := range arms {
		d.Chosen = append(d.Chosen, a.Label())
	}
	prefs, err := s.st.CrossRunPreferences(ctx, runsOf(arms))
	if err != nil {
		return err
	}
	d.Count = len(prefs)
	if d.Context == "" {
		shared, err := s.st.SharedContexts(ctx, arms)
		if err != nil {
			return err
		}
		if len(shared) == 0 {
			return notFound("no context has conversations of two or more of %v", d.Chosen)
		}
		d.Context = shared[rand.IntN(len(shared))]
	}
	shown, err := s.armEpisodes(ctx, arms, d.Context)
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(shown))
	for id := range shown {
		ids = append(ids, id)
	}
	if len(ids) < 2 {
		return notFound("context %q has conversations of fewer than two of %v", d.Context, d.Chosen)
	}
	slices.Sort(ids)
	rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	ids = ids[:min(len(ids), maxShown)]
	for i, id := range ids {
		e, err := s.st.GetEpisode(ctx, id)
		if err != nil {
			return err
		}
		d.Slots = append(d.Slots, rateSlot{Label: string(rune('A' + i)), Index: i, Episode: e})
	}
	if d.Criteria, err = s.criteriaOf(ctx, ids); err != nil {
		return err
	}
	return s.render(w, "rate_runs", page{Title: "Human evaluation: which conversation is better?", Data: d})
}

// parseArms reads and checks "RUN:SYSTEM" values (each run must exist).
func (s *server) parseArms(ctx context.Context, vals []string) ([]results.Arm, error) {
	if len(vals) > maxArms {
		return nil, badRequest("%d arms; at most %d can be compared", len(vals), maxArms)
	}
	var arms []results.Arm
	seen := map[string]bool{}
	for _, v := range vals {
		if len(v) > maxField {
			return nil, badRequest("arm %q is over %d bytes", shorten(v, 40), maxField)
		}
		a := results.ParseArm(v)
		if a.RunID == "" || a.System == "" {
			return nil, badRequest("arm %q: want RUN:SYSTEM", v)
		}
		if seen[a.Label()] {
			continue
		}
		seen[a.Label()] = true
		if _, err := s.st.GetRun(ctx, a.RunID); err != nil {
			return nil, err
		}
		arms = append(arms, a)
	}
	return arms, nil
}

func runsOf(arms []results.Arm) []string {
	var out []string
	for _, a := range arms {
		if !slices.Contains(out, a.RunID) {
			out = append(out, a.RunID)
		}
	}
	return out
}

// armEpisodes maps the episode each arm shows for the context to the arm.
func (s *server) armEpisodes(ctx context.Context, arms []results.Arm, convID string) (map[int64]results.Arm, error) {
	out := map[int64]results.Arm{}
	for _, a := range arms {
		id, ok, err := s.st.ArmEpisode(ctx, a, convID)
		if err != nil {
			return nil, err
		}
		if ok {
			out[id] = a
		}
	}
	return out, nil
}

// criteriaOf lists "" (overall) and the criteria judges scored on any of
// the episodes, sorted.
func (s *server) criteriaOf(ctx context.Context, ids []int64) ([]string, error) {
	set := map[string]bool{}
	for _, id := range ids {
		sc, err := s.st.EpisodeCriterionScores(ctx, id)
		if err != nil {
			return nil, err
		}
		for c := range sc {
			set[c] = true
		}
	}
	out := []string{""}
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out[1:])
	return out, nil
}

// rateRunsSubmit is POST /rate/runs: maps each choice back to its arm and
// records one preference per criterion rated (overall is required).
func (s *server) rateRunsSubmit(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	_, rater, convID, err := rateFields(r)
	if err != nil {
		return err
	}
	arms, err := s.parseArms(ctx, r.PostForm["arm"])
	if err != nil {
		return err
	}
	valid, err := s.armEpisodes(ctx, arms, convID)
	if err != nil {
		return err
	}
	base := results.HumanPreference{RaterID: rater, ContextID: convID, Time: time.Now()}
	seen := map[string]bool{}
	for _, v := range r.PostForm["ep"] {
		id, err := strconv.ParseInt(v, 10, 64)
		a, ok := valid[id]
		if err != nil || !ok {
			return badRequest("episode %q is not the conversation of context %q of any arm compared", shorten(v, 40), convID)
		}
		if seen[a.Label()] {
			return badRequest("arm shown twice")
		}
		seen[a.Label()] = true
		base.Systems, base.Runs, base.EpisodeIDs = append(base.Systems, a.Label()), append(base.Runs, a.RunID), append(base.EpisodeIDs, id)
	}
	if len(base.Systems) < 2 {
		return badRequest("a preference needs two or more conversations")
	}
	if shown, err := strconv.ParseInt(r.PostForm.Get("shown"), 10, 64); err == nil && shown > 0 {
		base.Note = fmt.Sprintf("seconds=%.1f", time.Since(time.UnixMilli(shown)).Seconds())
	}
	crits, err := s.criteriaOf(ctx, base.EpisodeIDs)
	if err != nil {
		return err
	}
	var prefs []results.HumanPreference
	for _, c := range crits {
		v := r.PostForm.Get("choice:" + c)
		if v == "" && c != "" {
			continue // a criterion left unrated
		}
		p := base
		p.Criterion = c
		if p.Choice, err = choiceOf(v, p.Systems); err != nil {
			return err
		}
		prefs = append(prefs, p)
	}
	ids, err := s.st.AddHumanPreferences(ctx, prefs)
	if err != nil {
		return fmt.Errorf("recording preferences: %w", err)
	}
	next := url.Values{"arm": r.PostForm["arm"], "rater": {rater}, "done": {strconv.FormatInt(ids[0], 10)}}
	http.Redirect(w, r, "/rate/runs?"+next.Encode(), http.StatusSeeOther)
	return nil
}

// choiceOf maps a slot index (or "tie") to the system shown there.
func choiceOf(v string, systems []string) (string, error) {
	if v == results.Tie {
		return results.Tie, nil
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(systems) {
		return "", badRequest("choice %q is not one of the conversations shown", shorten(v, 40))
	}
	return systems[i], nil
}
