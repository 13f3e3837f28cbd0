package schema

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue"
)

// adapterBases reports every adapter a stage would load on an endpoint
// serving another base model than the one the adapter was trained on: a
// LoRA adapter only means something on its own base (an 8B adapter on a
// 0.6B server fails to load, or worse, loads onto a model of the same
// shape and answers). The training stage's base is its base_stage, else
// its base_model; the endpoint's is its model_stage, else its model (or
// model_dir). A base_model that is a local path is not compared with a
// served model id: one vLLM serves a directory under any name.
func adapterBases(e *Experiment, at func(cue.Path) []string) Errors {
	var errs Errors
	for _, key := range keys(e.Stages) {
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(e.Stages[key].Raw, &fields)
		kind, _ := e.Kinds.Lookup(e.Stages[key].Kind)
		for _, f := range kind.Adapters {
			train := rawStr(fields[f.Field])
			t, ok := e.Stages[train]
			if train == "" || !ok {
				continue
			}
			epName := rawStr(fields[f.Endpoint])
			if epName == "" {
				epName = f.DefaultEndpoint
			}
			ep, ok := e.Endpoints[epName]
			if !ok {
				continue
			}
			var tf map[string]json.RawMessage
			_ = json.Unmarshal(t.Raw, &tf)
			if msg := baseMismatch(rawStr(tf["base_stage"]), rawStr(tf["base_model"]), ep); msg != "" {
				errs = append(errs, Error{Path: "stages." + key + "." + f.Field,
					Msg:       fmt.Sprintf("the adapter of stage %s is trained on %s, but endpoint %s serves %s", train, msg, epName, servedBase(ep)),
					Positions: at(cue.MakePath(cue.Str("stages"), cue.Str(key), cue.Str(f.Field)))})
			}
		}
	}
	return errs
}

// baseMismatch describes the training base when it is not ep's, else "".
func baseMismatch(baseStage, baseModel string, ep Endpoint) string {
	switch {
	case baseStage != "":
		if ep.ModelStage == baseStage {
			return ""
		}
		return "the model of stage " + baseStage
	case baseModel == "" || localPath(baseModel):
		return ""
	case ep.ModelStage == "" && (baseModel == ep.Model || baseModel == ep.ModelDir):
		return ""
	}
	return baseModel
}

// servedBase names the base model an endpoint serves.
func servedBase(ep Endpoint) string {
	switch {
	case ep.ModelStage != "":
		return "the model of stage " + ep.ModelStage
	case ep.Model != "":
		return ep.Model
	}
	return ep.ModelDir
}

// localPath reports whether a base_model is a directory path rather than a
// hub id ("Org/Name").
func localPath(s string) bool {
	return filepath.IsAbs(s) || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") || strings.Count(s, "/") != 1
}

func rawStr(b json.RawMessage) string {
	var s string
	_ = json.Unmarshal(b, &s)
	return s
}
