//go:build !amd64

package qwen3

// fmaKernels and zmmKernels are off: the kernels are amd64 assembly.
var fmaKernels, zmmKernels = false, false

func dot4x3(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool) {
	panic("qwen3: dot4x3 without the amd64 kernels")
}

func dot1x8(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool) {
	panic("qwen3: dot1x8 without the amd64 kernels")
}

func dot1x1(x *float32, w *float32, n int, y *float32, acc bool) {
	panic("qwen3: dot1x1 without the amd64 kernels")
}

func dot4x4z(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool) {
	panic("qwen3: dot4x4z without the amd64 kernels")
}

func dot8x3z(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool) {
	panic("qwen3: dot8x3z without the amd64 kernels")
}

func dot8x3zk(xp *float32, w *float32, ldw int, rowb int, part *float32, mode int, y *float32, ldy int, ycs int, acc bool) {
	panic("qwen3: dot8x3zk without the amd64 kernels")
}

func dot1x8z(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool) {
	panic("qwen3: dot1x8z without the amd64 kernels")
}

func dot1x8zs(x *float32, w *float32, ldw int, n int, y *float32, ldy int, acc bool) {
	panic("qwen3: dot1x8zs without the amd64 kernels")
}

func dot1x1z(x *float32, w *float32, n int, y *float32, acc bool) {
	panic("qwen3: dot1x1z without the amd64 kernels")
}

func wsumz(o *float32, p *float32, v *float32, ldv int, n int, d int) {
	panic("qwen3: wsumz without the amd64 kernels")
}

func swiglu8(gate *float32, ex *float64, up *float32, n int) {
	panic("qwen3: swiglu8 without the amd64 kernels")
}
