// Package hfhub knows where the local Hugging Face hub cache lives, so
// datasets and base models given by hub id are found on disk (mascot never
// downloads at run time).
//
// Layer: runner; used by runner/datasets and the training stage kinds.
package hfhub

import (
	"os"
	"path/filepath"
)

// Roots lists the hub cache directories to search, in the order
// huggingface_hub honours them (HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE,
// HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub),
// without duplicates.
func Roots() []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	add(os.Getenv("HF_HUB_CACHE"))
	add(os.Getenv("HUGGINGFACE_HUB_CACHE"))
	if h := os.Getenv("HF_HOME"); h != "" {
		add(filepath.Join(h, "hub"))
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		add(filepath.Join(x, "huggingface", "hub"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		add(filepath.Join(home, ".cache", "huggingface", "hub"))
	}
	return out
}
