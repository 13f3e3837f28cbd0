package serve

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
)

type completionResp struct {
	Choices []struct {
		Index    int    `json:"index"`
		Text     string `json:"text"`
		TokenIDs []int  `json:"token_ids"`
	} `json:"choices"`
}

func complete(t *testing.T, url string, body map[string]any) completionResp {
	t.Helper()
	code, b := post(t, url+"/completions", body)
	if code != http.StatusOK {
		t.Fatalf("completions: %d %s", code, b)
	}
	var r completionResp
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSeedsOnCompletions: on /v1/completions a seed fixes the tokens
// across runs and beside other requests; choice i of n draws the stream
// PCG(seed, i), so n = 1 gives choice 0 of n = 3, and the three choices
// differ; another seed gives other tokens; without a seed each request
// draws a fresh one.
func TestSeedsOnCompletions(t *testing.T) {
	_, url := startServer(t, Options{})
	body := func(seed any, n int) map[string]any {
		b := map[string]any{"model": "tiny", "prompt": "Once upon a time", "max_tokens": 20, "temperature": 1,
			"n": n, "return_token_ids": true}
		if seed != nil {
			b["seed"] = seed
		}
		return b
	}
	three := complete(t, url, body(77, 3))
	if len(three.Choices) != 3 {
		t.Fatalf("n=3 gave %d choices", len(three.Choices))
	}
	if three.Choices[0].Text == three.Choices[1].Text || three.Choices[1].Text == three.Choices[2].Text {
		t.Errorf("the choices of one seed are not independent: %q", []string{three.Choices[0].Text, three.Choices[1].Text, three.Choices[2].Text})
	}
	if one := complete(t, url, body(77, 1)); one.Choices[0].Text != three.Choices[0].Text {
		t.Errorf("n=1 seed 77 gave %q, choice 0 of n=3 %q", one.Choices[0].Text, three.Choices[0].Text)
	}
	// The same request beside two others, started together.
	var wg sync.WaitGroup
	var again completionResp
	for i := range 3 {
		wg.Go(func() {
			if i == 0 {
				again = complete(t, url, body(77, 3))
				return
			}
			complete(t, url, body(1000+i, 2))
		})
	}
	wg.Wait()
	for i := range three.Choices {
		if again.Choices[i].Text != three.Choices[i].Text {
			t.Errorf("choice %d with company %q, alone %q", i, again.Choices[i].Text, three.Choices[i].Text)
		}
	}
	if other := complete(t, url, body(78, 1)); other.Choices[0].Text == three.Choices[0].Text {
		t.Errorf("seeds 77 and 78 gave the same text %q", other.Choices[0].Text)
	}
	a, b := complete(t, url, body(nil, 1)), complete(t, url, body(nil, 1))
	if a.Choices[0].Text == b.Choices[0].Text {
		t.Errorf("two unseeded requests gave the same text %q: each should draw its own seed", a.Choices[0].Text)
	}
}
