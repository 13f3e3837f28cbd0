package capsule

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"mascot.dev/mascot/internal/buildinfo"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
)

// ReplayOptions configure a replay.
type ReplayOptions struct {
	// Store is the database the run is recreated in; it must not hold the
	// run yet.
	Store *results.Store
	// RunsDir holds the replayed run's directory (default "runs").
	RunsDir string
	// Services start plugins; the LLM client is made offline and the
	// built-in engine is replaced by one that serves nothing.
	Services runner.Services
	Progress io.Writer
	Log      *slog.Logger
}

// Result is what a replay found.
type Result struct {
	RunID string `json:"run_id"`
	// Identical says the replayed run's report JSON is byte-identical to
	// the capsule's and every stage matches its digest.
	Identical       bool `json:"identical"`
	ReportIdentical bool `json:"report_identical"`
	// Differences lists, in the order stages run, each stage that would
	// differ and why; the first is where the replay parted from the run.
	Differences []Difference `json:"differences,omitempty"`
	// Data lists data files that are not what the run read.
	Data []string `json:"data,omitempty"`
	// Missing lists the requests the capsule did not hold (sent nowhere).
	Missing []Missing `json:"missing,omitempty"`
	// Code is the code that ran the run; Replayer the code that replayed it.
	Code     buildinfo.Info  `json:"code"`
	Replayer buildinfo.Info  `json:"replayer"`
	Replies  int             `json:"replies"`
	Summary  *runner.Summary `json:"summary,omitempty"`
}

// Difference is one stage that does not match the capsule.
type Difference struct {
	Stage string `json:"stage"`
	Why   string `json:"why"`
	// Substituted says the capsule's artefact was put in place of the
	// retrained one, so later stages were checked against the run's.
	Substituted bool `json:"substituted,omitempty"`
}

// Missing is a request the capsule holds no reply for.
type Missing struct {
	Stage string `json:"stage"`
	Role  string `json:"role"`
	Key   string `json:"key"`
}

// Replay re-executes the run packed in file, offline.
func Replay(ctx context.Context, file string, opts ReplayOptions) (*Result, error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, fmt.Errorf("opening capsule %s: %w", file, err)
	}
	defer zr.Close()
	var m Manifest
	if err := readJSONMember(&zr.Reader, manifestName, &m); err != nil {
		return nil, err
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("capsule %s has format %d; this mascot reads format %d", file, m.Format, FormatVersion)
	}
	if opts.RunsDir == "" {
		opts.RunsDir = "runs"
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	res := &Result{RunID: m.Run.ID, Code: m.Code, Replayer: buildinfo.Read()}
	if _, err := opts.Store.GetRun(ctx, m.Run.ID); err == nil {
		return nil, fmt.Errorf("the database %s holds run %s already: replay into an empty directory, or pass another --db",
			opts.Store.Path(), m.Run.ID)
	} else if !errors.Is(err, results.ErrNotFound) {
		return nil, err
	}
	cfg, err := readMember(&zr.Reader, configName)
	if err != nil {
		return nil, err
	}
	scratch := filepath.Join(opts.RunsDir, m.Run.ID+".replay")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", scratch, err)
	}
	loaded, err := loadConfig(cfg, scratch)
	if err != nil {
		return nil, err
	}
	files, dataDiffs, err := unpackData(&zr.Reader, &m, filepath.Join(scratch, "data"))
	if err != nil {
		return nil, err
	}
	res.Data = dataDiffs
	if res.Replies, err = loadReplies(ctx, &zr.Reader, opts.Store); err != nil {
		return nil, err
	}

	chk := &checker{zr: &zr.Reader, store: opts.Store, runID: m.Run.ID, want: map[string]results.StageDigest{},
		arts: m.Artifacts, got: map[string]results.StageDigest{}}
	for _, d := range m.Stages {
		chk.want[d.Key] = d
	}
	var missMu sync.Mutex
	var missed []Missing
	svc := opts.Services
	svc.Offline, svc.Engine, svc.Trace = true, offlineEngine{}, false
	svc.Missed = func(role, key string) {
		missMu.Lock()
		missed = append(missed, Missing{Role: role, Key: key})
		missMu.Unlock()
	}
	sum, runErr := runner.Execute(ctx, runner.Options{Loaded: loaded, Store: opts.Store, RunsDir: opts.RunsDir,
		RunID: m.Run.ID, ConfigName: m.Run.ConfigName, Files: files, Services: svc, Progress: opts.Progress,
		Log: opts.Log, Out: io.Discard, Command: "mascot replay " + filepath.Base(file),
		BeforePublish: chk.stageDone})
	res.Summary = sum
	if runErr != nil && len(missed) == 0 {
		return res, fmt.Errorf("replaying run %s: %w", m.Run.ID, runErr)
	}
	stageOf, err := unitStages(ctx, opts.Store, m.Run.ID)
	if err != nil {
		return res, err
	}
	for _, ms := range missed {
		ms.Stage = stageOf[unitOf(ms.Key)]
		if ms.Stage == "" {
			ms.Stage = unitStageFromLedger(ctx, opts.Store, unitOf(ms.Key))
		}
		res.Missing = append(res.Missing, ms)
	}
	sort.Slice(res.Missing, func(i, j int) bool { return res.Missing[i].Key < res.Missing[j].Key })
	res.Differences = chk.differences(m.Stages, res.Missing)
	rep, err := reportJSON(ctx, opts.Store, m.Run.ID)
	if err != nil {
		return res, err
	}
	want, err := readMember(&zr.Reader, reportName)
	if err != nil {
		return res, err
	}
	res.ReportIdentical = bytes.Equal(rep, want)
	if err := os.WriteFile(filepath.Join(scratch, "report.json"), rep, 0o644); err != nil {
		return res, err
	}
	res.Identical = res.ReportIdentical && len(res.Differences) == 0 && len(res.Missing) == 0 && len(res.Data) == 0
	return res, nil
}

// loadReplies puts every reply of the capsule into the store's response
// cache, as counted (a replay's requests are cache hits).
func loadReplies(ctx context.Context, zr *zip.Reader, store *results.Store) (int, error) {
	f, err := zr.Open(repliesName)
	if err != nil {
		return 0, fmt.Errorf("the capsule has no %s: %w", repliesName, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	var batch []results.Reply
	n := 0
	flush := func() error {
		err := store.LLMCache().PutReplies(ctx, batch, nil)
		batch = batch[:0]
		return err
	}
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return 0, fmt.Errorf("reading %s line %d: %w", repliesName, n+1, err)
		}
		batch = append(batch, results.Reply{Key: r.Key, JSON: r.Response, Counted: true})
		n++
		if len(batch) == 1000 {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", repliesName, err)
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return n, nil
}

// unitOf is the unit part of a cache key ("<fingerprint>|...").
func unitOf(key string) string {
	u, _, _ := strings.Cut(key, "|")
	return u
}

// unitStageFromLedger is the stage of a unit the run did not finish.
func unitStageFromLedger(ctx context.Context, store *results.Store, fp string) string {
	u, err := store.GetUnit(ctx, fp)
	if err != nil {
		return ""
	}
	return u.StageKey
}
