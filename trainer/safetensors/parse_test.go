package safetensors

import "bytes"

// parse reads safetensors data held in memory.
func parse(b []byte) (map[string]*Tensor, map[string]string, error) {
	return Read(bytes.NewReader(b), int64(len(b)))
}
