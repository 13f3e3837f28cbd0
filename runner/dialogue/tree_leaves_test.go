package dialogue

// Leaves returns the ids of nodes without children, in id order.
func (t Tree) Leaves() []int {
	var out []int
	for _, n := range t.Nodes {
		if len(n.Children) == 0 {
			out = append(out, n.ID)
		}
	}
	return out
}
