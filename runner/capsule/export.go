package capsule

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"mascot.dev/mascot/internal/buildinfo"
	"mascot.dev/mascot/results"
	"mascot.dev/mascot/results/report"
	"mascot.dev/mascot/runner"
)

// Artifact packing modes (ExportOptions.Artifacts).
const (
	ArtifactsAuto = "auto" // packed when they sum to at most AutoArtifactBytes
	ArtifactsAll  = "all"
	ArtifactsNone = "none"
)

// AutoArtifactBytes is the most artefact bytes "auto" packs.
const AutoArtifactBytes = 256 << 20

// ExportOptions control what a capsule carries.
type ExportOptions struct {
	// Artifacts is auto (default), all or none.
	Artifacts string
	// NoData hashes the data files without packing them.
	NoData bool
}

// Export packs run runID of store into a capsule at file.
func Export(ctx context.Context, store *results.Store, runID, file string, opts ExportOptions) (*Manifest, error) {
	run, err := store.GetRun(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("packing run %s: %w", runID, err)
	}
	if run.Status != results.RunDone {
		return nil, fmt.Errorf("packing run %s: it is %s; only a finished run replays to its tables", runID, run.Status)
	}
	scratch, err := os.MkdirTemp("", "mascot-capsule-")
	if err != nil {
		return nil, fmt.Errorf("packing run %s: %w", runID, err)
	}
	defer os.RemoveAll(scratch)
	loaded, err := loadConfig(run.ConfigJSON, scratch)
	if err != nil {
		return nil, fmt.Errorf("packing run %s: %w", runID, err)
	}
	exp := loaded.Experiment
	m := &Manifest{Format: FormatVersion, PackedBy: buildinfo.Read(), Seed: exp.Seed, StageSeeds: map[string]int64{},
		Run: RunInfo{ID: run.ID, Name: run.Name, ConfigName: run.ConfigName, Status: run.Status, StartedAt: run.StartedAt}}
	if len(run.Code) > 0 {
		_ = json.Unmarshal(run.Code, &m.Code)
	}
	order, err := runner.StageOrder(exp)
	if err != nil {
		return nil, fmt.Errorf("packing run %s: %w", runID, err)
	}
	for _, k := range order {
		m.StageSeeds[k] = runner.StageSeed(exp.Seed, k)
	}
	if m.Stages, err = stageDigests(ctx, store, runID, order); err != nil {
		return nil, err
	}

	tmp := file + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", file, err)
	}
	defer os.Remove(tmp)
	zw := zip.NewWriter(f)
	w := &packer{zw: zw}
	w.put(configName, run.ConfigJSON)
	if m.Data, err = packData(w, exp, opts.NoData); err != nil {
		f.Close()
		return nil, err
	}
	if m.Artifacts, err = packArtifacts(ctx, w, store, runID, opts.Artifacts); err != nil {
		f.Close()
		return nil, err
	}
	if m.Replies, err = packReplies(ctx, w, store, runID); err != nil {
		f.Close()
		return nil, err
	}
	rep, err := reportJSON(ctx, store, runID)
	if err != nil {
		f.Close()
		return nil, err
	}
	sum := sha256.Sum256(rep)
	m.ReportSHA256 = hex.EncodeToString(sum[:])
	w.put(reportName, rep)
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("encoding the manifest: %w", err)
	}
	w.put(manifestName, append(mb, '\n'))
	if w.err == nil {
		w.err = zw.Close()
	}
	if err := f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	if w.err != nil {
		return nil, fmt.Errorf("writing %s: %w", file, w.err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return nil, fmt.Errorf("writing %s: %w", file, err)
	}
	return m, nil
}

// reportJSON is `mascot report RUN --format json` of one run, with the
// default options (what replay rebuilds and compares).
func reportJSON(ctx context.Context, store *results.Store, runID string) ([]byte, error) {
	rep, err := report.Build(ctx, store, []string{runID}, report.Options{})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, report.FormatJSON); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stageDigests returns the digests of a run's stages in run order.
