// Macros of the eight-row kernels (dot8z_amd64.s, dot8zk_amd64.s).

// REDUCE8 leaves s of the accumulator Z (whose low half is Y) in X28[0]:
// REDUCEZ's pairs in its order, in registers the accumulators leave free.
#define REDUCE8(Z, Y) \
	VEXTRACTF64X4 $1, Z, Y28 \
	VADDPS        Y, Y28, Y28 \
	VEXTRACTF32X4 $1, Y28, X29 \
	VADDPS        X28, X29, X28 \
	VMOVHLPS      X28, X28, X29 \
	VADDPS        X29, X28, X28 \
	VMOVSHDUP     X28, X29 \
	VADDSS        X29, X28, X28

// ZERO8 zeroes the first eight accumulators, ZERO24 all of them.
#define ZERO8 \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7

#define ZERO24 \
	ZERO8 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23

// ROW3 multiplies the input vector at X by the three weight vectors
// (Z24–Z26) into the accumulators A, B and C: one input row's step.
#define ROW3(X, A, B, C) \
	VMOVUPS     X, Z27 \
	VFMADD231PS Z24, Z27, A \
	VFMADD231PS Z25, Z27, B \
	VFMADD231PS Z26, Z27, C

// PREFETCH8 starts the eight cache lines from OFF bytes past R: the
// eight-row kernels issue it before their reductions, past where the
// loop's prefetches stopped.
#define PREFETCH8(OFF, R) \
	PREFETCHT0 OFF+0(R) \
	PREFETCHT0 OFF+64(R) \
	PREFETCHT0 OFF+128(R) \
	PREFETCHT0 OFF+192(R) \
	PREFETCHT0 OFF+256(R) \
	PREFETCHT0 OFF+320(R) \
	PREFETCHT0 OFF+384(R) \
	PREFETCHT0 OFF+448(R)

#define PUT8(Z, Y, m) \
	REDUCE8(Z, Y) \
	VMOVSS X28, m

#define ADD8(Z, Y, m) \
	REDUCE8(Z, Y) \
	VADDSS m, X28, X28 \
	VMOVSS X28, m

// PUT24 stores the 24 accumulators' sums: row r's (R12 + r·R13) at 0,
// BX and 2·BX bytes. ADD24 adds them to what is there. Both move R12.
#define PUT24 \
	PUT8(Z0, Y0, 0(R12)) \
	PUT8(Z1, Y1, (R12)(BX*1)) \
	PUT8(Z2, Y2, (R12)(BX*2)) \
	ADDQ R13, R12 \
	PUT8(Z3, Y3, 0(R12)) \
	PUT8(Z4, Y4, (R12)(BX*1)) \
	PUT8(Z5, Y5, (R12)(BX*2)) \
	ADDQ R13, R12 \
	PUT8(Z6, Y6, 0(R12)) \
	PUT8(Z7, Y7, (R12)(BX*1)) \
	PUT8(Z8, Y8, (R12)(BX*2)) \
	ADDQ R13, R12 \
	PUT8(Z9, Y9, 0(R12)) \
	PUT8(Z10, Y10, (R12)(BX*1)) \
	PUT8(Z11, Y11, (R12)(BX*2)) \
	ADDQ R13, R12 \
	PUT8(Z12, Y12, 0(R12)) \
	PUT8(Z13, Y13, (R12)(BX*1)) \
	PUT8(Z14, Y14, (R12)(BX*2)) \
	ADDQ R13, R12 \
	PUT8(Z15, Y15, 0(R12)) \
	PUT8(Z16, Y16, (R12)(BX*1)) \
	PUT8(Z17, Y17, (R12)(BX*2)) \
	ADDQ R13, R12 \
	PUT8(Z18, Y18, 0(R12)) \
	PUT8(Z19, Y19, (R12)(BX*1)) \
	PUT8(Z20, Y20, (R12)(BX*2)) \
	ADDQ R13, R12 \
	PUT8(Z21, Y21, 0(R12)) \
	PUT8(Z22, Y22, (R12)(BX*1)) \
	PUT8(Z23, Y23, (R12)(BX*2))

#define ADD24 \
	ADD8(Z0, Y0, 0(R12)) \
	ADD8(Z1, Y1, (R12)(BX*1)) \
	ADD8(Z2, Y2, (R12)(BX*2)) \
	ADDQ R13, R12 \
	ADD8(Z3, Y3, 0(R12)) \
	ADD8(Z4, Y4, (R12)(BX*1)) \
	ADD8(Z5, Y5, (R12)(BX*2)) \
	ADDQ R13, R12 \
	ADD8(Z6, Y6, 0(R12)) \
	ADD8(Z7, Y7, (R12)(BX*1)) \
	ADD8(Z8, Y8, (R12)(BX*2)) \
	ADDQ R13, R12 \
	ADD8(Z9, Y9, 0(R12)) \
	ADD8(Z10, Y10, (R12)(BX*1)) \
	ADD8(Z11, Y11, (R12)(BX*2)) \
	ADDQ R13, R12 \
	ADD8(Z12, Y12, 0(R12)) \
	ADD8(Z13, Y13, (R12)(BX*1)) \
	ADD8(Z14, Y14, (R12)(BX*2)) \
	ADDQ R13, R12 \
	ADD8(Z15, Y15, 0(R12)) \
	ADD8(Z16, Y16, (R12)(BX*1)) \
	ADD8(Z17, Y17, (R12)(BX*2)) \
	ADDQ R13, R12 \
	ADD8(Z18, Y18, 0(R12)) \
	ADD8(Z19, Y19, (R12)(BX*1)) \
	ADD8(Z20, Y20, (R12)(BX*2)) \
	ADDQ R13, R12 \
	ADD8(Z21, Y21, 0(R12)) \
	ADD8(Z22, Y22, (R12)(BX*1)) \
	ADD8(Z23, Y23, (R12)(BX*2))
