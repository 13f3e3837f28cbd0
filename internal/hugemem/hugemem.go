package hugemem

import "unsafe"

// pageBytes is the huge page size on amd64 and arm64 Linux.
const pageBytes = 2 << 20

// Floats returns n zeroed float32s starting on a 2 MB boundary, asked to
// be backed by huge pages before they are first touched (Linux; elsewhere
// an ordinary slice). The slab stays on the Go heap: it lives while any
// slice of it does. Below 2 MB it is an ordinary slice.
func Floats(n int) []float32 {
	if n*4 < pageBytes {
		return make([]float32, n)
	}
	buf := make([]float32, n+pageBytes/4)
	off := toPage(unsafe.Pointer(&buf[0])) / 4
	s := buf[off : off+n : off+n]
	_ = advise(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), n*4)) // refused: small pages
	return s
}

// toPage is how many bytes from p the next 2 MB boundary is (0 on one).
func toPage(p unsafe.Pointer) int {
	return (pageBytes - int(uintptr(p)%pageBytes)) % pageBytes
}
