#include "textflag.h"

DATA swigluOne<>+0(SB)/8, $1.0
GLOBL swigluOne<>(SB), RODATA|NOPTR, $8

// func swiglu8(gate *float32, ex *float64, up *float32, n int)
//
// swiGLU's last loop eight at a time (n a positive multiple of 8), with
// its operations in its order: x = float64(g[i]); k = e[i] where x < 0,
// else 1; s = x·k / (1 + e[i]); g[i] = float32(s) · u[i].
TEXT ·swiglu8(SB), NOSPLIT, $0-32
	MOVQ         gate+0(FP), DI
	MOVQ         ex+8(FP), SI
	MOVQ         up+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSD swigluOne<>(SB), Z7
	VPXORQ       Z6, Z6, Z6
	XORQ         AX, AX

loop:
	VCVTPS2PD  (DI)(AX*4), Z0
	VMOVUPD    (SI)(AX*8), Z1
	VADDPD     Z7, Z1, Z2
	VCMPPD     $1, Z6, Z0, K1
	VMOVAPD    Z7, Z3
	VMOVAPD    Z1, K1, Z3
	VMULPD     Z3, Z0, Z4
	VDIVPD     Z2, Z4, Z4
	VCVTPD2PS  Z4, Y4
	VMULPS     (DX)(AX*4), Y4, Y4
	VMOVUPS    Y4, (DI)(AX*4)
	ADDQ       $8, AX
	CMPQ       AX, CX
	JLT        loop
	VZEROUPPER
	RET
