package cli

import (
	"os"

	"mascot.dev/mascot/runner"
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
	return runner.Services{Plugins: selfPlugins{}, Trace: trace, Engine: newEngine()}
}

// newEngine returns the built-in engine, or nil when this build has none.
var newEngine = func() runner.Engine { return nil }
