package train

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
)

// An artefact's hash (results.Artifact.SHA256, which downstream units
// fingerprint) says what was trained, not where: adapter_config.json names
// a base produced by an earlier stage by its absolute directory
// (base_model_name_or_path, which AutoPeftModel resolves), and that
// directory is the run's own, so two runs that train the very same
// weights from the same base would otherwise hash differently, and every
// stage after them would look changed. The file keeps the path; the hash
// reads it as the base's identity ("stage:<sha256>").

// identityHashes returns res's file hashes with adapter_config.json's
// local base path replaced by base (the base's identity); files is the
// hashes of the files as written.
func identityHashes(dir string, files map[string]string, base string) map[string]string {
	if _, ok := files["adapter_config.json"]; !ok || base == "" {
		return files
	}
	b, err := os.ReadFile(filepath.Join(dir, "adapter_config.json"))
	if err != nil {
		return files
	}
	var cfg map[string]any
	if json.Unmarshal(b, &cfg) != nil {
		return files
	}
	p, _ := cfg["base_model_name_or_path"].(string)
	if p == "" || !filepath.IsAbs(p) {
		return files // a hub id, or nothing: no location in it
	}
	cfg["base_model_name_or_path"] = base
	nb, err := json.Marshal(cfg) // map keys sorted: a canonical form
	if err != nil {
		return files
	}
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = v
	}
	h := sha256.Sum256(nb)
	out["adapter_config.json"] = hex.EncodeToString(h[:])
	return out
}
