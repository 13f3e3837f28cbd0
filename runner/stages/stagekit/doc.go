// Package stagekit holds what several stage kinds share: loading a
// stage's dataset, turning schema rosters into dialogue rosters, and
// routing a stage's LLM roles to the endpoints it names.
//
// Layer: runner/stages; imported by the stage kind packages only.
package stagekit
