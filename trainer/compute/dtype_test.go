package compute

import "testing"

func TestDTypeSizes(t *testing.T) {
	for dt, want := range map[DType]int{F32: 4, BF16: 2, I32: 4} {
		if dt.Size() != want {
			t.Errorf("%s size %d, want %d", dt, dt.Size(), want)
		}
	}
}
