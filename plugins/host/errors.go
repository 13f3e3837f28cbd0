package host

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrChecksumMismatch is wrapped by the error returned when a pinned
// plugin binary's sha256 does not match.
var ErrChecksumMismatch = errors.New("plugin checksum mismatch")

// ErrClosed is returned by calls on a closed plugin.
var ErrClosed = errors.New("plugin is closed")

// CallError is a transport failure of a plugin call, in readable form.
type CallError struct {
	Kind   string // "judge" or "metric"
	Plugin string
	Method string
	Code   codes.Code
	// Restarts made during this call before giving up.
	Restarts int
	Err      error
	msg      string
}

// Error returns the readable message.
func (e *CallError) Error() string { return e.msg }

// Unwrap returns the underlying gRPC error.
func (e *CallError) Unwrap() error { return e.Err }

func callError(kind, name, method string, timeout time.Duration, restarts int, err error) error {
	if err == nil {
		return nil
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return err
	}
	st, _ := status.FromError(err)
	e := &CallError{Kind: kind, Plugin: name, Method: method, Code: st.Code(), Restarts: restarts, Err: err}
	switch st.Code() {
	case codes.Unavailable, codes.Canceled:
		e.msg = fmt.Sprintf("%s plugin %s did not respond; see its stderr log (%s: %s)", kind, name, method, st.Message())
		if restarts > 0 {
			e.msg = fmt.Sprintf("%s plugin %s did not respond after %d restarts; see its stderr log (%s: %s)", kind, name, restarts, method, st.Message())
		}
	case codes.DeadlineExceeded:
		e.msg = fmt.Sprintf("%s plugin %s did not answer %s within the call timeout of %s", kind, name, method, timeout)
	case codes.Unimplemented:
		e.msg = fmt.Sprintf("%s plugin %s does not implement %s (is it a %s plugin speaking mascot.plugin.v1?)", kind, name, method, kind)
	case codes.ResourceExhausted:
		e.msg = fmt.Sprintf("%s plugin %s: message too large in %s: %s", kind, name, method, st.Message())
	default:
		e.msg = fmt.Sprintf("%s plugin %s failed in %s: %s", kind, name, method, st.Message())
	}
	return e
}
