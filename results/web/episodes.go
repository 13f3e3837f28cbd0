package web

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"mascot.dev/mascot/results"
)

// episodesData is a page of a run's conversations.
type episodesData struct {
	Run   results.Run
	Q     results.EpisodeQuery
	Page  results.EpisodePage
	Next  string // URL of the next page; "" at the end
	First string // URL of the first page with the same filters
}

// episodesPage is GET /runs/{id}/episodes: keyset-paged, filtered by
// system, dataset, split, conv_id prefix and text in any turn.
func (s *server) episodesPage(w http.ResponseWriter, r *http.Request) error {
	run, err := s.st.GetRun(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	v := r.URL.Query()
	q := results.EpisodeQuery{RunID: run.ID, System: v.Get("system"), Dataset: v.Get("dataset"),
		Split: v.Get("split"), ConvID: v.Get("conv"), Text: v.Get("q"), After: v.Get("after"), Limit: s.opts.PageSize}
	p, err := s.st.EpisodesPage(r.Context(), q)
	if err != nil {
		if q.After != "" {
			return badRequest("bad page cursor")
		}
		return err
	}
	d := episodesData{Run: run, Q: q, Page: p}
	keep := url.Values{}
	for _, k := range []string{"system", "dataset", "split", "conv", "q"} {
		if v.Get(k) != "" {
			keep.Set(k, v.Get(k))
		}
	}
	d.First = "/runs/" + url.PathEscape(run.ID) + "/episodes?" + keep.Encode()
	if p.Next != "" {
		keep.Set("after", p.Next)
		d.Next = "/runs/" + url.PathEscape(run.ID) + "/episodes?" + keep.Encode()
	}
	return s.render(w, "episodes", page{Title: "Conversations of " + run.Name, Data: d})
}

// episodeData is one conversation with its judgments laid out per turn.
type episodeData struct {
	RunID     string
	V         *results.EpisodeView
	Turns     []turnView
	Episode   []results.Judgment // judgments of the whole episode
	Personas  []kvInt            // agents spoken, by count
	Trajector string
}

type turnView struct {
	results.Turn
	User      bool
	Judgments []results.Judgment
}

type kvInt struct {
	K string
	V int
}

// episodePage is GET /episodes/{eid}[?run=ID]: the turns with speaker
// personas, directives (Agent/Action/Tone), user turns, and per-turn and
// per-episode judge scores with rationales. With run set, only that run's
// judgments and metrics show.
func (s *server) episodePage(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("eid"), 10, 64)
	if err != nil {
		return notFound("no episode %q", r.PathValue("eid"))
	}
	runID := r.URL.Query().Get("run")
	v, err := s.st.GetEpisodeView(r.Context(), id, runID)
	if err != nil {
		return err
	}
	d := episodeData{RunID: runID, V: v, Trajector: string(v.Episode.EmotionTrajectory)}
	if d.RunID == "" {
		d.RunID = v.Episode.RunID
	}
	byTurn := map[int64][]results.Judgment{}
	for _, j := range v.Judgments {
		if j.TurnID != 0 {
			byTurn[j.TurnID] = append(byTurn[j.TurnID], j)
		} else {
			d.Episode = append(d.Episode, j)
		}
	}
	d.Episode = scoredOnce(d.Episode)
	for _, t := range v.Episode.Turns {
		d.Turns = append(d.Turns, turnView{Turn: t, User: t.TurnType == "user", Judgments: scoredOnce(byTurn[t.ID])})
	}
	for k, n := range v.Episode.AgentsSpoken {
		d.Personas = append(d.Personas, kvInt{k, n})
	}
	sort.Slice(d.Personas, func(i, j int) bool { return d.Personas[i].K < d.Personas[j].K })
	title := "Conversation " + v.Episode.ConvID
	return s.render(w, "episode", page{Title: title, Data: d})
}
