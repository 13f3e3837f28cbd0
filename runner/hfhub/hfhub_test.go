package hfhub

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestRootsOrderAndDeduplication(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", "/a/hub")
	t.Setenv("HUGGINGFACE_HUB_CACHE", "/a/hub")
	t.Setenv("HF_HOME", "/b")
	t.Setenv("XDG_CACHE_HOME", "/c")
	t.Setenv("HOME", "/home/u")
	want := []string{"/a/hub", "/b/hub", filepath.Join("/c", "huggingface", "hub"), filepath.Join("/home/u", ".cache", "huggingface", "hub")}
	if got := Roots(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Roots() = %v, want %v", got, want)
	}
}
