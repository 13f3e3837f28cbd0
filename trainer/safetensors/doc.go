// Package safetensors reads and writes the Hugging Face safetensors format
// (docs/design/safetensors.md): an 8-byte little-endian header length, a JSON header, then
// one flat little-endian byte buffer.
//
// Layer: trainer, below qwen3 and lora. It knows nothing about models; it
// turns files into named float32 tensors and back.
//
// Choices:
//   - Reading is strict, like the reference implementation's validate():
//     the header length is capped (100 MB and the file size), keys must be
//     unique, offsets must tile the data buffer exactly with no gaps,
//     overlaps or trailing bytes, and every tensor's byte size must equal
//     product(shape)·dtype size. A hostile or truncated file is an error,
//     never a panic, and nothing is allocated before the header has been
//     checked against the real file size.
//   - BF16, F16 and F32 are converted to float32 on read; other dtypes are
//     listed by ReadHeader but rejected by the converting readers.
//   - Files are read with ReadAt one tensor at a time (no mmap), so peak
//     memory is the float32 result plus one tensor's raw bytes.
//   - Writing lays tensors out sorted by name and pads the JSON header with
//     spaces to a multiple of 8, as the reference writer does.
//
// Fuzzing: go test ./trainer/safetensors -run '^$' -fuzz FuzzRead -fuzztime 60s
package safetensors
