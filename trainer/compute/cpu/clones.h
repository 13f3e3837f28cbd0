// The compile attributes the backend's C files share.
#ifndef MASCOT_CLONES_H
#define MASCOT_CLONES_H

// CLONES builds a function once per x86-64 level (v4: AVX-512, v3:
// AVX2+FMA, baseline); the program picks the widest the CPU has when it
// loads. Elsewhere there is one build, for the target's own vector unit
// (NEON on arm64).
#if defined(__x86_64__)
#define CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

// Helpers are always inlined: left to itself GCC 12 called fexp out of
// line, scalar, from the AVX2 clone of mascot_swiglu_bwd.
#define INLINE static inline __attribute__((always_inline))

#endif
