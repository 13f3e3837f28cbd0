#include "textflag.h"

// func expNegs4(x *float64, n int, c *[13][4]float64)
//
// ExpNegs on n values (a multiple of 4), four at a time, with exactly the
// operations of the Go loop in expneg.go, in its order and without fused
// multiply-adds, so every value gets the same bits as the Go code gives
// it. c holds the constants, each four times: log2(e), 0.5, ln 2, 1, 1/2,
// 1/6, 1/24, 1/120, 1/720, 1/5040, 1/40320, −708, 1023.
TEXT ·expNegs4(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ c+16(FP), DX
	SHLQ $3, CX
	ADDQ SI, CX

loop:
	VMOVUPD   (SI), Y0           // v
	VMULPD    0(DX), Y0, Y1      // v·log2e
	VSUBPD    32(DX), Y1, Y1     // − 0.5
	VROUNDPD  $3, Y1, Y1         // k = trunc
	VMULPD    64(DX), Y1, Y2     // k·ln2
	VSUBPD    Y2, Y0, Y2         // r = v − k·ln2
	VMULPD    Y2, Y2, Y3         // r2
	VMULPD    Y3, Y3, Y4         // r4
	VADDPD    96(DX), Y2, Y5     // 1 + r
	VMULPD    160(DX), Y2, Y6    // r·(1/6)
	VADDPD    128(DX), Y6, Y6    // 1/2 + …
	VMULPD    Y6, Y3, Y6         // r2·(…)
	VADDPD    Y6, Y5, Y5         // (1 + r) + r2·(…)
	VMULPD    224(DX), Y2, Y6    // r·(1/120)
	VADDPD    192(DX), Y6, Y6    // 1/24 + …
	VMULPD    288(DX), Y2, Y7    // r·(1/5040)
	VADDPD    256(DX), Y7, Y7    // 1/720 + …
	VMULPD    Y7, Y3, Y7         // r2·(…)
	VADDPD    Y7, Y6, Y6         // (1/24 + …) + r2·(…)
	VMULPD    320(DX), Y4, Y7    // r4·(1/40320)
	VADDPD    Y7, Y6, Y6         // … + r4/40320
	VMULPD    Y6, Y4, Y6         // r4·(…)
	VADDPD    Y6, Y5, Y5         // p
	VADDPD    384(DX), Y1, Y1    // k + 1023
	VCVTTPD2DQY Y1, X8
	VPMOVZXDQ X8, Y8
	VPSLLQ    $52, Y8, Y8        // 2^k
	VMULPD    Y8, Y5, Y5         // p·2^k
	VCMPPD    $1, 352(DX), Y0, Y9 // v < −708
	VANDNPD   Y5, Y9, Y5         // … gives 0
	VMOVUPD   Y5, (SI)
	ADDQ      $32, SI
	CMPQ      SI, CX
	JLT       loop
	VZEROUPPER
	RET
