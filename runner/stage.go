package runner

import (
	"context"
	"encoding/json"

	"mascot.dev/mascot/results"
)

// Stage is one configured stage of an experiment.
type Stage interface {
	// Units lists the stage's units. It is called once the stage's inputs
	// are complete, so it may read their results from the store.
	Units(ctx context.Context) ([]Unit, error)
	// Run executes one unit and returns the function that writes its rows;
	// the runner calls it inside the transaction that marks the unit done.
	Run(ctx context.Context, u Unit) (Commit, error)
}

// Commit writes one unit's result rows.
type Commit func(tx *results.Tx) error

// Finisher is implemented by stages that act once all units are done (a
// report printing its tables, a training stage publishing its adapter).
type Finisher interface {
	Finish(ctx context.Context) error
}

// Unit is one unit of work of a stage.
type Unit struct {
	// Key identifies the unit within its stage for humans: "ctx=12/agent=The Anchor".
	Key string
	// Inputs is everything that determines the unit's result beyond the
	// stage config; it is hashed into the fingerprint (JSON-encodable).
	Inputs any
	// Payload is the stage's own data for Run; it is not hashed.
	Payload any
	// Context names the evaluation context (dataset sample) the unit
	// belongs to, for stages a racing sweep slices (see Slice); units of
	// one context share it. Empty: the unit is its own context.
	Context string
	// Fingerprint is set by the runner.
	Fingerprint string
}

// Output is what downstream stages can see of a finished stage.
type Output struct {
	Key         string
	Kind        string
	Fingerprint string
	// Units are the fingerprints of the stage's done units.
	Units []string
	// Artifacts are files the stage produced (adapter or model directories).
	Artifacts []results.Artifact
}

// hashInputs encodes unit inputs canonically: the bytes json.Marshal
// writes for them decoded into any (canonjson.go).
func hashInputs(v any) ([]byte, error) { return appendHashInputs(nil, v) }

// appendHashInputs is hashInputs appending to dst.
func appendHashInputs(dst []byte, v any) ([]byte, error) {
	if m, ok := v.(map[string]any); ok {
		if b, ok, err := appendCanonicalInputs(dst, m); ok {
			return b, err
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	if b, err = canonicalJSON(b); err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}
