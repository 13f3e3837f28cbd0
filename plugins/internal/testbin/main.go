// Command testbin is a stand-in for `mascot plugin serve NAME` used by the
// plugin tests before (and independently of) cmd/mascot: `testbin plugin
// serve NAME` calls builtin.Serve exactly as cmd/mascot does.
package main

import (
	"fmt"
	"os"

	"mascot.dev/mascot/plugins/builtin"
)

func main() {
	if len(os.Args) != 4 || os.Args[1] != "plugin" || os.Args[2] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: testbin plugin serve NAME")
		os.Exit(2)
	}
	if err := builtin.Serve(os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
