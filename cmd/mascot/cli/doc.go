// Package cli is mascot's command-line surface: one cobra command per verb,
// each a thin layer over schema, runner, results, plugins and trainer.
// Errors are printed once by Main; exit codes come in bands: 0 ok,
// 1 runtime failure, 2 invalid input (spec, flags, arguments).
//
// Layer: the top; nothing imports it.
package cli
