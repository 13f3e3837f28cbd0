// Package syncbuf is a bytes.Buffer that goroutines may write and read at
// once: the sink tests give a process's stderr, a logger or a plugin host
// while they poll what was written.
//
// Layer: test support at the bottom; it imports only the standard library.
package syncbuf
