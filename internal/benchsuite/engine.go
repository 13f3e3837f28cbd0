package benchsuite

import (
	"bytes"
	"fmt"

	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve/enginesuite"
)

// engineRows runs the engine suite (rounds interleaved rounds on the
// 63 M-parameter model, or a tiny one) and returns its same-round ratios
// as rows and its own table.
func engineRows(rounds int, tiny bool) ([]Row, string, error) {
	cfg, name := enginesuite.Qwen3_63M(), "qwen3-63M"
	if tiny {
		cfg, name = qwen3.Tiny(), "qwen3-tiny"
	}
	res, err := enginesuite.RunModel(cfg, name, rounds)
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	res.Print(&buf)
	goals := map[string]float64{"dec1/bound": 0.7, "dec8/dec1": 5, "eng1/bound": 0.7, "eng8/eng1": 5}
	names := map[string][2]string{
		"dec1/bound": {"decoder, batch 1", "read bound (weights ÷ bandwidth)"},
		"dec8/dec1":  {"decoder, batch 8", "decoder, batch 1"},
		"eng1/bound": {"server over HTTP, 1 client", "read bound (weights ÷ bandwidth)"},
		"eng8/eng1":  {"server over HTTP, 8 clients", "server, 1 client"},
	}
	var rows []Row
	for _, x := range res.Ratios {
		nm := names[x.Key]
		row := Row{Figure: fmt.Sprintf("engine %s: %s, tok per CPU-s", name, nm[0]), Anchor: nm[1] + ", per CPU-s",
			Values: x.PerCPU, Cost: fmt.Sprintf("per wall s: %.2f", med(x.Wall))}
		if g, ok := goals[x.Key]; ok {
			row.Goal = fmt.Sprintf("≥ %g", g)
			row.Met = atLeast(g)
		}
		rows = append(rows, row)
	}
	return rows, buf.String(), nil
}

func med(v []float64) float64 { _, m, _ := Spread(v); return m }
