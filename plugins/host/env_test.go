package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/plugins/host"
)

// TestPluginEnvironmentIsAllowlisted: a plugin process gets the basic
// variables (PATH, HOME, LC_*), what InheritEnv names (its endpoint's key,
// a prefix) and Config.Env, and nothing else of the host's environment:
// not another endpoint's key, not an unrelated secret.
func TestPluginEnvironmentIsAllowlisted(t *testing.T) {
	t.Setenv("MASCOT_TEST_KEY_MINE", "sk-mine-1")
	t.Setenv("MASCOT_TEST_KEY_OTHER", "sk-other-2")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-3")
	t.Setenv("PYTHONPATH_EXTRA_A", "py-4")
	t.Setenv("LC_TESTING", "lc-5")
	file := filepath.Join(t.TempDir(), "env")
	cfg := selfConfig("envdump")
	cfg.Env = append(cfg.Env, "MASCOT_TEST_ENVFILE="+file)
	cfg.InheritEnv = []string{"MASCOT_TEST_KEY_MINE", "PYTHONPATH_EXTRA_*"}
	j, err := host.StartJudge(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(b) + "\n"
	for _, want := range []string{"MASCOT_TEST_KEY_MINE=sk-mine-1", "PYTHONPATH_EXTRA_A=py-4", "LC_TESTING=lc-5", "PATH=" + os.Getenv("PATH")} {
		if !strings.Contains(env, "\n"+want+"\n") {
			t.Errorf("the plugin did not get %s", want)
		}
	}
	for _, secret := range []string{"sk-other-2", "aws-secret-3"} {
		if strings.Contains(env, secret) {
			t.Errorf("the plugin inherited %s", secret)
		}
	}
}
