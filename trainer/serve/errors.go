package serve

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// apiError is an error answered with vLLM's JSON:
// {"error":{"message","type","param","code"}}.
type apiError struct {
	status int
	typ    string
	msg    string
	param  *string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "BadRequestError", msg: msg}
}

func badParam(param, msg string) *apiError {
	e := badRequest(msg)
	e.param = &param
	return e
}

func notFound(msg string) *apiError {
	return &apiError{status: http.StatusNotFound, typ: "NotFoundError", msg: msg}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"encoding the response failed","type":"InternalServerError","param":null,"code":500}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, e *apiError) {
	if e.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, e.status, map[string]any{"error": map[string]any{
		"message": e.msg, "type": e.typ, "param": e.param, "code": e.status}})
}
