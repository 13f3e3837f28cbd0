// Package plugstart starts the judge and metric plugins a stage names:
// built-ins through the run's PluginStarter (`mascot plugin serve NAME`),
// third-party ones from the `command` of their config, with the optional
// sha256 pin. Each plugin is started once per stage, lazily, configured
// once, and closed when the run ends (env.OnClose). Plugin stderr goes to
// the run log line by line.
//
// Layer: runner/stages; used by the judge and metrics stage kinds only.
package plugstart
