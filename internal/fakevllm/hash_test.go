package fakevllm

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// refRNG is rng as first written, with hash/fnv: the replies a spec gets
// for a seed must not change with the server's speed.
func refRNG(p *prompt, i int, salt string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(p.model))
	for _, m := range p.msgs {
		h.Write([]byte{0})
		h.Write([]byte(m))
	}
	if len(p.msgs) == 0 {
		h.Write([]byte(p.all))
	}
	if p.seed != nil {
		fmt.Fprintf(h, "\x01seed=%d", *p.seed)
	}
	fmt.Fprintf(h, "\x01choice=%d\x01%s", i, salt)
	x := h.Sum64()
	return rand.New(rand.NewPCG(x, x^0xda3e39cb94b95bdb))
}

func TestRNGIsFNV1aOfThePrompt(t *testing.T) {
	seed := int64(-7)
	for _, p := range []*prompt{
		{model: "m", msgs: []string{"system\x00You are Ana.", "user\x00hello  there\n"}},
		{model: "m", msgs: []string{"user\x00é ünïcode \u00a0 ok"}, seed: &seed},
		{model: "", all: "a completion prompt"},
	} {
		for i := range 3 {
			for _, salt := range []string{"id", "text", "pick"} {
				// twice: the second reuses the hashed messages
				for range 2 {
					if got, want := p.rng(i, salt).Uint64(), refRNG(p, i, salt).Uint64(); got != want {
						t.Fatalf("%q choice %d %s: %x, want %x", p.msgs, i, salt, got, want)
					}
				}
			}
		}
	}
}

func TestCountWordsIsFieldsLength(t *testing.T) {
	for _, s := range []string{"", " ", "one", " two  words ", "tab\tand\nnewline\r\n", "nbsp\u00a0split", "em\u2003space",
		"bad \xff utf8 \xfe\xfd", strings.Repeat("word ", 500)} {
		if got, want := countWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestMessageTextOfEveryContentShape: a content is read as the server read
// it when it held the raw JSON (a string, a list of text parts, anything
// else empty).
func TestMessageTextOfEveryContentShape(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain \"quoted\"\nline"`:                                "plain \"quoted\"\nline",
		`[{"type":"text","text":"a"},{"type":"text","text":"b"}]`: "ab",
		`[{"type":"image_url"},{"text":null},{"text":"c"}]`:       "c",
		`[{"text":1}]`: "",
		`["x"]`:        "",
		`null`:         "",
		`42`:           "",
	} {
		// decoded as the server decodes a request
		body := `{"messages":[{"role":"user","content":` + raw + `}]}`
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		var req chatRequest
		if err := decodeBody(r, &req); err != nil {
			t.Fatal(err)
		}
		if got := req.Messages[0].text(); got != want {
			t.Errorf("content %s: text %q, want %q", raw, got, want)
		}
	}
}
