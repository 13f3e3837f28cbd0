package capsule

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"mascot.dev/mascot/internal/buildinfo"
	"mascot.dev/mascot/results"
)

// FormatVersion is the capsule format this package writes and reads.
const FormatVersion = 1

// Member names.
const (
	manifestName = "manifest.json"
	configName   = "config.json"
	repliesName  = "replies.jsonl"
	reportName   = "report.json"
	dataDir      = "data/"
	artifactsDir = "artifacts/"
)

// Manifest describes a capsule.
type Manifest struct {
	Format int     `json:"format"`
	Run    RunInfo `json:"run"`
	// Code ran the run (as its runs row recorded); PackedBy wrote the
	// capsule.
	Code     buildinfo.Info `json:"code"`
	PackedBy buildinfo.Info `json:"packed_by"`
	// Seed is the experiment seed; StageSeeds what each stage derives
	// from it.
	Seed       int              `json:"seed"`
	StageSeeds map[string]int64 `json:"stage_seeds"`
	Data       []DataFile       `json:"data"`
	// Stages are the digests of the run's stages, in the order they run.
	Stages    []results.StageDigest `json:"stages"`
	Artifacts []Artifact            `json:"artifacts"`
	Replies   int                   `json:"replies"`
	// ReportSHA256 hashes report.json.
	ReportSHA256 string `json:"report_sha256"`
}

// RunInfo identifies the packed run.
type RunInfo struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	ConfigName string    `json:"config_name"`
	Status     string    `json:"status"`
	StartedAt  time.Time `json:"started_at"`
}

// DataFile is one file the config reads.
type DataFile struct {
	// Use says what reads it: "dataset NAME" or "stage KEY text".
	Use string `json:"use"`
	// Path is the path as the config names it (an embed: path, a file or
	// a directory); File, for a file inside a dataset directory, its path
	// below it.
	Path     string `json:"path"`
	File     string `json:"file,omitempty"`
	SHA256   string `json:"sha256"`
	Bytes    int64  `json:"bytes"`
	Embedded bool   `json:"embedded,omitempty"`
	// Member is where the capsule holds it ("" = hashed only).
	Member string `json:"member,omitempty"`
	// Note says why a file could not be hashed or packed.
	Note string `json:"note,omitempty"`
}

// Artifact is one trained artefact of the run.
type Artifact struct {
	Stage  string `json:"stage"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// Member is the directory under which the capsule holds its files
	// ("" = hashed only).
	Member string `json:"member,omitempty"`
}

// reply is one line of replies.jsonl.
type reply struct {
	Key      string          `json:"key"`
	Response json.RawMessage `json:"response"`
}

// readJSONMember decodes member name of zr into v.
func readJSONMember(zr *zip.Reader, name string, v any) error {
	b, err := readMember(zr, name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decoding %s: %w", name, err)
	}
	return nil
}

// readMember returns the bytes of member name.
func readMember(zr *zip.Reader, name string) ([]byte, error) {
	f, err := zr.Open(name)
	if err != nil {
		return nil, fmt.Errorf("the capsule has no %s: %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return b, nil
}
