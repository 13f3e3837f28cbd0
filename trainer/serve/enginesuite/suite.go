package enginesuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"mascot.dev/mascot/internal/membw"
	"mascot.dev/mascot/trainer/qwen3"
	"mascot.dev/mascot/trainer/serve"
	"mascot.dev/mascot/trainer/tokenizer"
)

// Qwen3_63M is Qwen3-0.6B's proportions at half the width (hidden 512,
// intermediate 1536, 8 query and 4 key-value heads of 64, 12 layers) with
// a tied 49,152-token vocabulary: 62.9 M parameters, 252 MB of float32.
func Qwen3_63M() qwen3.Config {
	c := qwen3.Tiny()
	c.VocabSize, c.HiddenSize, c.IntermediateSize, c.NumHiddenLayers = 49152, 512, 1536, 12
	c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim = 8, 4, 64
	return c
}

// CPUSeconds is the process's user plus system CPU time.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// LoadAvg is the 1-, 5- and 15-minute load average ("?" where unknown).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// Phase is one measured quantity over the rounds: its rate per wall
// second and per CPU-second of the process.
type Phase struct {
	Name      string
	Unit      string
	Wall      []float64 // per wall second, one per round
	PerCPU    []float64 // per CPU-second
	WallS     float64   // seconds it took in all
	CPUS      float64   // CPU-seconds it took in all
	unitScale float64
}

// time runs f, which returns the amount done (tokens, bytes), and records
// amount per second and per CPU-second.
func (p *Phase) time(f func() (float64, error)) (wall, cpu float64, err error) {
	c0, t0 := CPUSeconds(), time.Now()
	n, err := f()
	if err != nil {
		return 0, 0, err
	}
	w, c := time.Since(t0).Seconds(), CPUSeconds()-c0
	p.WallS += w
	p.CPUS += c
	p.Wall = append(p.Wall, n/w)
	p.PerCPU = append(p.PerCPU, n/c)
	return n / w, n / c, nil
}

// Ratio is a same-round ratio of two phases (or of a phase and the read
// bound), per wall second and per CPU-second, one value per round.
type Ratio struct {
	Name   string
	Key    string // short name (b.ReportMetric)
	Wall   []float64
	PerCPU []float64
}

// Result is what Run measured.
type Result struct {
	Model      string
	Params     int64
	Bytes      float64 // of float32 weights
	Rounds     int
	LoadBefore string
	LoadAfter  string
	Phases     []*Phase // read, decoder 1, decoder 8, engine 1, engine 8
	Ratios     []*Ratio // dec1/bound, dec8/dec1, eng1/bound, eng8/eng1
}

// Spread returns the minimum, median and maximum of v.
func Spread(v []float64) (lo, med, hi float64) {
	s := slices.Sorted(slices.Values(v))
	return s[0], s[len(s)/2], s[len(s)-1]
}

// Run builds the 63 M-parameter model and the server and measures rounds
// rounds.
func Run(rounds int) (*Result, error) { return RunModel(Qwen3_63M(), "qwen3-63M", rounds) }

// RunModel is Run on a random model of config cfg, named name in the
// table (the suite's small CI run uses a tiny one).
func RunModel(cfg qwen3.Config, name string, rounds int) (*Result, error) {
	m, err := qwen3.NewRandom(cfg, 1)
	if err != nil {
		return nil, err
	}
	srv, err := serve.NewFromModel(m, tokenizer.NewByteLevel(), name, serve.Options{ModelID: "q", MaxBatch: 8})
	if err != nil {
		return nil, err
	}
	url, err := srv.Start()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	var weights [][]float32
	for _, w := range m.Weights {
		weights = append(weights, w.Data)
	}
	bytesW := 4 * float64(m.Config.NumParams())
	res := &Result{Model: name, Params: m.Config.NumParams(), Bytes: bytesW, Rounds: rounds, LoadBefore: LoadAvg()}
	read := &Phase{Name: "read bandwidth (model weights)", Unit: "GB/s", unitScale: 1e-9}
	d1 := &Phase{Name: "decoder, batch 1", Unit: "tok/s", unitScale: 1}
	d8 := &Phase{Name: "decoder, batch 8", Unit: "tok/s", unitScale: 1}
	e1 := &Phase{Name: "engine over HTTP, 1 client", Unit: "tok/s", unitScale: 1}
	e8 := &Phase{Name: "engine over HTTP, 8 clients", Unit: "tok/s", unitScale: 1}
	res.Phases = []*Phase{read, d1, d8, e1, e8}
	res.Ratios = []*Ratio{{Name: "decoder batch 1 ÷ read bound", Key: "dec1/bound"},
		{Name: "decoder batch 8 ÷ batch 1", Key: "dec8/dec1"},
		{Name: "engine 1 client ÷ read bound", Key: "eng1/bound"},
		{Name: "engine 8 clients ÷ 1 client", Key: "eng8/eng1"}}
	for r := range rounds {
		var bw, v1, v8, w1, w8 [2]float64
		runs := []func() error{
			func() (err error) {
				membw.Read(weights, 1) // the decoder phases read warm weights too
				bw[0], bw[1], err = read.time(func() (float64, error) {
					for range 4 {
						membw.Read(weights, 1)
					}
					return 4 * bytesW, nil
				})
				return err
			},
			func() (err error) { v1[0], v1[1], err = d1.time(decodeSteps(m, 1)); return err },
			func() (err error) { v8[0], v8[1], err = d8.time(decodeSteps(m, 8)); return err },
			func() (err error) {
				w1[0], w1[1], err = e1.time(func() (float64, error) { return clients(url, 1, r) })
				return err
			},
			func() (err error) {
				w8[0], w8[1], err = e8.time(func() (float64, error) { return clients(url, 8, r) })
				return err
			},
		}
		for k := range runs {
			if err := runs[(k+r)%len(runs)](); err != nil {
				return nil, err
			}
		}
		for i := range 2 {
			bound := bw[i] / bytesW
			for k, v := range []float64{v1[i] / bound, v8[i] / v1[i], w1[i] / bound, w8[i] / w1[i]} {
				if i == 0 {
					res.Ratios[k].Wall = append(res.Ratios[k].Wall, v)
				} else {
					res.Ratios[k].PerCPU = append(res.Ratios[k].PerCPU, v)
				}
			}
		}
	}
	res.LoadAfter = LoadAvg()
	return res, nil
}

