#include "textflag.h"
#include "dot8z_amd64.h"

// dot8x3zk is dot8x3z over one 512-float chunk of the inner dimension,
// for products whose eight input rows do not fit in L1 (48 KiB) beside
// the weight stream: over 1,536 floats the inputs take 48 KiB and every
// input load went to L2, where the kernel streamed 21–23 GB/s against 28–
// 29 by chunks (docs/benchmarks.md). The caller copies each chunk of the
// eight rows together (xp, 2 KiB apart) and goes over all the weight rows
// chunk by chunk; between chunks the 24 accumulators wait in part, so
// every output still gets one accumulator per lane, fed in k order, and
// the same tree at the end: dot8x3z's bits.

// func dot8x3zk(xp *float32, w *float32, ldw int, rowb int, part *float32, mode int, y *float32, ldy int, ycs int, acc bool)
//
// The chunk's products of the input rows xp + 512r (r < 8) with the
// weight rows w + j·ldw (j < 3, 512 floats each) are added to the
// accumulators: zero at first, part's 24 × 16 floats with mode&1. With
// mode&2 the sums go to y[r·ldy + j·ycs] (or are added to it with acc),
// else the accumulators go back to part. The next weight rows are rowb
// bytes on (the same chunk of the next row of each stream): the loop
// prefetches that row's chunk into L1 and the chunk of the row after it
// into L2 (DI, R14, R15). The L1 prefetches alone kept too few lines in
// flight where memory answered slowly: 11 GB/s against 17–18 with both
// (one thread, [512,1536], docs/benchmarks.md). R14 and R15 are free in
// an ABI0 function; it touches no global, which R15 would need when
// dynamically linked.
TEXT ·dot8x3zk(SB), NOSPLIT, $0-73
	MOVQ  part+32(FP), R12
	MOVQ  mode+40(FP), R13
	TESTQ $1, R13
	JZ    zero8k
	VMOVUPS 0(R12), Z0
	VMOVUPS 64(R12), Z1
	VMOVUPS 128(R12), Z2
	VMOVUPS 192(R12), Z3
	VMOVUPS 256(R12), Z4
	VMOVUPS 320(R12), Z5
	VMOVUPS 384(R12), Z6
	VMOVUPS 448(R12), Z7
	VMOVUPS 512(R12), Z8
	VMOVUPS 576(R12), Z9
	VMOVUPS 640(R12), Z10
	VMOVUPS 704(R12), Z11
	VMOVUPS 768(R12), Z12
	VMOVUPS 832(R12), Z13
	VMOVUPS 896(R12), Z14
	VMOVUPS 960(R12), Z15
	VMOVUPS 1024(R12), Z16
	VMOVUPS 1088(R12), Z17
	VMOVUPS 1152(R12), Z18
	VMOVUPS 1216(R12), Z19
	VMOVUPS 1280(R12), Z20
	VMOVUPS 1344(R12), Z21
	VMOVUPS 1408(R12), Z22
	VMOVUPS 1472(R12), Z23
	JMP start8k

zero8k:
	ZERO24

start8k:
	MOVQ $2048, AX
	MOVQ xp+0(FP), R8
	ADDQ AX, R8
	MOVQ w+8(FP), BX
	ADDQ AX, BX
	MOVQ ldw+16(FP), CX
	SHLQ $2, CX
	LEAQ (BX)(CX*1), DX
	LEAQ (DX)(CX*1), CX
	MOVQ rowb+24(FP), SI
	LEAQ (BX)(SI*1), R9
	LEAQ (DX)(SI*1), R10
	LEAQ (CX)(SI*1), R11
	LEAQ (R9)(SI*1), DI
	LEAQ (R10)(SI*1), R14
	LEAQ (R11)(SI*1), R15
	NEGQ AX

loop8k:
	PREFETCHT1  (DI)(AX*1)
	PREFETCHT1  (R14)(AX*1)
	PREFETCHT1  (R15)(AX*1)
	PREFETCHT0  (R9)(AX*1)
	PREFETCHT0  (R10)(AX*1)
	PREFETCHT0  (R11)(AX*1)
	VMOVUPS     (BX)(AX*1), Z24
	VMOVUPS     (DX)(AX*1), Z25
	VMOVUPS     (CX)(AX*1), Z26
	ROW3(0(R8)(AX*1), Z0, Z1, Z2)
	ROW3(2048(R8)(AX*1), Z3, Z4, Z5)
	ROW3(4096(R8)(AX*1), Z6, Z7, Z8)
	ROW3(6144(R8)(AX*1), Z9, Z10, Z11)
	ROW3(8192(R8)(AX*1), Z12, Z13, Z14)
	ROW3(10240(R8)(AX*1), Z15, Z16, Z17)
	ROW3(12288(R8)(AX*1), Z18, Z19, Z20)
	ROW3(14336(R8)(AX*1), Z21, Z22, Z23)
	ADDQ        $64, AX
	JNZ         loop8k

	// As in dot8x3z: keep memory busy through what follows with the
	// first lines of the chunk one row further on.
	LEAQ -2048(R9)(SI*1), R9
	LEAQ -2048(R10)(SI*1), R10
	LEAQ -2048(R11)(SI*1), R11
	PREFETCH8(0, R9)
	PREFETCH8(0, R10)
	PREFETCH8(0, R11)

	TESTQ $2, R13
	JNZ   finish8k
	VMOVUPS Z0, 0(R12)
	VMOVUPS Z1, 64(R12)
	VMOVUPS Z2, 128(R12)
	VMOVUPS Z3, 192(R12)
	VMOVUPS Z4, 256(R12)
	VMOVUPS Z5, 320(R12)
	VMOVUPS Z6, 384(R12)
	VMOVUPS Z7, 448(R12)
	VMOVUPS Z8, 512(R12)
	VMOVUPS Z9, 576(R12)
	VMOVUPS Z10, 640(R12)
	VMOVUPS Z11, 704(R12)
	VMOVUPS Z12, 768(R12)
	VMOVUPS Z13, 832(R12)
	VMOVUPS Z14, 896(R12)
	VMOVUPS Z15, 960(R12)
	VMOVUPS Z16, 1024(R12)
	VMOVUPS Z17, 1088(R12)
	VMOVUPS Z18, 1152(R12)
	VMOVUPS Z19, 1216(R12)
	VMOVUPS Z20, 1280(R12)
	VMOVUPS Z21, 1344(R12)
	VMOVUPS Z22, 1408(R12)
	VMOVUPS Z23, 1472(R12)
	VZEROUPPER
	RET

finish8k:
	MOVQ    y+48(FP), R12
	MOVQ    ldy+56(FP), R13
	SHLQ    $2, R13
	MOVQ    ycs+64(FP), BX
	SHLQ    $2, BX
	MOVBLZX acc+72(FP), CX
	TESTQ   CX, CX
	JNZ     add8k
	PUT24
	VZEROUPPER
	RET

add8k:
	ADD24
	VZEROUPPER
	RET
