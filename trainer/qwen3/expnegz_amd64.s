#include "textflag.h"

// func expNegs8z(x *float64, n int, c *[13][4]float64)
//
// expNegs4 with eight lanes (AVX-512F): the same operations in the same
// order, so every value gets the Go loop's bits. The constants are
// broadcast into Z16–Z28 once.
TEXT ·expNegs8z(SB), NOSPLIT, $0-24
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         c+16(FP), DX
	SHLQ         $3, CX
	ADDQ         SI, CX
	VBROADCASTSD 0(DX), Z16   // log2(e)
	VBROADCASTSD 32(DX), Z17  // 0.5
	VBROADCASTSD 64(DX), Z18  // ln 2
	VBROADCASTSD 96(DX), Z19  // 1
	VBROADCASTSD 128(DX), Z20 // 1/2
	VBROADCASTSD 160(DX), Z21 // 1/6
	VBROADCASTSD 192(DX), Z22 // 1/24
	VBROADCASTSD 224(DX), Z23 // 1/120
	VBROADCASTSD 256(DX), Z24 // 1/720
	VBROADCASTSD 288(DX), Z25 // 1/5040
	VBROADCASTSD 320(DX), Z26 // 1/40320
	VBROADCASTSD 352(DX), Z27 // −708
	VBROADCASTSD 384(DX), Z28 // 1023

loopz:
	VMOVUPD     (SI), Z0      // v
	VMULPD      Z16, Z0, Z1   // v·log2e
	VSUBPD      Z17, Z1, Z1   // − 0.5
	VRNDSCALEPD $3, Z1, Z1    // k = trunc
	VMULPD      Z18, Z1, Z2   // k·ln2
	VSUBPD      Z2, Z0, Z2    // r = v − k·ln2
	VMULPD      Z2, Z2, Z3    // r2
	VMULPD      Z3, Z3, Z4    // r4
	VADDPD      Z19, Z2, Z5   // 1 + r
	VMULPD      Z21, Z2, Z6   // r·(1/6)
	VADDPD      Z20, Z6, Z6   // 1/2 + …
	VMULPD      Z6, Z3, Z6    // r2·(…)
	VADDPD      Z6, Z5, Z5    // (1 + r) + r2·(…)
	VMULPD      Z23, Z2, Z6   // r·(1/120)
	VADDPD      Z22, Z6, Z6   // 1/24 + …
	VMULPD      Z25, Z2, Z7   // r·(1/5040)
	VADDPD      Z24, Z7, Z7   // 1/720 + …
	VMULPD      Z7, Z3, Z7    // r2·(…)
	VADDPD      Z7, Z6, Z6    // (1/24 + …) + r2·(…)
	VMULPD      Z26, Z4, Z7   // r4·(1/40320)
	VADDPD      Z7, Z6, Z6    // … + r4/40320
	VMULPD      Z6, Z4, Z6    // r4·(…)
	VADDPD      Z6, Z5, Z5    // p
	VADDPD      Z28, Z1, Z1   // k + 1023
	VCVTTPD2DQ  Z1, Y8
	VPMOVZXDQ   Y8, Z8
	VPSLLQ      $52, Z8, Z8   // 2^k
	VMULPD      Z8, Z5, Z5    // p·2^k
	VCMPPD      $1, Z27, Z0, K1 // v < −708
	VPXORQ      Z5, Z5, K1, Z5  // … gives 0
	VMOVUPD     Z5, (SI)
	ADDQ        $64, SI
	CMPQ        SI, CX
	JLT         loopz
	VZEROUPPER
	RET
