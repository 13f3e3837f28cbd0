package plugstart

import (
	"slices"
	"testing"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/schema"
)

type argv []string

func (a argv) Command(string) []string { return a }

// TestHostConfigDropsOtherEndpointsKeys: a plugin gets the key variables
// of the endpoints it calls and none of the others'.
func TestHostConfigDropsOtherEndpointsKeys(t *testing.T) {
	env := &runner.Env{Plugins: argv{"mascot", "plugin", "serve", "rubric"}, Exp: &schema.Experiment{
		Endpoints: map[string]schema.Endpoint{
			"judge":  {APIKeyEnv: "JUDGE_KEY"},
			"policy": {APIKeyEnv: "POLICY_KEY"},
			"shared": {APIKeyEnv: "JUDGE_KEY"},
			"open":   {},
		}}}
	cfg, err := HostConfig(env, "j", Spec{Name: "rubric", Plugin: "rubric", Endpoints: []string{"judge"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.DropEnv, []string{"POLICY_KEY"}) {
		t.Fatalf("DropEnv = %v, want [POLICY_KEY]", cfg.DropEnv)
	}
	cfg, err = HostConfig(env, "m", Spec{Name: "nli", Plugin: "nli"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(cfg.DropEnv)
	if !slices.Equal(cfg.DropEnv, []string{"JUDGE_KEY", "POLICY_KEY"}) {
		t.Fatalf("DropEnv of a plugin calling no endpoint = %v, want both keys", cfg.DropEnv)
	}
}
