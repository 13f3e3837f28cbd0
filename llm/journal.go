package llm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Journal makes a Client's counters exact under kills. The client calls
// Sending before every HTTP attempt of a request that has a CacheKey and
// sends the attempt only once the record is durable, carrying the id
// Sending returned (header X-Request-Id, which vLLM takes as the request
// id it logs).
// Settled then says the attempts' outcomes are known: the reply is handed
// to Cache.Put with their ids (Response.RequestIDs), or the request
// failed. An attempt that is recorded and never settled was in flight
// when the process died: it was counted as sent, and its usage is
// unknown. The runner implements Journal on SQLite, next to its Cache.
type Journal interface {
	// Sending durably records that attempt n (1-based) of the request
	// under key, made for role, is about to be sent, and returns its id.
	Sending(ctx context.Context, key, role string, attempt int) (id string, err error)
	// Settled records that the outcomes of these attempts are known
	// (a failure, or a reply that Cache.Put stores with them).
	Settled(ids []string)
}

// RequestIDHeader carries an attempt's journal id to the server.
const RequestIDHeader = "X-Request-Id"

// DeriveSeed is the sampling seed of a request that names none: a function
// of the run's seed and the request's cache key (the unit fingerprint,
// the role, the call's position and its sample index), so a rerun, a
// resumed run and a replay send every request with the seed it had, and
// two requests of a run never share one by accident. It is a positive
// 31-bit value, which every server accepts.
func DeriveSeed(runSeed int64, key string) int {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(runSeed))
	h.Write(b[:])
	h.Write([]byte(key))
	sum := h.Sum(nil)
	return int(binary.LittleEndian.Uint32(sum[:4]) & 0x7fffffff)
}

// offlineError is the failure of a request an offline client (a replay)
// would have had to send: nothing answers it, and it names the request so
// the user can tell which stage's inputs changed.
func offlineError(req Request, ep string) *Error {
	return &Error{Kind: KindOffline, Role: req.Role, Endpoint: ep,
		Message: fmt.Sprintf("request %s is not in the replayed run's replies: nothing may be sent offline", req.CacheKey)}
}
