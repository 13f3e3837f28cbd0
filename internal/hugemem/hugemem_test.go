package hugemem

import (
	"testing"
	"unsafe"
)

// TestFloatsAreAlignedZeroedAndTheirOwn checks what callers rely on: n
// zeroed floats, a slab of 2 MB or more starting on a 2 MB boundary (the
// kernel backs only whole aligned 2 MB ranges with huge pages), and a
// capacity of exactly n, so appending to a tensor carved from it can
// never write into its neighbour.
func TestFloatsAreAlignedZeroedAndTheirOwn(t *testing.T) {
	for _, n := range []int{1, 1000, pageBytes/4 - 1, pageBytes / 4, 3*pageBytes/4 + 17} {
		s := Floats(n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Floats(%d): len %d cap %d", n, len(s), cap(s))
		}
		if addr := uintptr(unsafe.Pointer(&s[0])); n*4 >= pageBytes && addr%pageBytes != 0 {
			t.Errorf("Floats(%d) starts at %#x, not on a 2 MB boundary", n, addr)
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("Floats(%d)[%d] = %v, want 0", n, i, v)
			}
		}
		for i := range s {
			s[i] = float32(i)
		}
		if s[n-1] != float32(n-1) {
			t.Fatalf("Floats(%d): last element %v", n, s[n-1])
		}
	}
}
