package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/internal/membw"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/tokenizer"
)

// The engine suite: decode speed of the built-in engine on a Qwen3-shaped
// model of 63 M parameters, as ratios to anchors measured in the same
// process, in interleaved rounds (the machine is shared, so only same-run
// ratios mean anything). One command prints one table:
//
//	go test ./trainer/serve -run '^$' -bench EngineSuite -benchtime 1x
//
// MASCOT_BENCH_ROUNDS sets the number of rounds (default 9). Each round
// measures, in a rotating order:
//   - read: the model's weights read four times in a row by membw, every
//     core, after an untimed pass (the decoder phases also read the
//     weights step after step, so both see the same caches); bound =
//     bandwidth ÷ weight bytes = steps per second a decoder that only had
//     to read its weights would reach.
//   - decoder 1 and 8: StepBatch steps of one and of eight sequences.
//   - engine 1 and 8: tokens per second through the real server over
//     loopback HTTP, one client, then eight at once (completions of 64
//     tokens after prompts of 4–11 tokens, temperature 0.8, seeded).
//
// Each line gives min / median / max over the rounds, per wall second and
// per CPU-second of the process (on a loaded machine the wall-clock rates
// measure the scheduler as much as the code), the wall and CPU seconds
// the phase took in all, and the load average before and after.

// qwen3_63M is Qwen3-0.6B's proportions at half the width (hidden 512,
// intermediate 1536, 8 query and 4 key-value heads of 64, 12 layers) with
// a tied 49,152-token vocabulary: 62.9 M parameters, 252 MB of float32.
func qwen3_63M() qwen3.Config {
	c := qwen3.Tiny()
	c.VocabSize, c.HiddenSize, c.IntermediateSize, c.NumHiddenLayers = 49152, 512, 1536, 12
	c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim = 8, 4, 64
	return c
}

// cpuSeconds is the process's user plus system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// phase accumulates one measured quantity over the rounds: its rate per
// wall second and per CPU-second of the process.
type phase struct {
	name      string
	unit      string
	vals      []float64 // per wall second
	perCPU    []float64 // per CPU-second
	wall, cpu float64
}

// time runs f, which returns the amount done (tokens, bytes), and records
// amount per second and per CPU-second.
func (p *phase) time(f func() float64) (wall, cpu float64) {
	c0, t0 := cpuSeconds(), time.Now()
	n := f()
	w, c := time.Since(t0).Seconds(), cpuSeconds()-c0
	p.wall += w
	p.cpu += c
	p.vals = append(p.vals, n/w)
	p.perCPU = append(p.perCPU, n/c)
	return n / w, n / c
}

func spread(v []float64) (lo, med, hi float64) {
	s := slices.Sorted(slices.Values(v))
	return s[0], s[len(s)/2], s[len(s)-1]
}

