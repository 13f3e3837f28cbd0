package results

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewRunID returns a fresh, sortable run id: UTC time plus 4 random bytes,
// e.g. 20261202-171345-9f3a61c2.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
