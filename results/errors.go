package results

import "errors"

// ErrNotFound is returned (wrapped) when a run, episode or other row asked
// for by id does not exist.
var ErrNotFound = errors.New("not found")

// ErrAmbiguous is returned (wrapped) by ResolveRun when a prefix matches
// several runs.
var ErrAmbiguous = errors.New("ambiguous")
