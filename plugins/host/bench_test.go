package host_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/go-plugin"

	"mascot.dev/mascot/plugins/host"
	"mascot.dev/mascot/plugins/internal/fakejudge"
	"mascot.dev/mascot/plugins/sdk"
	"mascot.dev/mascot/plugins/spec"
)

// The round-trip overhead of judging through a plugin: the same fake judge
// called in process (through WrapJudge, so validation is included), over an
// in-memory gRPC connection, and in a real plugin process (gRPC over a unix
// socket with AutoMTLS). Run:
//
//	go test -run '^$' -bench RoundTrip -benchtime 2s ./plugins/host/
//
// ns/item is the cost per item for batches of 1 and 64 items.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	client, _ := plugin.TestPluginGRPCConn(b, false, sdk.JudgePluginSet(&fakejudge.Judge{}))
	defer client.Close()
	raw, _ := client.Dispense("judge")
	proc, err := host.StartJudge(ctx, selfConfig("judge"))
	if err != nil {
		b.Fatal(err)
	}
	defer proc.Close()
	judges := []struct {
		name string
		j    host.Judge
	}{
		{"inprocess", host.WrapJudge("fake", &fakejudge.Judge{})},
		{"inmemory-grpc", host.WrapJudge("fake", raw.(host.Judge))},
		{"process", proc},
	}
	for _, n := range []int{1, 64} {
		items := make([]spec.Item, n)
		for i := range items {
			items[i] = spec.Item{ID: fmt.Sprint(i), Kind: spec.KindCandidate, Response: "a short candidate response of some words",
				Context: []spec.Turn{{Role: "user", Text: "I feel stuck at work and do not know what to do next."}}}
		}
		for _, c := range judges {
			b.Run(fmt.Sprintf("%s/batch=%d", c.name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := c.j.Score(ctx, items); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
			})
		}
	}
}
