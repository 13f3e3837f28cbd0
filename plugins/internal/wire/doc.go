// Package wire is the shared go-plugin layer of mascot's plugin system: the
// handshake, the plugin map, and the converters between plugins/spec values
// and the protocol v1 messages (plugins/proto). Both plugins/host and
// plugins/sdk import it, so the two sides cannot disagree on the cookie, the
// protocol version or the conversion rules.
package wire
