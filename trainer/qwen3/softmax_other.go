//go:build !amd64

package qwen3

func maxFast(x []float32) (top float32, nan bool, n int) { return 0, false, 0 }

func scaleShiftFast(p []float64, x []float32, t float32, mx float64) int { return 0 }