func BenchmarkEngineSuite(b *testing.B) {
	rounds := 9
	if v, err := strconv.Atoi(os.Getenv("MASCOT_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	m, err := qwen3.NewRandom(qwen3_63M(), 1)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := NewFromModel(m, tokenizer.NewByteLevel(), "qwen3-63M", Options{ModelID: "q", MaxBatch: 8})
	if err != nil {
		b.Fatal(err)
	}
	url, err := srv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	weights := weightBufs(m)
	bytesW := 4 * float64(m.Config.NumParams())
	read := &phase{name: "read bandwidth (model weights)", unit: "GB/s"}
	d1 := &phase{name: "decoder, batch 1", unit: "tok/s"}
	d8 := &phase{name: "decoder, batch 8", unit: "tok/s"}
	e1 := &phase{name: "engine over HTTP, 1 client", unit: "tok/s"}
	e8 := &phase{name: "engine over HTTP, 8 clients", unit: "tok/s"}
	// Same-round ratios, per wall second and per CPU-second.
	ratios := []struct {
		name     string
		wall, cp []float64
	}{{name: "decoder batch 1 ÷ read bound"}, {name: "decoder batch 8 ÷ batch 1"},
		{name: "engine 1 client ÷ read bound"}, {name: "engine 8 clients ÷ 1 client"}}
	load0 := loadAvg()
	for r := range rounds {
		var bw, v1, v8, w1, w8 [2]float64
		runs := []func(){
			func() {
				membw.Read(weights, 1) // the decoder phases read warm weights too
				bw[0], bw[1] = read.time(func() float64 {
					for range 4 {
						membw.Read(weights, 1)
					}
					return 4 * bytesW
				})
			},
			func() { v1[0], v1[1] = d1.time(decodeSteps(b, m, 1)) },
			func() { v8[0], v8[1] = d8.time(decodeSteps(b, m, 8)) },
			func() { w1[0], w1[1] = e1.time(func() float64 { return clients(b, url, 1, r) }) },
			func() { w8[0], w8[1] = e8.time(func() float64 { return clients(b, url, 8, r) }) },
		}
		for k := range runs {
			runs[(k+r)%len(runs)]()
		}
		for i := range 2 {
			bound := bw[i] / bytesW
			for k, v := range []float64{v1[i] / bound, v8[i] / v1[i], w1[i] / bound, w8[i] / w1[i]} {
				if i == 0 {
					ratios[k].wall = append(ratios[k].wall, v)
				} else {
					ratios[k].cp = append(ratios[k].cp, v)
				}
			}
		}
	}
	fmt.Printf("\nengine suite: qwen3-63M (%.1f M parameters, %.0f MB float32), GOMAXPROCS %d, %d rounds, load average %s before, %s after\n",
		float64(m.Config.NumParams())/1e6, bytesW/1e6, runtime.GOMAXPROCS(0), rounds, load0, loadAvg())
	fmt.Printf("%-32s %26s %-5s %26s %6s %6s\n", "measured", "per second: min/median/max", "", "per CPU-second", "wall s", "CPU s")
	for _, p := range []*phase{read, d1, d8, e1, e8} {
		scale := 1.0
		if p.unit == "GB/s" {
			scale = 1e-9
		}
		lo, med, hi := spread(p.vals)
		clo, cmed, chi := spread(p.perCPU)
		fmt.Printf("%-32s %8.1f /%7.1f /%7.1f %-5s %8.1f /%7.1f /%7.1f %6.1f %6.1f\n", p.name,
			lo*scale, med*scale, hi*scale, p.unit, clo*scale, cmed*scale, chi*scale, p.wall, p.cpu)
	}
	fmt.Printf("%-32s %26s %-5s %26s\n", "same-round ratio", "per second: min/median/max", "", "per CPU-second")
	for k, x := range ratios {
		lo, med, hi := spread(x.wall)
		clo, cmed, chi := spread(x.cp)
		fmt.Printf("%-32s %8.2f /%7.2f /%7.2f %-5s %8.2f /%7.2f /%7.2f\n", x.name, lo, med, hi, "", clo, cmed, chi)
		b.ReportMetric(med, []string{"dec1/bound", "dec8/dec1", "eng1/bound", "eng8/eng1"}[k])
	}
}

// decodeSteps prefills batch sequences with a 16-token prompt and returns
// a phase body that runs 24 StepBatch steps of them (the prefill is done
// before the phase is timed).
func decodeSteps(b *testing.B, m *qwen3.Model, batch int) func() float64 {
	caches := make([]*qwen3.Cache, batch)
	toks := make([]int, batch)
	for i := range caches {
		caches[i] = m.NewCache()
		if _, err := m.Prefill(caches[i], []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}); err != nil {
			b.Fatal(err)
		}
	}
	return func() float64 {
		const steps = 24
		for range steps {
			if _, err := m.StepBatch(caches, toks); err != nil {
				b.Fatal(err)
			}
		}
		return float64(steps * batch)
	}
}

// clients sends n completions at once and returns the completion tokens
// they got.
func clients(b *testing.B, url string, n, round int) float64 {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := range n {
		wg.Go(func() {
			prompt := make([]int, 4+i)
			for k := range prompt {
				prompt[k] = (k*31 + i*7 + round) % 256
			}
			body, _ := json.Marshal(map[string]any{"model": "q", "prompt": prompt, "max_tokens": 64,
				"temperature": 0.8, "seed": 1000*round + i})
			resp, err := http.Post(url+"/completions", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			var r struct {
				Usage usage `json:"usage"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(out, &r) != nil {
				b.Errorf("completion: %d %s", resp.StatusCode, out)
				return
			}
			mu.Lock()
			total += r.Usage.CompletionTokens
			mu.Unlock()
		})
	}
	wg.Wait()
	return float64(total)
}
