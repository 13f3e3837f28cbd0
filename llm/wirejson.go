package llm

import (
	"encoding/json"
	"math"
	"strconv"
	"unsafe"

	"mascot.dev/mascot/results/jsonl"
)

// Hand-written JSON encoders for the two documents every request writes:
// its body (wireRequest) and its reply as the cache stores it (Response).
// Both are byte for byte what encoding/json writes for the same value
// (TestAppendWireRequestIsJSONMarshal, FuzzAppendJSON): the body reaches
// the server and the reply is stored, and a rerun compares neither, but a
// changed byte would still be a changed record. encoding/json's
// reflection, its buffer pool and the copy Marshal returns cost about as
// much as the escaping itself on a candidates prompt (docs/benchmarks.md,
// "The candidates stage against a bare client").

// appendWireRequest appends w's JSON to dst; ok is false when w holds what
// only encoding/json says how to fail on (a NaN or infinite sampling
// value), and the caller then encodes it with json.Marshal.
func appendWireRequest(dst []byte, w *wireRequest) (_ []byte, ok bool) {
	dst = append(dst, `{"model":`...)
	dst = appendJSONString(dst, w.Model)
	dst = append(dst, `,"messages":[`...)
	for i, m := range w.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":`...)
		dst = appendJSONString(dst, m.Role)
		if m.Content != "" {
			dst = append(dst, `,"content":`...)
			dst = appendJSONString(dst, m.Content)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if w.MaxTokens != 0 {
		dst = append(dst, `,"max_tokens":`...)
		dst = strconv.AppendInt(dst, int64(w.MaxTokens), 10)
	}
	if w.N != 0 {
		dst = append(dst, `,"n":`...)
		dst = strconv.AppendInt(dst, int64(w.N), 10)
	}
	dst = append(dst, `,"stream":`...)
	dst = strconv.AppendBool(dst, w.Stream)
	if len(w.Stop) > 0 {
		dst = appendJSONStrings(append(dst, `,"stop":`...), w.Stop)
	}
	if w.ResponseFormat != nil {
		b, err := json.Marshal(w.ResponseFormat) // rare, and a schema of the caller's
		if err != nil {
			return dst, false
		}
		dst = append(append(dst, `,"response_format":`...), b...)
	}
	dst = appendIntPtr(dst, `,"seed":`, w.Seed)
	if len(w.ChatTemplateKwargs) > 0 {
		b, err := json.Marshal(w.ChatTemplateKwargs)
		if err != nil {
			return dst, false
		}
		dst = append(append(dst, `,"chat_template_kwargs":`...), b...)
	} else if w.enableThinking != nil {
		dst = strconv.AppendBool(append(dst, `,"chat_template_kwargs":{"enable_thinking":`...), *w.enableThinking)
		dst = append(dst, '}')
	}
	for _, f := range [...]struct {
		name string
		v    *float64
	}{{`,"temperature":`, w.Temperature}, {`,"top_p":`, w.TopP}} {
		if f.v != nil {
			if dst, ok = appendJSONFloat(append(dst, f.name...), *f.v); !ok {
				return dst, false
			}
		}
	}
	dst = appendIntPtr(dst, `,"top_k":`, w.TopK)
	if w.RepetitionPenalty != nil {
		if dst, ok = appendJSONFloat(append(dst, `,"repetition_penalty":`...), *w.RepetitionPenalty); !ok {
			return dst, false
		}
	}
	dst = appendIntPtr(dst, `,"truncate_prompt_tokens":`, w.TruncatePromptTokens)
	return append(dst, '}'), true
}

func appendIntPtr(dst []byte, name string, v *int) []byte {
	if v == nil {
		return dst
	}
	return strconv.AppendInt(append(dst, name...), int64(*v), 10)
}

// AppendResponseJSON appends r's JSON to dst: what json.Marshal(r) writes
// (Counted and RequestIDs are not part of it), in one pass. The runner
// stores each reply this way.
func AppendResponseJSON(dst []byte, r Response) []byte {
	if dst == nil {
		n := 200 + len(r.ModelID) + len(r.URL)
		for _, ss := range [...][]string{r.Choices, r.Raw, r.FinishReasons} {
			for _, s := range ss {
				n += len(s) + 3
			}
		}
		dst = make([]byte, 0, n+n/16)
	}
	dst = append(dst, `{"choices":`...)
	dst = appendJSONStrings(dst, r.Choices)
	if len(r.Raw) > 0 {
		dst = appendJSONStrings(append(dst, `,"raw":`...), r.Raw)
	}
	if len(r.FinishReasons) > 0 {
		dst = appendJSONStrings(append(dst, `,"finish_reasons":`...), r.FinishReasons)
	}
	dst = strconv.AppendInt(append(dst, `,"prompt_tokens":`...), int64(r.PromptTokens), 10)
	dst = strconv.AppendInt(append(dst, `,"completion_tokens":`...), int64(r.CompletionTokens), 10)
	dst = strconv.AppendInt(append(dst, `,"latency":`...), int64(r.Latency), 10)
	dst = strconv.AppendInt(append(dst, `,"attempts":`...), int64(r.Attempts), 10)
	dst = strconv.AppendBool(append(dst, `,"cached":`...), r.Cached)
	dst = appendJSONString(append(dst, `,"model_id":`...), r.ModelID)
	dst = appendJSONString(append(dst, `,"url":`...), r.URL)
	return append(dst, '}')
}

// AppendMessagesJSON appends the JSON of msgs to dst: what
// json.Marshal(msgs) writes (an empty content written, a nil slice null).
// The candidates stage stores each unit's prompt this way.
func AppendMessagesJSON(dst []byte, msgs []Message) []byte {
	if msgs == nil {
		return append(dst, "null"...)
	}
	if dst == nil {
		n := 2
		for _, m := range msgs {
			n += len(m.Role) + len(m.Content) + 26
		}
		dst = make([]byte, 0, n+n/16)
	}
	dst = append(dst, '[')
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(append(dst, `{"role":`...), m.Role)
		dst = appendJSONString(append(dst, `,"content":`...), m.Content)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// MessagesJSON is AppendMessagesJSON(nil, msgs) as a string, in one
// allocation: the buffer is its own and never written again, as a
// strings.Builder's is.
func MessagesJSON(msgs []Message) string {
	b := AppendMessagesJSON(nil, msgs)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendJSONStrings writes a nil slice as null, as encoding/json does.
func appendJSONStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

// appendJSONFloat writes f as encoding/json writes a float64 (ES6 number
// formatting); ok is false for NaN and infinities, which it rejects.
func appendJSONFloat(dst []byte, f float64) (_ []byte, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	return jsonl.AppendFloat(dst, f), true
}

// appendJSONString writes s quoted as encoding/json does (results/jsonl's
// writer, a leaf package, which the export uses for the same reason).
func appendJSONString(dst []byte, s string) []byte { return jsonl.AppendString(dst, s) }
