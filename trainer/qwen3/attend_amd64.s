#include "textflag.h"

// func wsumz(o *float32, p *float32, v *float32, ldv int, n int, d int)
//
// o[c] = Σ_{t<n} p[t]·v[t·ldv + c] for c < d (a multiple of 16): for each
// output, one fused multiply-add per position in position order from
// zero, whether its column is worked on in a block of 64 or of 16.
TEXT ·wsumz(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ v+16(FP), BX
	MOVQ ldv+24(FP), DX
	SHLQ $2, DX
	MOVQ n+32(FP), CX
	MOVQ d+40(FP), R8

block64:
	CMPQ   R8, $64
	JLT    block16
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ   BX, R9
	XORQ   AX, AX

loop64:
	CMPQ         AX, CX
	JGE          put64
	VBROADCASTSS (SI)(AX*4), Z4
	VFMADD231PS  (R9), Z4, Z0
	VFMADD231PS  64(R9), Z4, Z1
	VFMADD231PS  128(R9), Z4, Z2
	VFMADD231PS  192(R9), Z4, Z3
	ADDQ         DX, R9
	INCQ         AX
	JMP          loop64

put64:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ    $256, DI
	ADDQ    $256, BX
	SUBQ    $64, R8
	JMP     block64

block16:
	CMPQ   R8, $16
	JLT    done
	VPXORD Z0, Z0, Z0
	MOVQ   BX, R9
	XORQ   AX, AX

loop16:
	CMPQ         AX, CX
	JGE          put16
	VBROADCASTSS (SI)(AX*4), Z4
	VFMADD231PS  (R9), Z4, Z0
	ADDQ         DX, R9
	INCQ         AX
	JMP          loop16

put16:
	VMOVUPS Z0, (DI)
	ADDQ    $64, DI
	ADDQ    $64, BX
	SUBQ    $16, R8
	JMP     block16

done:
	VZEROUPPER
	RET
