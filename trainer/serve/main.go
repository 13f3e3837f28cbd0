package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// ParseArgs parses the flags of `mascot serve` into Options; usage and
// flag errors go to stderr.
func ParseArgs(args []string, stderr io.Writer) (Options, error) {
	var o Options
	fs := FlagSet(&o)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := o.CheckFlags(); err != nil {
		return Options{}, err
	}
	return o, nil
}

// CheckFlags reports what the flags FlagSet parsed into o leave missing.
func (o *Options) CheckFlags() error {
	if o.ModelDir == "" {
		return errors.New("--model is required")
	}
	return nil
}

// FlagSet is the flags of `mascot serve`, parsed into o: the one
// definition the CLI (which shows them in its help and reference) and
// ParseArgs share.
func FlagSet(o *Options) *flag.FlagSet {
	fs := flag.NewFlagSet("mascot serve", flag.ContinueOnError)
	fs.StringVar(&o.ModelDir, "model", "", "model directory: config.json, safetensors and tokenizer.json (or a "+MarkerFile+" marker)")
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8000", "listen address (loopback unless you say otherwise)")
	fs.StringVar(&o.ModelID, "served-model-name", "", "name of the base model in the API (default: the --model path)")
	fs.IntVar(&o.MaxQueue, "max-queue", 64, "requests allowed to wait; more are answered 503")
	fs.IntVar(&o.MaxBatch, "max-batch", 8, "sequences decoded together")
	fs.IntVar(&o.PrefillChunk, "prefill-chunk", DefaultPrefillChunk, "prompt tokens prefilled per step beside the decoding sequences")
	fs.IntVar(&o.MaxN, "max-n", DefaultMaxN, "largest n (choices per prompt) a request may ask for")
	fs.Int64Var(&o.MaxBodyBytes, "max-body-bytes", DefaultMaxBodyBytes, "largest request body in bytes")
	fs.IntVar(&o.MaxRequestTokens, "max-request-tokens", 0, fmt.Sprintf("cache tokens one request may hold, n × (prompt + max_tokens) over its prompts (default: %d × the context length)", DefaultRequestContexts))
	fs.Int64Var(&o.PrefixCacheBytes, "prefix-cache-bytes", DefaultPrefixCacheBytes, "memory for the KV cache of recent prompts, reused by prompts with the same prefix (negative: off)")
	fs.IntVar(&o.MaxModelLen, "max-model-len", 0, "prompt plus completion limit (default: the model's max_position_embeddings)")
	fs.Func("lora", "adapter served as a model, `NAME=DIR` (repeatable)", func(v string) error {
		name, dir, ok := strings.Cut(v, "=")
		if !ok || name == "" || dir == "" {
			return fmt.Errorf("want NAME=DIR, got %q", v)
		}
		if o.Adapters == nil {
			o.Adapters = map[string]string{}
		}
		if _, dup := o.Adapters[name]; dup {
			return fmt.Errorf("adapter %q given twice", name)
		}
		o.Adapters[name] = dir
		return nil
	})
	return fs
}

// Run serves opts until ctx is done, printing the base URL to stdout once
// listening.
func Run(ctx context.Context, opts Options, stdout io.Writer) error {
	s, err := New(opts)
	if err != nil {
		return err
	}
	url, err := s.Start()
	if err != nil {
		_ = s.Close()
		return err
	}
	fmt.Fprintf(stdout, "serving %s at %s\n", s.ModelID(), url)
	<-ctx.Done()
	return s.Close()
}
