package wire

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "mascot.dev/mascot/plugins/proto/mascot/plugin/v1"
)

// ProtocolVersion equals the major version of the proto package
// (mascot.plugin.v1).
const ProtocolVersion = 1

// Plugin names in the plugin set.
const (
	JudgeName  = "judge"
	MetricName = "metric"
)

// MaxMessageBytes is the gRPC message limit both sides accept (64 MiB). The
// host still splits requests under DefaultSplitBytes because third-party
// plugins in other languages usually keep gRPC's 4 MiB default.
const MaxMessageBytes = 64 << 20

// DefaultSplitBytes is the request size the host aims to stay under.
const DefaultSplitBytes = 4<<20 - 64<<10

// Handshake is shared by the host and every plugin. The cookie is a
// usability check (running a plugin by hand prints a hint), not security.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "MASCOT_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "b3c1a5f0-judge-metric-v1",
}

// GRPCServer builds the plugin-side gRPC server with the larger limit.
func GRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes))
	return grpc.NewServer(opts...)
}

// DialOptions are the host-side gRPC options matching GRPCServer.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes))}
}

// JudgePlugin is the go-plugin glue for the Judge service. Impl is set on
// the plugin side and nil on the host side.
type JudgePlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl JudgeImpl
}

var _ plugin.GRPCPlugin = (*JudgePlugin)(nil)

// GRPCServer registers the Judge service (plugin side).
func (p *JudgePlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterJudgeServer(s, &judgeServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a *JudgeClient (host side).
func (p *JudgePlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &JudgeClient{c: pluginv1.NewJudgeClient(c)}, nil
}

// MetricPlugin is the go-plugin glue for the Metric service.
type MetricPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl MetricImpl
}

var _ plugin.GRPCPlugin = (*MetricPlugin)(nil)

// GRPCServer registers the Metric service (plugin side).
func (p *MetricPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterMetricServer(s, &metricServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a *MetricClient (host side).
func (p *MetricPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &MetricClient{c: pluginv1.NewMetricClient(c)}, nil
}

// PluginSet returns the plugin map for the host side (no implementations).
func PluginSet() plugin.PluginSet {
	return plugin.PluginSet{JudgeName: &JudgePlugin{}, MetricName: &MetricPlugin{}}
}
