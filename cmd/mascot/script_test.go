package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"mascot.dev/mascot/cmd/mascot/cli"
	"mascot.dev/mascot/trainer/compute/device"
)

func TestMain(m *testing.M) {
	// In-process runs start built-in plugins by re-executing this binary
	// (os.Executable) as `plugin serve NAME`.
	if len(os.Args) > 2 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		os.Exit(cli.Main())
	}
	testscript.Main(m, map[string]func(){
		"mascot": func() { os.Exit(cli.Main()) },
	})
}

// TestScripts runs the txtar scenarios in testdata/script: each holds
// experiment files and the exact output expected, positioned errors
// included. UPDATE_SCRIPTS=1 rewrites the expectations.
func TestScripts(t *testing.T) {
	demo, err := filepath.Abs("../../experiments/demo/data")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("DEMO_DATA", demo)
			return nil
		},
		// [cuda]: a training stage can run on device cuda here (a -tags
		// cuda build on a machine with a GPU and the CUDA libraries).
		Condition: func(cond string) (bool, error) {
			if cond == "cuda" {
				return device.Check("cuda") == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
