package plugstart

import (
	"slices"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

type argv []string

func (a argv) Command(string) []string { return a }

// TestHostConfigInheritsOnlyItsEndpointsKeys: a plugin inherits the key
// variables of the endpoints it calls and what its spec's env lists, and
// none of the other endpoints' keys.
func TestHostConfigInheritsOnlyItsEndpointsKeys(t *testing.T) {
	env := &runner.Env{Plugins: argv{"mascot", "plugin", "serve", "rubric"}, Exp: &schema.Experiment{
		Endpoints: map[string]schema.Endpoint{
			"judge":  {APIKeyEnv: "JUDGE_KEY"},
			"policy": {APIKeyEnv: "POLICY_KEY"},
			"shared": {APIKeyEnv: "JUDGE_KEY"},
			"open":   {},
		}}}
	cfg, err := HostConfig(env, "j", Spec{Name: "rubric", Plugin: "rubric", Endpoints: []string{"judge"}, InheritEnv: []string{"PYTHONPATH"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.InheritEnv, []string{"JUDGE_KEY", "PYTHONPATH"}) {
		t.Fatalf("InheritEnv = %v, want [JUDGE_KEY PYTHONPATH]", cfg.InheritEnv)
	}
	cfg, err = HostConfig(env, "m", Spec{Name: "nli", Plugin: "nli"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.InheritEnv) != 0 {
		t.Fatalf("InheritEnv of a plugin calling no endpoint = %v, want none", cfg.InheritEnv)
	}
}
