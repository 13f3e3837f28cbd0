#include "textflag.h"
#include "dot8z_amd64.h"

// dot8x3z: eight input rows against three weight rows, with the AVX-512
// kernels' arithmetic for every output (dotz_amd64.s): sixteen lanes, one
// fused multiply-add per lane per sixteen floats from k = 0, then the
// same tree. Four rows by four (dot4x4z) cover a batch of eight in two
// passes over the weights, the second from L2 while no read from memory
// is under way; this kernel reads each weight once for all eight rows, so
// the reads from memory and the arithmetic overlap (24 accumulators, Z0–
// Z23; the three weight vectors in Z24–Z26; the input vector in Z27).

// func dot8x3z(x *float32, ldx int, w *float32, ldw int, n int, y *float32, ldy int, ycs int, acc bool)
//
// y[r·ldy + j·ycs] = x_r · w_j (or y + it with acc) for r < 8, j < 3, the
// input rows x + r·ldx, the weight rows w + j·ldw (n floats each, n a
// multiple of 16). The caller spaces the weight rows a third of its range
// apart, three long streams through the range as dot4x3's. Each stream
// is prefetched twice: into L2 4 KiB ahead and into L1 1 KiB ahead. With
// only an L1 prefetch 2 KiB ahead (as dot4x4z had too) the lines in flight
// were bounded by L1's few miss buffers, and where memory answered slowly
// (a guest whose one thread read 20 GB/s) the eight-row kernel read 11 GB/s
// against 25 from cache: the arithmetic waited on the reads instead of
// overlapping them. The L2 prefetches go through L2's deeper queue, and
// the L1 ones then find their lines in L2 (16–21 GB/s, docs/benchmarks.md).
// The rows' pointers are set to the
// rows' ends and one index runs from -4n to 0, which leaves twelve
// registers for eleven pointers and the index.
TEXT ·dot8x3z(SB), NOSPLIT, $0-65
	MOVQ n+32(FP), AX
	SHLQ $2, AX
	MOVQ x+0(FP), R8
	ADDQ AX, R8
	MOVQ ldx+8(FP), BX
	SHLQ $2, BX
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	LEAQ (R10)(BX*1), R11
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	LEAQ (R13)(BX*1), SI
	LEAQ (SI)(BX*1), DI
	MOVQ w+16(FP), BX
	ADDQ AX, BX
	MOVQ ldw+24(FP), CX
	SHLQ $2, CX
	LEAQ (BX)(CX*1), DX
	LEAQ (DX)(CX*1), CX
	NEGQ AX
	ZERO24

loop83z:
	PREFETCHT1  4096(BX)(AX*1)
	PREFETCHT1  4096(DX)(AX*1)
	PREFETCHT1  4096(CX)(AX*1)
	PREFETCHT0  1024(BX)(AX*1)
	PREFETCHT0  1024(DX)(AX*1)
	PREFETCHT0  1024(CX)(AX*1)
	VMOVUPS     (BX)(AX*1), Z24
	VMOVUPS     (DX)(AX*1), Z25
	VMOVUPS     (CX)(AX*1), Z26
	ROW3((R8)(AX*1), Z0, Z1, Z2)
	ROW3((R9)(AX*1), Z3, Z4, Z5)
	ROW3((R10)(AX*1), Z6, Z7, Z8)
	ROW3((R11)(AX*1), Z9, Z10, Z11)
	ROW3((R12)(AX*1), Z12, Z13, Z14)
	ROW3((R13)(AX*1), Z15, Z16, Z17)
	ROW3((SI)(AX*1), Z18, Z19, Z20)
	ROW3((DI)(AX*1), Z21, Z22, Z23)
	ADDQ        $64, AX
	JNZ         loop83z

	// The loop's L1 prefetches end 1 KiB past these rows, its L2 ones
	// 4 KiB past. The reductions below take about as long as reading a
	// third of a 2 KiB row, and with no read under way memory would idle
	// through them: the next eight lines of each stream, already on their
	// way to L2, are asked into L1 (one thread streamed a third more bytes
	// per second with these, docs/benchmarks.md).
	PREFETCH8(1024, BX)
	PREFETCH8(1024, DX)
	PREFETCH8(1024, CX)

	MOVQ    y+40(FP), R12
	MOVQ    ldy+48(FP), R13
	SHLQ    $2, R13
	MOVQ    ycs+56(FP), BX
	SHLQ    $2, BX
	MOVBLZX acc+64(FP), CX
	TESTQ   CX, CX
	JNZ     add83z
	PUT24
	VZEROUPPER
	RET

add83z:
	ADD24
	VZEROUPPER
	RET
