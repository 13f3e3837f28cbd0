//go:build cgo

// Package libm exposes the C library's float32 powf, cosf and sinf through
// cgo, so that tests can check the trainer's pure-Go float32 formulas (the
// RoPE tables of trainer/qwen3) against the functions torch's scalar CPU
// path calls. Only tests import it.
//
// Layer: internal, below everything; it imports only the C library.
package libm

/*
#cgo LDFLAGS: -lm
#include <math.h>

static float mul(float a, float b) { return a * b; }
static float div(float a, float b) { return a / b; }
*/
import "C"

// Powf is C's powf.
func Powf(x, y float32) float32 { return float32(C.powf(C.float(x), C.float(y))) }

// Cosf is C's cosf.
func Cosf(x float32) float32 { return float32(C.cosf(C.float(x))) }

// Sinf is C's sinf.
func Sinf(x float32) float32 { return float32(C.sinf(C.float(x))) }

// Mul is a float product evaluated by C.
func Mul(a, b float32) float32 { return float32(C.mul(C.float(a), C.float(b))) }

// Div is a float quotient evaluated by C.
func Div(a, b float32) float32 { return float32(C.div(C.float(a), C.float(b))) }
