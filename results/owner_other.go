//go:build !unix

package results

// processAlive cannot tell here; the heartbeat decides.
func processAlive(int) bool { return true }
