package main

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"mascot.dev/mascot/cmd/mascot/cli"
	"mascot.dev/mascot/plugins/builtin"
	"mascot.dev/mascot/schema"
)

// TestEveryEmbeddedExperimentValidatesAndPlans is the guarantee behind
// `mascot list`: each name resolves with its URL tags set, and plans.
func TestEveryEmbeddedExperimentValidatesAndPlans(t *testing.T) {
	names, err := schema.EmbeddedNames()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 15 {
		t.Fatalf("only %d embedded experiments: %v", len(names), names)
	}
	db := t.TempDir() + "/plan.db"
	for _, n := range names {
		args := []string{"-t", "vllm=http://127.0.0.1:9/v1", "-t", "judge=http://127.0.0.1:9/v1"}
		switch n {
		case "demo":
			args = nil
		case "paper/model-size": // one server per policy size
			args = []string{"-t", "vllm_0_6b=http://127.0.0.1:9/v1", "-t", "vllm_1_7b=http://127.0.0.1:9/v1",
				"-t", "vllm_8b=http://127.0.0.1:9/v1", "-t", "judge=http://127.0.0.1:9/v1"}
		}
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), append([]string{"validate", n}, args...), &out, &errb); code != 0 {
			t.Errorf("validate %s: exit %d\n%s", n, code, errb.String())
			continue
		}
		out.Reset()
		errb.Reset()
		if code := cli.Run(context.Background(), append([]string{"plan", n, "--db", db}, args...), &out, &errb); code != 0 {
			t.Errorf("plan %s: exit %d\n%s", n, code, errb.String())
			continue
		}
		if !strings.Contains(out.String(), "STAGE") && !strings.Contains(out.String(), "VARIANT") {
			t.Errorf("plan %s printed no table:\n%s", n, out.String())
		}
	}
}

// TestSchemaBuiltinPluginsAreCompiledIn keeps the plugin names the schema
// accepts without a command equal to the plugins the binary serves.
func TestSchemaBuiltinPluginsAreCompiledIn(t *testing.T) {
	judges, metrics, err := schema.BuiltinPlugins()
	if err != nil {
		t.Fatal(err)
	}
	var fromSchema []string
	for _, n := range judges {
		if builtin.Kind(n) != "judge" {
			t.Errorf("schema judge plugin %q is not a built-in judge", n)
		}
		fromSchema = append(fromSchema, n)
	}
	for _, n := range metrics {
		if builtin.Kind(n) != "metric" {
			t.Errorf("schema metric plugin %q is not a built-in metric", n)
		}
		fromSchema = append(fromSchema, n)
	}
	sort.Strings(fromSchema)
	if got, want := strings.Join(fromSchema, ","), strings.Join(builtin.Names(), ","); got != want {
		t.Errorf("schema built-ins %s, binary serves %s", got, want)
	}
}
