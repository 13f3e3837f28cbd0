package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ptxKey names a compiled module: the SHA-256 of the kernel source, the
// NVRTC options (the target architecture among them) and the NVRTC
// version, so a changed kernel, another GPU generation or another NVRTC
// never reads a stale PTX.
func ptxKey(src string, opts []string, nvrtcVersion string) string {
	h := sha256.New()
	for _, part := range append([]string{src, nvrtcVersion}, opts...) {
		fmt.Fprintf(h, "%d:%s\x00", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ptxDir is where compiled PTX is kept: mascot/cuda-ptx under the user's
// cache directory ($XDG_CACHE_HOME, else ~/.cache), or under the system
// temporary directory when there is no home.
func ptxDir() string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "mascot", "cuda-ptx")
}

// ptxPath is the cache file of key in dir.
func ptxPath(dir, key string) string { return filepath.Join(dir, key+".ptx") }

// readPTX returns the cached PTX of key, if any. A file that is not PTX
// (truncated, or overwritten by something else) counts as absent.
func readPTX(dir, key string) ([]byte, bool) {
	b, err := os.ReadFile(ptxPath(dir, key))
	if err != nil || !strings.Contains(string(b), ".entry") {
		return nil, false
	}
	return b, true
}

// writePTX stores ptx under key atomically (a temporary file renamed into
// place), so a concurrent reader sees the whole file or none.
func writePTX(dir, key string, ptx []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("caching PTX: %w", err)
	}
	f, err := os.CreateTemp(dir, key+".*.tmp")
	if err != nil {
		return fmt.Errorf("caching PTX: %w", err)
	}
	_, werr := f.Write(ptx)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("caching PTX: %w", errors.Join(werr, cerr))
	}
	if err := os.Rename(f.Name(), ptxPath(dir, key)); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("caching PTX: %w", err)
	}
	return nil
}
