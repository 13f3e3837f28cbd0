package dialogue

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
)

// hashParts hashes a seed and a list of strings into 64 bits (FNV-1a with
// separators), the root of every derived random decision.
func hashParts(seed int64, parts ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

// rngFor returns a generator that depends only on seed and parts.
func rngFor(seed int64, parts ...string) *rand.Rand {
	s := hashParts(seed, parts...)
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// reqSeed is the per-request sampling seed sent to the server (31 bits so
// every server accepts it).
func reqSeed(seed int64, parts ...string) int {
	return int(hashParts(seed, parts...) & 0x7fffffff)
}
