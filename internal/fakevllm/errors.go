package fakevllm

import (
	"encoding/json"
	"net/http"
	"strconv"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError sends vLLM's error JSON: {"error":{message,type,param,code}}
// (current vLLM) or the flat {"object":"error",...} of older releases.
func (s *Server) writeError(w http.ResponseWriter, status int, typ, msg string, param *string) {
	body := map[string]any{"message": msg, "type": typ, "param": param, "code": status}
	if s.opts.LegacyErrors {
		body["object"] = "error"
		writeJSON(w, status, body)
		return
	}
	writeJSON(w, status, map[string]any{"error": body})
}

func strp(s string) *string { return &s }
