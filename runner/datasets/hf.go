package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// hfSnapshot finds the snapshot directory of dataset id ("org/name" or
// "org/name@rev") under a hub cache root: refs/<rev> (default main) names
// the commit; without refs the newest snapshot is used. On a miss it
// returns "" and a description of where it looked.
func hfSnapshot(root, id string) (string, string) {
	name, rev, _ := strings.Cut(id, "@")
	repo := filepath.Join(root, "datasets--"+strings.ReplaceAll(name, "/", "--"))
	snaps := filepath.Join(repo, "snapshots")
	ents, err := os.ReadDir(snaps)
	if err != nil {
		return "", fmt.Sprintf("%s (%s)", snaps, statReason(err))
	}
	explicit := rev != ""
	if !explicit {
		rev = "main"
	}
	if b, err := os.ReadFile(filepath.Join(repo, "refs", rev)); err == nil {
		rev = strings.TrimSpace(string(b))
	}
	if st, err := os.Stat(filepath.Join(snaps, rev)); err == nil && st.IsDir() {
		return filepath.Join(snaps, rev), ""
	}
	if explicit {
		return "", fmt.Sprintf("%s (no snapshot for revision %s)", snaps, rev)
	}
	var best string
	var bestMod int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		if m := info.ModTime().UnixNano(); best == "" || m > bestMod || (m == bestMod && e.Name() > best) {
			best, bestMod = e.Name(), m
		}
	}
	if best == "" {
		return "", fmt.Sprintf("%s (no snapshot)", snaps)
	}
	return filepath.Join(snaps, best), ""
}