func stageDigests(ctx context.Context, store *results.Store, runID string, order []string) ([]results.StageDigest, error) {
	ds, err := store.StageDigests(ctx, runID)
	if err != nil {
		return nil, err
	}
	rank := map[string]int{}
	for i, k := range order {
		rank[k] = i + 1
	}
	sort.SliceStable(ds, func(i, j int) bool {
		ri, rj := rank[ds[i].Key], rank[ds[j].Key]
		if ri == 0 {
			ri = len(order) + 1 // stages outside the config (chat) last
		}
		if rj == 0 {
			rj = len(order) + 1
		}
		return ri < rj
	})
	return ds, nil
}

// packReplies writes replies.jsonl: every reply the run used.
func packReplies(ctx context.Context, w *packer, store *results.Store, runID string) (int, error) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	enc := json.NewEncoder(bw)
	n := 0
	err := store.RunReplies(ctx, runID, func(key string, resp json.RawMessage) error {
		n++
		return enc.Encode(reply{Key: key, Response: resp})
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return 0, fmt.Errorf("packing the LLM replies: %w", err)
	}
	w.put(repliesName, buf.Bytes())
	return n, nil
}

// packArtifacts records the run's artefacts and packs their files per
// mode.
func packArtifacts(ctx context.Context, w *packer, store *results.Store, runID, mode string) ([]Artifact, error) {
	arts, err := store.RunArtifacts(ctx, runID)
	if err != nil {
		return nil, err
	}
	stageOf, err := unitStages(ctx, store, runID)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, a := range arts {
		total += a.Bytes
	}
	switch mode {
	case "", ArtifactsAuto:
		mode = ArtifactsAll
		if total > AutoArtifactBytes {
			mode = ArtifactsNone
		}
	case ArtifactsAll, ArtifactsNone:
	default:
		return nil, fmt.Errorf("unknown artifacts mode %q (want auto, all or none)", mode)
	}
	out := make([]Artifact, 0, len(arts))
	for i, a := range arts {
		ma := Artifact{Stage: stageOf[a.UnitFP], Kind: a.Kind, Name: filepath.Base(a.Path), SHA256: a.SHA256, Bytes: a.Bytes}
		if mode == ArtifactsAll {
			files, err := artifactFiles(a)
			if err != nil {
				return nil, err
			}
			ma.Member = fmt.Sprintf("%s%d-%s/", artifactsDir, i, ma.Name)
			for _, name := range files {
				b, err := os.ReadFile(filepath.Join(a.Path, filepath.FromSlash(name)))
				if err != nil {
					return nil, fmt.Errorf("packing artifact %s: %w", a.Path, err)
				}
				w.put(ma.Member+name, b)
			}
		}
		out = append(out, ma)
	}
	return out, nil
}

// artifactFiles lists the files an artefact's hash covers (its meta
// "files": name -> sha256), sorted.
func artifactFiles(a results.Artifact) ([]string, error) {
	var meta struct {
		Files map[string]string `json:"files"`
	}
	if len(a.Meta) > 0 {
		if err := json.Unmarshal(a.Meta, &meta); err != nil {
			return nil, fmt.Errorf("reading the files of artifact %s: %w", a.Path, err)
		}
	}
	names := make([]string, 0, len(meta.Files))
	for n := range meta.Files {
		names = append(names, path.Clean(filepath.ToSlash(n)))
	}
	sort.Strings(names)
	return names, nil
}

// unitStages maps the run's unit fingerprints to their stage keys.
func unitStages(ctx context.Context, store *results.Store, runID string) (map[string]string, error) {
	ds, err := store.Stages(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, st := range ds {
		fps, err := store.StageUnits(ctx, runID, []string{st.Key})
		if err != nil {
			continue // a stage with no units
		}
		for _, fp := range fps {
			out[fp] = st.Key
		}
	}
	return out, nil
}

// packer writes zip members, keeping the first error.
type packer struct {
	zw  *zip.Writer
	err error
}

func (p *packer) put(name string, b []byte) {
	if p.err != nil {
		return
	}
	w, err := p.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if err == nil {
		_, err = w.Write(b)
	}
	p.err = err
}
