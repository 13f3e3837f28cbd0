package nli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// classify returns the predicted label of each (premise, hypothesis).
func (m *Metric) classify(ctx context.Context, prem, hyp []string) ([]string, error) {
	var body any
	path := "/classify"
	if m.cfg.API == "tei-predict" {
		path = "/predict"
		in := make([][2]string, len(prem))
		for i := range prem {
			in[i] = [2]string{prem[i], hyp[i]}
		}
		body = map[string]any{"inputs": in}
	} else {
		in := make([]string, len(prem))
		for i := range prem {
			in[i] = prem[i] + m.cfg.PairSeparator + hyp[i]
		}
		body = map[string]any{"model": m.cfg.Model, "input": in}
	}
	data, err := m.post(ctx, path, body)
	if err != nil {
		return nil, err
	}
	var labels []string
	if m.cfg.API == "tei-predict" {
		var out [][]struct {
			Label string  `json:"label"`
			Score float64 `json:"score"`
		}
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, fmt.Errorf("decoding /predict answer: %w", err)
		}
		for _, scores := range out {
			best, bs := "", -1.0
			for _, s := range scores {
				if s.Score > bs {
					best, bs = s.Label, s.Score
				}
			}
			labels = append(labels, best)
		}
	} else {
		var out struct {
			Data []struct {
				Label string `json:"label"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, fmt.Errorf("decoding /classify answer: %w", err)
		}
		for _, d := range out.Data {
			labels = append(labels, d.Label)
		}
	}
	if len(labels) != len(prem) {
		return nil, fmt.Errorf("NLI server returned %d labels for %d pairs", len(labels), len(prem))
	}
	return labels, nil
}

func (m *Metric) post(ctx context.Context, path string, body any) ([]byte, error) {
	b, _ := json.Marshal(body)
	u := strings.TrimSuffix(m.cfg.URL, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("building NLI request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if m.cfg.APIKeyEnv != "" {
		if k := os.Getenv(m.cfg.APIKeyEnv); k != "" {
			req.Header.Set("Authorization", "Bearer "+k)
		}
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("calling NLI server %s: %w", u, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("reading NLI answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("NLI server %s: HTTP %d: %.300s", u, resp.StatusCode, data)
	}
	return data, nil
}
