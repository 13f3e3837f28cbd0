package hugeheap

import (
	"os"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on with 4 KiB base pages (x86-64, arm64).
const hugePage = 2 << 20

// enabledPath holds the kernel's THP mode, the selected one in brackets
// (a variable for the tests).
var enabledPath = "/sys/kernel/mm/transparent_hugepage/enabled"

// Advise marks the whole huge pages of a fresh n-byte block of heap
// MADV_HUGEPAGE, then frees the block (one collection) for the allocator
// to reuse, when the kernel's THP mode is "madvise". It returns the bytes
// advised (0 where nothing was to be done).
func Advise(n int) (int, error) {
	if n < 2*hugePage || mode() != "madvise" {
		return 0, nil
	}
	b := make([]byte, n)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((base+hugePage-1)&^(hugePage-1) - base)
	hi := int((base+uintptr(n))&^(hugePage-1) - base)
	var err error
	if hi > lo {
		err = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	}
	runtime.KeepAlive(b)
	runtime.GC()
	if err != nil || hi <= lo {
		return 0, err
	}
	return hi - lo, nil
}

// mode is the kernel's THP mode ("always", "madvise", "never"), or "" if
// it cannot be read.
func mode() string {
	raw, err := os.ReadFile(enabledPath)
	if err != nil {
		return ""
	}
	s := string(raw)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}
