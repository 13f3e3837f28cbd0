package host

// WrapJudgeSplit is WrapJudge with a small split limit, for tests.
func WrapJudgeSplit(name string, impl Judge, splitBytes int) *PluginJudge {
	j := WrapJudge(name, impl)
	j.split = splitBytes
	return j
}
