//go:build !linux

package hugemem

func advise([]byte) {}
