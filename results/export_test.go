package results

// UseWALVFS turns opening through results/walvfs on or off for the stores
// opened after it, for benchmarks that measure what the VFS saves; it
// returns the previous setting.
func UseWALVFS(on bool) bool {
	was := walVFS
	walVFS = on
	return was
}
