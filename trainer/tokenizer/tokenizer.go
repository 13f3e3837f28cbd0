package tokenizer

import (
	"golang.org/x/text/unicode/norm"
)

// Tokenizer encodes text to token ids and back. It is safe for concurrent
// use. Build one with Load, Parse or NewByteLevel.
type Tokenizer struct {
	model  bpe
	tokens []string // id -> byte-level spelling (model) or content (added); "" = unused id
	added  []AddedToken
	// addedByID maps ids of added tokens into added.
	addedByID map[int]*AddedToken
	addedIDs  map[string]int // content -> id
	raw, nrm  *matcher       // added tokens matched before / after normalizing
	nfc       bool
	specials  SpecialIDs
	// maxBytesPerToken: see MaxBytesPerToken.
	maxBytesPerToken int
}

// MaxBytesPerToken bounds the bytes of text one token stands for: a text
// of more than n × MaxBytesPerToken() bytes never encodes to n tokens or
// fewer, so a server can refuse a prompt too long for its context before
// tokenizing it. 0 means no bound is known (a byte has no token and is
// dropped).
func (t *Tokenizer) MaxBytesPerToken() int { return t.maxBytesPerToken }

// bytesPerTokenBound is the longest spelling of any token, times 3 when
// the text is NFC-normalized first (composition shrinks a text at most
// threefold: a Hangul syllable from three jamo), or 0 when some byte has
// no token.
func (t *Tokenizer) bytesPerTokenBound() int {
	for _, id := range t.model.byteIDs {
		if id < 0 {
			return 0
		}
	}
	longest := 1
	for id := range t.tokens {
		longest = max(longest, len(t.appendToken(nil, id, false)))
	}
	if t.nfc {
		longest *= 3
	}
	return longest
}

// SpecialIDs are the ids the trainer and chat template need; -1 when the
// vocabulary lacks the token.
type SpecialIDs struct {
	EOS       int // end of a turn / generation stop: eos_token, "<|im_end|>" for Qwen3
	Pad       int // pad_token, "<|endoftext|>" for Qwen3
	EndOfText int // "<|endoftext|>"
	IMStart   int // "<|im_start|>"
	IMEnd     int // "<|im_end|>"
	Think     int // "<think>"
	EndThink  int // "</think>"
}

// Encode returns the token ids of text: added tokens are recognised in the
// raw text (as Hugging Face does with split_special_tokens=false), the rest
// is NFC-normalized (when the tokenizer says so), pre-tokenized and BPE
// encoded. No BOS or EOS is added.
func (t *Tokenizer) Encode(text string) []int {
	ids := make([]int, 0, len(text)/3+4)
	t.raw.split(text, rawContent, func(seg segment) {
		if seg.tok != nil {
			ids = append(ids, seg.tok.ID)
			return
		}
		s := seg.text
		if t.nfc {
			s = norm.NFC.String(s)
		}
		t.nrm.split(s, t.normContent, func(seg segment) {
			if seg.tok != nil {
				ids = append(ids, seg.tok.ID)
				return
			}
			splitQwen2(seg.text, func(piece string) {
				ids = t.model.appendWord(ids, piece)
			})
		})
	})
	return ids
}

// Decode returns the text of ids. Invalid UTF-8 produced by partial byte
// sequences is replaced by U+FFFD per maximal invalid subpart; unknown ids
// are skipped.
func (t *Tokenizer) Decode(ids []int) string { return t.decode(ids, false) }

// DecodeSkipSpecial is Decode without added tokens marked special (for
// Qwen3: <|im_end|>, <|endoftext|>, ... but not <think>, as in Hugging Face's
// skip_special_tokens=True).
func (t *Tokenizer) DecodeSkipSpecial(ids []int) string { return t.decode(ids, true) }

// DecodeBytes returns the raw bytes ids spell, without UTF-8 repair. Useful
// for streaming, where a character may be split across tokens.
func (t *Tokenizer) DecodeBytes(ids []int) []byte {
	var b []byte
	for _, id := range ids {
		b = t.appendToken(b, id, false)
	}
	return b
}

func (t *Tokenizer) decode(ids []int, skipSpecial bool) string {
	var b []byte
	for _, id := range ids {
		b = t.appendToken(b, id, skipSpecial)
	}
	return lossyUTF8(b)
}

func (t *Tokenizer) appendToken(b []byte, id int, skipSpecial bool) []byte {
	if id < 0 || id >= len(t.tokens) {
		return b
	}
	if a := t.addedByID[id]; a != nil {
		if skipSpecial && a.Special {
			return b
		}
		return append(b, a.Content...)
	}
	return appendUnByteLevel(b, t.tokens[id])
}

// TokenToID returns the id of a token given by its vocabulary spelling
// (byte-level characters for model tokens, content for added tokens).
func (t *Tokenizer) TokenToID(tok string) (int, bool) {
	if id, ok := t.addedIDs[tok]; ok {
		return id, true
	}
	id, ok := t.model.vocab[tok]
	return int(id), ok
}

// IDToToken returns the vocabulary spelling of id.
func (t *Tokenizer) IDToToken(id int) (string, bool) {
	if id < 0 || id >= len(t.tokens) || (t.tokens[id] == "" && t.addedByID[id] == nil) {
		return "", false
	}
	return t.tokens[id], true
}

// VocabSize is one more than the largest id (the embedding rows needed).
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// Specials returns the ids of the special tokens the trainer needs.
func (t *Tokenizer) Specials() SpecialIDs { return t.specials }

// AddedTokens returns a copy of the added tokens, by increasing id.
func (t *Tokenizer) AddedTokens() []AddedToken { return append([]AddedToken(nil), t.added...) }

// IsSpecial reports whether id is an added token marked special.
func (t *Tokenizer) IsSpecial(id int) bool {
	a := t.addedByID[id]
	return a != nil && a.Special
}

func rawContent(a *AddedToken) string { return a.Content }

func (t *Tokenizer) normContent(a *AddedToken) string {
	if t.nfc {
		return norm.NFC.String(a.Content)
	}
	return a.Content
}
