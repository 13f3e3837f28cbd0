package capsule

import (
	"archive/zip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"mascot.dev/mascot/results"
	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

// checker compares each stage a replay finishes with the capsule's digest
// of it, before later stages read it, and puts the capsule's artefacts in
// place of retrained ones that differ.
type checker struct {
	zr    *zip.Reader
	store *results.Store
	runID string
	want  map[string]results.StageDigest
	arts  []Artifact

	mu          sync.Mutex
	got         map[string]results.StageDigest
	substituted map[string]bool
}

// stageDone implements runner.Options.BeforePublish.
func (c *checker) stageDone(ctx context.Context, key string, units []string) error {
	ds, err := c.store.StageDigests(ctx, c.runID)
	if err != nil {
		return err
	}
	var got results.StageDigest
	for _, d := range ds {
		if d.Key == key {
			got = d
		}
	}
	c.mu.Lock()
	c.got[key] = got
	c.mu.Unlock()
	want, ok := c.want[key]
	if !ok || len(got.Artifacts) == 0 {
		return nil
	}
	arts, err := c.store.UnitArtifacts(ctx, units)
	if err != nil {
		return err
	}
	for _, a := range arts {
		if hasArtifact(want, a.SHA256) {
			continue
		}
		src := c.packedFor(key, a)
		if src == nil {
			continue // hashed only: the difference is reported, later stages differ too
		}
		if err := c.substitute(ctx, a, *src); err != nil {
			return fmt.Errorf("putting the run's %s in place of the retrained one: %w", a.Kind, err)
		}
		c.mu.Lock()
		if c.substituted == nil {
			c.substituted = map[string]bool{}
		}
		c.substituted[key] = true
		c.mu.Unlock()
	}
	return nil
}

func hasArtifact(d results.StageDigest, sha string) bool {
	for _, a := range d.Artifacts {
		if a.SHA256 == sha {
			return true
		}
	}
	return false
}

// packedFor is the capsule's packed artefact of stage key matching a (by
// kind and directory name), or nil.
func (c *checker) packedFor(key string, a results.Artifact) *Artifact {
	for i, p := range c.arts {
		if p.Stage == key && p.Kind == a.Kind && p.Name == filepath.Base(a.Path) && p.Member != "" {
			return &c.arts[i]
		}
	}
	return nil
}

// substitute replaces the files of artefact a (the replay's) with the
// capsule's, and records their hash.
func (c *checker) substitute(ctx context.Context, a results.Artifact, src Artifact) error {
	var files []string
	for _, f := range c.zr.File {
		if name, ok := strings.CutPrefix(f.Name, src.Member); ok && name != "" {
			files = append(files, name)
		}
	}
	old, err := artifactFiles(a)
	if err != nil {
		return err
	}
	for _, name := range old {
		if err := os.Remove(filepath.Join(a.Path, filepath.FromSlash(name))); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	for _, name := range files {
		b, err := readMember(c.zr, src.Member+name)
		if err != nil {
			return err
		}
		dst := filepath.Join(a.Path, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
	}
	return c.store.SetArtifactHash(ctx, a.ID, src.SHA256, src.Bytes)
}

// differences lists the stages that do not match their digest, in the
// capsule's stage order, with the requests each was missing.
func (c *checker) differences(order []results.StageDigest, missing []Missing) []Difference {
	c.mu.Lock()
	defer c.mu.Unlock()
	miss := map[string][]string{}
	for _, m := range missing {
		miss[m.Stage] = append(miss[m.Stage], m.Key)
	}
	var out []Difference
	for _, want := range order {
		got, ran := c.got[want.Key]
		var why []string
		if ks := miss[want.Key]; len(ks) > 0 {
			why = append(why, fmt.Sprintf("%d request(s) the capsule holds no reply for (its inputs changed), first %s",
				len(ks), ks[0]))
		}
		switch {
		case !ran && len(why) == 0:
			why = append(why, "it did not finish in the replay")
		case ran && !want.Same(got):
			why = append(why, want.Differences(got))
		}
		if len(why) > 0 {
			out = append(out, Difference{Stage: want.Key, Why: strings.Join(why, "; "), Substituted: c.substituted[want.Key]})
		}
	}
	return out
}

// offlineEngine stands in for the built-in engine in a replay: it serves
// nothing (every request is answered from the capsule) and loads no model.
type offlineEngine struct{}

// Start implements runner.Engine; the URL is never dialed.
func (offlineEngine) Start(_ context.Context, name string, _ schema.Endpoint, _ string) (runner.EngineServer, error) {
	return offlineServer{name: name}, nil
}

// Close implements runner.Engine.
func (offlineEngine) Close() error { return nil }

// offlineServer is an endpoint's handle on the offline engine.
type offlineServer struct{ name string }

// URL implements runner.EngineServer.
func (offlineServer) URL() string { return "http://offline.invalid/v1" }

// Token implements runner.EngineServer: nothing is served offline.
func (offlineServer) Token() string { return "" }

// UseModel implements runner.EngineServer: it only checks the model is there.
func (s offlineServer) UseModel(_ context.Context, dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("endpoint %s: %w", s.name, err)
	}
	return nil
}

// Close implements runner.EngineServer.
func (offlineServer) Close() error { return nil }
