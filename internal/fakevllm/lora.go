package fakevllm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"
)

type modelCard struct {
	ID          string  `json:"id"`
	Object      string  `json:"object"`
	Created     int64   `json:"created"`
	OwnedBy     string  `json:"owned_by"`
	Root        string  `json:"root"`
	Parent      *string `json:"parent"`
	MaxModelLen *int    `json:"max_model_len,omitempty"`
	Permission  []any   `json:"permission"`
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	now := time.Now().Unix()
	mml := s.opts.MaxModelLen
	cards := []modelCard{{ID: s.opts.Model, Object: "model", Created: now, OwnedBy: "vllm", Root: s.opts.ModelPath,
		MaxModelLen: &mml, Permission: []any{}}}
	s.mu.Lock()
	names := make([]string, 0, len(s.adapters))
	for n := range s.adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cards = append(cards, modelCard{ID: n, Object: "model", Created: now, OwnedBy: "vllm", Root: s.adapters[n],
			Parent: strp(s.opts.Model), Permission: []any{}})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": cards})
}

type loraRequest struct {
	LoraName    string `json:"lora_name"`
	LoraPath    string `json:"lora_path"`
	LoadInplace bool   `json:"load_inplace"`
}

// handleLoad follows vLLM's OpenAIServingModels.load_lora_adapter.
func (s *Server) handleLoad(w http.ResponseWriter, r *http.Request) {
	var req loraRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.writeError(w, http.StatusBadRequest, "BadRequestError", "invalid JSON: "+err.Error(), nil)
		return
	}
	if req.LoraName == "" || req.LoraPath == "" {
		s.writeError(w, http.StatusBadRequest, "InvalidUserInput", "Both 'lora_name' and 'lora_path' must be provided.", nil)
		return
	}
	s.mu.Lock()
	_, exists := s.adapters[req.LoraName]
	s.mu.Unlock()
	if exists && !req.LoadInplace {
		s.writeError(w, http.StatusBadRequest, "InvalidUserInput", fmt.Sprintf("The lora adapter '%s' has already been "+
			"loaded. If you want to load the adapter in place, set 'load_inplace' to True.", req.LoraName), nil)
		return
	}
	if s.opts.CheckAdapterPath {
		if _, err := os.Stat(filepath.Join(req.LoraPath, "adapter_config.json")); err != nil {
			s.writeError(w, http.StatusNotFound, "NotFoundError",
				fmt.Sprintf("Loading lora %s failed: No adapter found for %s", req.LoraName, req.LoraPath), nil)
			return
		}
	}
	if s.opts.CheckAdapterBase {
		if base, err := adapterBase(req.LoraPath); err != nil || base != s.opts.Model {
			msg := fmt.Sprintf("Loading lora %s failed: the adapter's base model %q is not the served %q", req.LoraName, base, s.opts.Model)
			if err != nil {
				msg = fmt.Sprintf("Loading lora %s failed: %v", req.LoraName, err)
			}
			s.writeError(w, http.StatusBadRequest, "BadRequestError", msg, nil)
			return
		}
	}
	s.mu.Lock()
	s.adapters[req.LoraName] = req.LoraPath
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "Success: LoRA adapter '%s' added successfully.", req.LoraName)
}

// adapterBase reads base_model_name_or_path from dir/adapter_config.json.
func adapterBase(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "adapter_config.json"))
	if err != nil {
		return "", err
	}
	var cfg struct {
		Base string `json:"base_model_name_or_path"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return "", fmt.Errorf("reading adapter_config.json: %w", err)
	}
	return cfg.Base, nil
}

// handleUnload follows vLLM's OpenAIServingModels.unload_lora_adapter.
func (s *Server) handleUnload(w http.ResponseWriter, r *http.Request) {
	var req loraRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.writeError(w, http.StatusBadRequest, "BadRequestError", "invalid JSON: "+err.Error(), nil)
		return
	}
	if req.LoraName == "" {
		s.writeError(w, http.StatusBadRequest, "InvalidUserInput",
			"'lora_name' needs to be provided to unload a LoRA adapter.", nil)
		return
	}
	s.mu.Lock()
	_, ok := s.adapters[req.LoraName]
	delete(s.adapters, req.LoraName)
	s.mu.Unlock()
	if !ok {
		s.writeError(w, http.StatusNotFound, "NotFoundError",
			fmt.Sprintf("The lora adapter '%s' cannot be found.", req.LoraName), nil)
		return
	}
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "Success: LoRA adapter '%s' removed successfully.", req.LoraName)
}

// knownModel reports whether name is the base model or a loaded adapter.
func (s *Server) knownModel(name string) bool {
	if name == "" || name == s.opts.Model {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.adapters[name]
	return ok
}