// Print writes the suite's table.
func (res *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "\nengine suite: %s (%.1f M parameters, %.0f MB float32), GOMAXPROCS %d, %d rounds, load average %s before, %s after\n",
		res.Model, float64(res.Params)/1e6, res.Bytes/1e6, runtime.GOMAXPROCS(0), res.Rounds, res.LoadBefore, res.LoadAfter)
	fmt.Fprintf(w, "%-32s %26s %-5s %26s %6s %6s\n", "measured", "per second: min/median/max", "", "per CPU-second", "wall s", "CPU s")
	for _, p := range res.Phases {
		lo, med, hi := Spread(p.Wall)
		clo, cmed, chi := Spread(p.PerCPU)
		s := p.unitScale
		fmt.Fprintf(w, "%-32s %8.1f /%7.1f /%7.1f %-5s %8.1f /%7.1f /%7.1f %6.1f %6.1f\n", p.Name,
			lo*s, med*s, hi*s, p.Unit, clo*s, cmed*s, chi*s, p.WallS, p.CPUS)
	}
	fmt.Fprintf(w, "%-32s %26s %-5s %26s\n", "same-round ratio", "per second: min/median/max", "", "per CPU-second")
	for _, x := range res.Ratios {
		lo, med, hi := Spread(x.Wall)
		clo, cmed, chi := Spread(x.PerCPU)
		fmt.Fprintf(w, "%-32s %8.2f /%7.2f /%7.2f %-5s %8.2f /%7.2f /%7.2f\n", x.Name, lo, med, hi, "", clo, cmed, chi)
	}
}

// decodeSteps prefills batch sequences with a 16-token prompt and returns
// a phase body that runs 24 steps of them (the prefill is done before the
// phase is timed), each step writing its logits over the last step's as
// the sampler and the server do (StepBatchInto).
func decodeSteps(m *qwen3.Model, batch int) func() (float64, error) {
	caches := make([]*qwen3.Cache, batch)
	toks := make([]int, batch)
	var perr error
	for i := range caches {
		caches[i] = m.NewCache()
		if _, err := m.Prefill(caches[i], []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}); err != nil {
			perr = err
		}
	}
	return func() (float64, error) {
		if perr != nil {
			return 0, perr
		}
		const steps = 24
		var buf []float32
		for range steps {
			var err error
			if _, buf, err = m.StepBatchInto(caches, toks, buf); err != nil {
				return 0, err
			}
		}
		return float64(steps * batch), nil
	}
}

// clients sends n completions at once and returns the completion tokens
// they got.
func clients(url string, n, round int) (float64, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	var errs []error
	for i := range n {
		wg.Go(func() {
			prompt := make([]int, 4+i)
			for k := range prompt {
				prompt[k] = (k*31 + i*7 + round) % 256
			}
			body, _ := json.Marshal(map[string]any{"model": "q", "prompt": prompt, "max_tokens": 64,
				"temperature": 0.8, "seed": 1000*round + i})
			tokens, err := complete(url, body)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			total += tokens
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return 0, errs[0]
	}
	return float64(total), nil
}

// client keeps a connection per client open between rounds, as the
// runner's client does (llm/transport.go): http.DefaultClient keeps two
// idle ones per host, so a round's other clients would dial anew and
// their requests arrive milliseconds after the first.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

// complete posts one completion and returns its completion tokens.
func complete(url string, body []byte) (int, error) {
	resp, err := client.Post(url+"/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var r struct {
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(out, &r) != nil {
		return 0, fmt.Errorf("completion: %d %s", resp.StatusCode, out)
	}
	return r.Usage.CompletionTokens, nil
}
