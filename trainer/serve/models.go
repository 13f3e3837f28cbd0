package serve

import (
	"fmt"
	"net/http"
	"path/filepath"
	"sort"

	"mascot.dev/mascot/trainer/qwen3"
)

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	b := s.base
	maxLen := b.maxLen
	cards := []map[string]any{{"id": b.id, "object": "model", "created": b.created, "owned_by": "mascot",
		"root": shownPath(b.dir), "parent": nil, "max_model_len": maxLen, "permission": []any{}}}
	names := make([]string, 0, len(s.adapters))
	for n := range s.adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cards = append(cards, map[string]any{"id": n, "object": "model", "created": b.created, "owned_by": "mascot",
			"root": n, "parent": b.id, "max_model_len": nil, "permission": []any{}})
	}
	s.mu.RUnlock()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": cards})
}

type loraRequest struct {
	LoraName    string `json:"lora_name"`
	LoraPath    string `json:"lora_path"`
	LoadInplace bool   `json:"load_inplace"`
}

func invalidInput(msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "InvalidUserInput", msg: msg}
}

// handleLoad follows vLLM's load_lora_adapter: 400 InvalidUserInput for
// missing fields or a name already loaded (unless load_inplace), 200 with
// a text body on success. A path the adapter cannot be loaded from is one
// 400 BadRequestError whatever the reason (missing, unreadable, not an
// adapter, not fitting the model), naming neither the path nor the
// reason, so the route never tells whether a path exists; the server log
// has the reason.
func (s *Server) handleLoad(w http.ResponseWriter, r *http.Request) {
	var req loraRequest
	if aerr := decodeBody(r, &req); aerr != nil {
		writeError(w, aerr)
		return
	}
	if req.LoraName == "" || req.LoraPath == "" {
		writeError(w, invalidInput("Both 'lora_name' and 'lora_path' must be provided."))
		return
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	s.mu.RLock()
	base := s.base
	_, exists := s.adapters[req.LoraName]
	s.mu.RUnlock()
	if req.LoraName == base.id {
		writeError(w, invalidInput(fmt.Sprintf("The lora adapter name '%s' conflicts with a served base model.", req.LoraName)))
		return
	}
	if exists && !req.LoadInplace {
		writeError(w, invalidInput(fmt.Sprintf("The lora adapter '%s' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.", req.LoraName)))
		return
	}
	a, err := loadAdapter(base.model, req.LoraName, req.LoraPath)
	if err != nil {
		s.log.Warn("loading adapter failed", "name", req.LoraName, "path", req.LoraPath, "err", err)
		writeError(w, badRequest(fmt.Sprintf("Loading lora %s failed: the path given holds no adapter this model can load (the server's log says why).", req.LoraName)))
		return
	}
	s.mu.Lock()
	old := s.adapters[req.LoraName]
	if s.base == base {
		s.adapters[req.LoraName] = a
	}
	s.mu.Unlock()
	if old != nil {
		s.eng.prefixes.drop(func(m *qwen3.Model) bool { return m == old.view })
	}
	s.log.Info("loaded adapter", "name", req.LoraName, "path", req.LoraPath)
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "Success: LoRA adapter '%s' added successfully.", req.LoraName)
}

// handleUnload follows vLLM's unload_lora_adapter.
func (s *Server) handleUnload(w http.ResponseWriter, r *http.Request) {
	var req loraRequest
	if aerr := decodeBody(r, &req); aerr != nil {
		writeError(w, aerr)
		return
	}
	if req.LoraName == "" {
		writeError(w, invalidInput("'lora_name' needs to be provided to unload a LoRA adapter."))
		return
	}
	s.mu.Lock()
	a, ok := s.adapters[req.LoraName]
	delete(s.adapters, req.LoraName)
	s.mu.Unlock()
	if !ok {
		writeError(w, notFound(fmt.Sprintf("The lora adapter '%s' cannot be found.", req.LoraName)))
		return
	}
	s.eng.prefixes.drop(func(m *qwen3.Model) bool { return m == a.view })
	s.log.Info("unloaded adapter", "name", req.LoraName)
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "Success: LoRA adapter '%s' removed successfully.", req.LoraName)
}

// handleMetrics writes vLLM's gauge and counter names in the Prometheus
// text format.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	label := fmt.Sprintf("{model_name=%q}", s.ModelID())
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	for _, m := range []struct {
		name, typ, help string
		v               int64
	}{
		{"vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", s.eng.running.Load()},
		{"vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", int64(s.eng.waiting())},
		{"vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", s.eng.promptTok.Load()},
		{"vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", s.eng.genTok.Load()},
		{"vllm:request_success_total", "counter", "Count of successfully processed requests.", s.eng.finishedOK.Load()},
		{"vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache.", s.eng.prefixes.queried.Load()},
		{"vllm:prefix_cache_hits_total", "counter", "Prompt tokens reused from the prefix cache instead of prefilled.", s.eng.prefixes.hit.Load()},
	} {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s%s %d\n", m.name, m.help, m.name, m.typ, m.name, label, m.v)
	}
}

// shownPath is how a response names a model directory: as the user gave
// it, or only its last element when that is absolute, so no response
// shows where the server's files are.
func shownPath(dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Base(dir)
	}
	return dir
}
