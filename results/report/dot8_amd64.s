#include "textflag.h"

// func dotLanes8(w, x0, x1, x2, x3, x4, x5, x6, x7 []float64, out *[32]float64)
//
// dotLanes4 for eight columns with AVX: for i < len(w) (a multiple of 4),
// out[4k+l] += w[i]·col_k[i] for every i ≡ l (mod 4), each lane summed in
// ascending i. VMULPD/VADDPD on the four lanes are the scalar MULSD/ADDSD of
// dot (no fused multiply-add), so the partial sums are dot's, bit for bit;
// the eight columns are eight independent accumulators.
TEXT ·dotLanes8(SB), NOSPLIT, $0-224
	MOVQ w_base+0(FP), SI
	MOVQ w_len+8(FP), CX
	MOVQ x0_base+24(FP), R8
	MOVQ x1_base+48(FP), R9
	MOVQ x2_base+72(FP), R10
	MOVQ x3_base+96(FP), R11
	MOVQ x4_base+120(FP), R12
	MOVQ x5_base+144(FP), R13
	MOVQ x6_base+168(FP), DX
	MOVQ x7_base+192(FP), BX
	MOVQ out+216(FP), DI
	VMOVUPD 0(DI), Y8
	VMOVUPD 32(DI), Y9
	VMOVUPD 64(DI), Y10
	VMOVUPD 96(DI), Y11
	VMOVUPD 128(DI), Y12
	VMOVUPD 160(DI), Y13
	VMOVUPD 192(DI), Y14
	VMOVUPD 224(DI), Y15
	SHLQ $3, CX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPD (SI)(AX*1), Y0
	VMULPD  (R8)(AX*1), Y0, Y1
	VMULPD  (R9)(AX*1), Y0, Y2
	VMULPD  (R10)(AX*1), Y0, Y3
	VMULPD  (R11)(AX*1), Y0, Y4
	VADDPD  Y1, Y8, Y8
	VADDPD  Y2, Y9, Y9
	VADDPD  Y3, Y10, Y10
	VADDPD  Y4, Y11, Y11
	VMULPD  (R12)(AX*1), Y0, Y5
	VMULPD  (R13)(AX*1), Y0, Y6
	VMULPD  (DX)(AX*1), Y0, Y7
	VMULPD  (BX)(AX*1), Y0, Y1
	VADDPD  Y5, Y12, Y12
	VADDPD  Y6, Y13, Y13
	VADDPD  Y7, Y14, Y14
	VADDPD  Y1, Y15, Y15
	ADDQ    $32, AX
	JMP     loop

done:
	VMOVUPD Y8, 0(DI)
	VMOVUPD Y9, 32(DI)
	VMOVUPD Y10, 64(DI)
	VMOVUPD Y11, 96(DI)
	VMOVUPD Y12, 128(DI)
	VMOVUPD Y13, 160(DI)
	VMOVUPD Y14, 192(DI)
	VMOVUPD Y15, 224(DI)
	VZEROUPPER
	RET
