package llm

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies why an attempt or a request failed.
type Kind string

// Failure kinds. The retryable ones are RateLimited, Server, Timeout,
// Connection and Malformed (and Empty when Endpoint.RetryEmpty is set).
const (
	KindRateLimited Kind = "rate_limited" // HTTP 429
	KindServer      Kind = "server_error" // HTTP 408 or 5xx
	KindTimeout     Kind = "timeout"      // the per-attempt deadline passed
	KindConnection  Kind = "connection"   // refused, reset, closed mid-response
	KindMalformed   Kind = "malformed"    // 2xx with a body that is not a valid completion
	KindEmpty       Kind = "empty"        // a choice came back empty (only with RetryEmpty)
	KindClient      Kind = "client_error" // another 4xx: not retried
	KindDeadline    Kind = "deadline"     // the total deadline passed
	KindCanceled    Kind = "canceled"     // the caller's context ended
	KindConfig      Kind = "config"       // no endpoint for the role, bad request
	KindOffline     Kind = "offline"      // an offline client (a replay) had no stored reply
	KindJournal     Kind = "journal"      // the attempt could not be recorded before sending
)

// Retryable reports whether an attempt that failed with k is worth retrying.
func (k Kind) Retryable() bool {
	switch k {
	case KindRateLimited, KindServer, KindTimeout, KindConnection, KindMalformed, KindEmpty:
		return true
	}
	return false
}

// ErrNoEndpoint is returned (wrapped) when no endpoint serves a role.
var ErrNoEndpoint = errors.New("no endpoint configured for role")

// Error is the error every failed Chat returns. Its message never holds an
// API key: it is built here from redacted text.
type Error struct {
	Kind     Kind
	Role     string
	Endpoint string
	URL      string // replica of the last attempt, without user info
	Status   int    // HTTP status of the last attempt, 0 when none
	Attempts int
	Message  string
	cause    error // only context errors and ErrNoEndpoint
}

// Error implements error.
func (e *Error) Error() string {
	s := fmt.Sprintf("llm %s call to endpoint %q", e.Role, e.Endpoint)
	if e.URL != "" {
		s += " (" + e.URL + ")"
	}
	s += fmt.Sprintf(" failed after %d attempt(s): %s", e.Attempts, e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(", HTTP %d", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap gives context.Canceled, context.DeadlineExceeded or ErrNoEndpoint
// where they caused the failure.
func (e *Error) Unwrap() error { return e.cause }

// KindOf returns the Kind of an error returned by this package, or "" for
// nil and other errors.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if errors.Is(err, context.Canceled) {
		return KindCanceled
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return KindDeadline
	}
	return ""
}
