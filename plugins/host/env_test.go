package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/plugins/host"
)

// TestDropEnvKeepsKeysFromPlugins: a plugin process inherits the host's
// environment except the variables DropEnv names (other endpoints' keys).
func TestDropEnvKeepsKeysFromPlugins(t *testing.T) {
	t.Setenv("MASCOT_TEST_KEY_MINE", "sk-mine-1")
	t.Setenv("MASCOT_TEST_KEY_OTHER", "sk-other-2")
	file := filepath.Join(t.TempDir(), "env")
	cfg := selfConfig("envdump")
	cfg.Env = append(cfg.Env, "MASCOT_TEST_ENVFILE="+file)
	cfg.DropEnv = []string{"MASCOT_TEST_KEY_OTHER"}
	j, err := host.StartJudge(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	if !strings.Contains(env, "MASCOT_TEST_KEY_MINE=sk-mine-1") {
		t.Error("the plugin did not inherit its own endpoint's key")
	}
	if strings.Contains(env, "sk-other-2") {
		t.Error("the plugin inherited another endpoint's key")
	}
}
