// Package safepath joins names taken from experiment specs or the command
// line (stage keys, endpoint names, run ids) under a parent directory and
// refuses any name that would leave it. Every path built from such a name
// goes through Join, so a stage keyed "../../victim" can never make mascot
// write or delete outside the run.
package safepath

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Join returns parent/elems[0]/elems[1]/... when every element is one plain
// path element: not empty, not "." or "..", no path separator, not
// absolute. Anything else is an error naming the element.
func Join(parent string, elems ...string) (string, error) {
	for _, e := range elems {
		if err := Element(e); err != nil {
			return "", err
		}
	}
	return filepath.Join(append([]string{parent}, elems...)...), nil
}

// Element reports whether name is one plain path element (see Join).
func Element(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) ||
		!filepath.IsLocal(name) || strings.ContainsRune(name, 0) {
		return fmt.Errorf("name %q is not a plain directory name: it must not be empty, \".\", \"..\" or hold a path separator", name)
	}
	return nil
}
