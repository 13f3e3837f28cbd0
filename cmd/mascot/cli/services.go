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

func services(trace bool) runner.Services {
	return runner.Services{Plugins: selfPlugins{}, Trace: trace, Engine: newEngine(), Servers: slurm.Servers()}
}

// newEngine returns the built-in engine (trainer/serve) for builtin endpoints.
var newEngine = func() runner.Engine { return train.NewEngine() }
