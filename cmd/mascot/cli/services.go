package cli

import (
	"os"

	"mascot.dev/mascot/runner"
	"mascot.dev/mascot/runner/slurm"
	"mascot.dev/mascot/runner/stages/train"
)

// selfPlugins serves built-in plugins by re-executing this binary.
type selfPlugins struct{}

// Command implements runner.PluginStarter.
func (selfPlugins) Command(name string) []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return []string{exe, "plugin", "serve", name}
}

// services is what every run of this binary gets: the built-in engine,
// plugins served by this binary, and the one Slurm executor, which runs
// stages whose executor is "slurm" and the jobs of slurm-server endpoints.
// This is the only place executors are chosen.
func services(trace bool) runner.Services {
	sl := &slurm.Executor{}
	return runner.Services{Plugins: selfPlugins{}, Trace: trace, Engine: newEngine(),
		Executors: map[string]runner.Executor{"slurm": sl}, Servers: sl}
}

// newEngine returns the built-in engine (trainer/serve) for builtin endpoints.
var newEngine = func() runner.Engine { return train.NewEngine() }
