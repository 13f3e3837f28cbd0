package llm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mascot.dev/mascot/internal/fakevllm"
)

func TestAdapterLoadServeUnloadOnEveryReplica(t *testing.T) {
	a := fakevllm.Start(t, fakevllm.Options{CheckAdapterPath: true})
	b := fakevllm.Start(t, fakevllm.Options{CheckAdapterPath: true, LegacyErrors: true})
	tr := &traces{}
	c := newTestClient(t, func(_ *Endpoint, cfg *Config) { cfg.Trace = tr.add }, a.URL(), b.URL())
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "adapter_config.json"), []byte(`{"r":8}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.LoadAdapter(ctx, "main", "director-dpo", filepath.Join(dir, "missing")); !errors.Is(err, ErrAdapterNotFound) {
		t.Errorf("missing path: %v", err)
	}
	if err := c.LoadAdapter(ctx, "main", "director-dpo", dir); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*fakevllm.Server{a, b} {
		if s.Adapters()["director-dpo"] != dir {
			t.Errorf("%s: adapters %v", s.URL(), s.Adapters())
		}
	}
	models, err := c.Models(ctx, "main")
	if err != nil || len(models[a.URL()]) != 2 || models[a.URL()][1].Parent != "Qwen/Qwen3-8B" {
		t.Errorf("models %v err %v", models, err)
	}
	req := userReq("director", "hi")
	req.Model = "director-dpo"
	for i := 0; i < 4; i++ {
		resp, err := c.Chat(ctx, req)
		if err != nil || resp.ModelID != "director-dpo" {
			t.Fatalf("chat with adapter: %v %+v", err, resp)
		}
	}
	if ev := tr.all(); ev[0].Model != "director-dpo" {
		t.Errorf("trace model %q", ev[0].Model)
	}
	err = c.LoadAdapter(ctx, "main", "director-dpo", dir)
	var ae *AdapterError
	if !errors.Is(err, ErrAdapterExists) || !errors.As(err, &ae) || ae.Status != 400 || ae.Type != "InvalidUserInput" {
		t.Errorf("second load: %v", err)
	}
	if err := c.UnloadAdapter(ctx, "main", "director-dpo"); err != nil {
		t.Fatal(err)
	}
	if err := c.UnloadAdapter(ctx, "main", "director-dpo"); !errors.Is(err, ErrAdapterNotFound) {
		t.Errorf("second unload: %v", err)
	}
	if _, err := c.Chat(ctx, req); KindOf(err) != KindClient {
		t.Errorf("chat with unloaded adapter: %v", err)
	}
}

func TestAdapterRuntimeLoRADisabled(t *testing.T) {
	s := fakevllm.Start(t, fakevllm.Options{DisableRuntimeLoRA: true})
	c := newTestClient(t, nil, s.URL())
	err := c.LoadAdapter(context.Background(), "main", "x", "/tmp/x")
	if !errors.Is(err, ErrRuntimeLoRADisabled) || errors.Is(err, ErrAdapterNotFound) {
		t.Errorf("got %v", err)
	}
	if err := c.LoadAdapter(context.Background(), "nope", "x", "/tmp/x"); err == nil {
		t.Error("unknown endpoint accepted")
	}
}
