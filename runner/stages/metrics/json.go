package metrics

import (
	"encoding/json"
	"fmt"
)

func jsonOf(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding metric config: %w", err)
	}
	return b, nil
}
