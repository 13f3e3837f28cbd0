// Package decls declares every built-in stage kind to the schema without
// importing the stages themselves: its imports are the kinds' declaration
// packages (runner/stages/<kind>/<kind>decl), which import only schema.
// Code that loads specs but must not import the runner's stages — schema's
// tests, tests inside packages the stages import — imports it for its side
// effects. The mascot binary imports runner/stages/all, whose stages import
// their own declarations; a test there keeps the two lists in step.
package decls

import (
	_ "mascot.dev/mascot/runner/stages/candidates/candidatesdecl"
	_ "mascot.dev/mascot/runner/stages/episodes/episodesdecl"
	_ "mascot.dev/mascot/runner/stages/judge/judgedecl"
	_ "mascot.dev/mascot/runner/stages/metrics/metricsdecl"
	_ "mascot.dev/mascot/runner/stages/pairs/pairsdecl"
	_ "mascot.dev/mascot/runner/stages/report/reportdecl"
	_ "mascot.dev/mascot/runner/stages/train/traindecl"
)
