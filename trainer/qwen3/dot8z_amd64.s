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
// apart, three long streams through the range as dot4x3's, each
// prefetched 2 KiB ahead as dot4x4z's. The rows' pointers are set to the
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
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23

loop83z:
	PREFETCHT0  2048(BX)(AX*1)
	PREFETCHT0  2048(DX)(AX*1)
	PREFETCHT0  2048(CX)(AX*1)
	VMOVUPS     (BX)(AX*1), Z24
	VMOVUPS     (DX)(AX*1), Z25
	VMOVUPS     (CX)(AX*1), Z26
	VMOVUPS     (R8)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z0
	VFMADD231PS Z25, Z27, Z1
	VFMADD231PS Z26, Z27, Z2
	VMOVUPS     (R9)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z3
	VFMADD231PS Z25, Z27, Z4
	VFMADD231PS Z26, Z27, Z5
	VMOVUPS     (R10)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z6
	VFMADD231PS Z25, Z27, Z7
	VFMADD231PS Z26, Z27, Z8
	VMOVUPS     (R11)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z9
	VFMADD231PS Z25, Z27, Z10
	VFMADD231PS Z26, Z27, Z11
	VMOVUPS     (R12)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z12
	VFMADD231PS Z25, Z27, Z13
	VFMADD231PS Z26, Z27, Z14
	VMOVUPS     (R13)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z15
	VFMADD231PS Z25, Z27, Z16
	VFMADD231PS Z26, Z27, Z17
	VMOVUPS     (SI)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z18
	VFMADD231PS Z25, Z27, Z19
	VFMADD231PS Z26, Z27, Z20
	VMOVUPS     (DI)(AX*1), Z27
	VFMADD231PS Z24, Z27, Z21
	VFMADD231PS Z25, Z27, Z22
	VFMADD231PS Z26, Z27, Z23
	ADDQ        $64, AX
	JNZ         loop83z

	// The loop's prefetches end 2 KiB past these rows (the whole next
	// rows of each stream at n = 512). The reductions below take about
	// as long as reading a third of a 2 KiB row, and with no read under
	// way memory would idle through them: the next eight lines of each
	// stream keep it busy (one thread streamed a third more bytes per
	// second with them, docs/benchmarks.md).
	PREFETCH8(BX)
	PREFETCH8(DX)
	PREFETCH8(CX)

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
