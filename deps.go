//go:build tools

package mascot

import (
	_ "cuelang.org/go/cue"
	_ "github.com/hashicorp/go-plugin"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/text/unicode/norm"
	_ "gonum.org/v1/gonum/mat"
	_ "google.golang.org/grpc"
	_ "google.golang.org/protobuf/proto"
	_ "gorgonia.org/gorgonia"
	_ "gorgonia.org/tensor"
)
