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

// PREFETCH8 starts the eight cache lines 2 KiB past R, where the loop's
// prefetches stopped.
#define PREFETCH8(R) \
	PREFETCHT0 2048(R) \
	PREFETCHT0 2112(R) \
	PREFETCHT0 2176(R) \
	PREFETCHT0 2240(R) \
	PREFETCHT0 2304(R) \
	PREFETCHT0 2368(R) \
	PREFETCHT0 2432(R) \
	PREFETCHT0 2496(R)

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
