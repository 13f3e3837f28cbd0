package schema

import "testing"

func TestCheckIdentifierFollowsTheSchema(t *testing.T) {
	for name, ok := range map[string]bool{
		"judge-chat": true, "a_1": true, "x": true,
		"": false, "../x": false, "Judge": false, "1a": false, "a/b": false, "a b": false,
	} {
		if err := CheckIdentifier(name); (err == nil) != ok {
			t.Errorf("CheckIdentifier(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}
