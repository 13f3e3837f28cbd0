// Command mascot is the MASCOT experiment runner. See the README and
// `mascot --help`.
package main

import (
	"os"

	"mascot.dev/mascot/cmd/mascot/cli"
)

func main() { os.Exit(cli.Main()) }
