package cli

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"mascot.dev/mascot/trainer/serve"
)

func newServe() *cobra.Command {
	var o serve.Options
	c := &cobra.Command{
		Use:   "serve --model DIR [--lora NAME=DIR ...] [--addr 127.0.0.1:PORT]",
		Short: "Serve a model (and LoRA adapters) over an OpenAI-compatible API with mascot's Go engine",
		Long: `serve exposes a Qwen3-architecture model directory (config.json, safetensors,
tokenizer.json) as an OpenAI-compatible server: /v1/models, /v1/chat/completions (n, seed,
streaming, json_schema enforced by constrained decoding), /v1/completions,
/v1/load_lora_adapter, /v1/unload_lora_adapter, /health and /metrics. It binds loopback
unless --addr says otherwise. Requests are batched continuously (one pass over the weights
per step for every running request, prompts prefilled in blocks beside them), and a seeded
request decodes to the same tokens whatever else runs. It serves until interrupted.`,
		Example: `  mascot serve --model runs/RUN/pretrain --addr 127.0.0.1:8008
  mascot serve --model ./qwen3-tiny --lora speaker=runs/RUN/speaker_grpo`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.CheckFlags(); err != nil {
				return usageError{fmt.Errorf("serve: %w", err)}
			}
			o.Logger = slog.New(slog.NewTextHandler(c.ErrOrStderr(), nil))
			if err := serve.Run(c.Context(), o, c.OutOrStdout()); err != nil {
				return fmt.Errorf("serving %s: %w", o.ModelDir, err)
			}
			return nil
		},
	}
	// The engine's own flag set, so its flags are parsed, listed in --help
	// and in the CLI reference like every other command's.
	c.Flags().AddGoFlagSet(serve.FlagSet(&o))
	return c
}
