package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

// openaiNpm is the official OpenAI JS client the test installs.
const openaiNpm = "openai@6.30.1"

// openaiClientDir returns a directory holding node_modules/openai,
// installing it with npm into the user cache when absent
// ($MASCOT_NPM_CACHE or os.UserCacheDir()/mascot/npm, then a folder per
// version). Without node or npm the test skips with what to install
// (fails under MASCOT_FULL=1).
func openaiClientDir(t *testing.T) string {
	t.Helper()
	_, err := exec.LookPath("node")
	testgate.Need(t, err == nil, "node is required for the OpenAI JS client test; install Node.js (>= 18) and npm")
	base := os.Getenv("MASCOT_NPM_CACHE")
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("finding the user cache dir for npm packages: %v", err)
		}
		base = filepath.Join(cache, "mascot", "npm")
	}
	dir := filepath.Join(base, strings.ReplaceAll(openaiNpm, "@", "-"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err == nil {
		return dir
	}
	npm, err := exec.LookPath("npm")
	testgate.Need(t, err == nil, fmt.Sprintf("npm is required to install the official OpenAI client; install npm or run: npm install --prefix %s %s", dir, openaiNpm))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("creating the npm cache: %v", err)
	}
	out, err := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", openaiNpm).CombinedOutput()
	if err != nil {
		t.Fatalf("installing %s with npm: %v\n%s", openaiNpm, err, out)
	}
	return dir
}

func TestOfficialOpenAIClient(t *testing.T) {
	pkg := openaiClientDir(t)
	_, url := startServer(t, Options{})
	cmd := exec.Command("node", filepath.Join("testdata", "openai_client.cjs"), pkg, url, "tiny")
	cmd.Env = append(os.Environ(), "JUDGE_SCHEMA="+judgeSchema)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var r struct {
		Models []string `json:"models"`
		Plain  struct {
			Content string `json:"content"`
			Finish  string `json:"finish"`
			Usage   usage  `json:"usage"`
		} `json:"plain"`
		N2     []string `json:"n2"`
		Seeded []string `json:"seeded"`
		Stream struct {
			Text   string `json:"text"`
			Finish string `json:"finish"`
			Chunks int    `json:"chunks"`
		} `json:"stream"`
		JSON       string `json:"json"`
		JSONFinish string `json:"jsonFinish"`
		NotFound   struct {
			Status int `json:"status"`
		} `json:"notFound"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}
	if len(r.Models) != 1 || r.Models[0] != "tiny" {
		t.Errorf("models %v", r.Models)
	}
	if r.Plain.Finish == "" || r.Plain.Usage.CompletionTokens == 0 || r.Plain.Usage.TotalTokens != r.Plain.Usage.PromptTokens+r.Plain.Usage.CompletionTokens {
		t.Errorf("plain %+v", r.Plain)
	}
	if len(r.N2) != 2 || r.N2[0] == r.N2[1] {
		t.Errorf("n=2 gave %q", r.N2)
	}
	if len(r.Seeded) != 2 || r.Seeded[0] != r.Seeded[1] || r.Seeded[0] == "" {
		t.Errorf("same seed gave %q", r.Seeded)
	}
	if r.Stream.Text != r.Seeded[0] || r.Stream.Finish == "" || r.Stream.Chunks < 3 {
		t.Errorf("stream %+v, non-streamed %q", r.Stream, r.Seeded[0])
	}
	if err := checkJudge(r.JSON); err != nil || r.JSONFinish != "stop" {
		t.Errorf("json_schema output %q (%s): %v", r.JSON, r.JSONFinish, err)
	}
	if r.NotFound.Status != 404 {
		t.Errorf("unknown model: %s", out)
	}
}
