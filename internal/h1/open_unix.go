//go:build unix

package h1

import (
	"net"
	"syscall"
)

// open reports whether the server has neither closed nc nor sent bytes
// on it, without blocking: a peek at its socket.
func open(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read yet: open. 0 bytes: closed. Bytes: a reply to
		// nothing, the connection is not fit for a request either.
		alive = n <= 0 && (err == syscall.EAGAIN || err == syscall.EWOULDBLOCK)
		return true // answered; do not wait for the socket
	})
	return alive && err == nil
}
