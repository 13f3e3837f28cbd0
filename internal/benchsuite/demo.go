package benchsuite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"mascot.dev/mascot/trainer/compute/cpu"
)

// demoRows builds the mascot binary and runs `mascot run demo` in a fresh
// directory, from a small helper process (runMeasured): the CPU-seconds
// of it and of the plugin processes it waited for (wait4's usage of the
// child), and the peak RSS of the largest of them. No anchor: the goal is
// absolute. It runs with the trainer's default BLAS (the built-in sgemm)
// and, where OpenBLAS is installed, again with MASCOT_BLAS=openblas: the
// default was chosen on that comparison.
func demoRows(ctx context.Context, dir string) ([]Row, error) {
	bin := filepath.Join(dir, "mascot")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "mascot.dev/mascot/cmd/mascot")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building mascot: %v\n%s", err, out)
	}
	var rows []Row
	for _, v := range []struct {
		name, label, blas string
	}{
		{"demo", "demo (mascot run demo)", ""}, // MASCOT_BLAS as the environment has it
		{"demo-openblas", "demo, MASCOT_BLAS=openblas", "openblas"},
	} {
		// The BLAS the demo's training stages will choose, asked here: the
		// demo's CPU time depends on it (docs/benchmarks.md, the demo).
		chosen, err := cpu.New(cpu.Options{BLAS: v.blas})
		if err != nil {
			if v.blas != "" {
				continue // not installed: nothing to compare
			}
			return nil, fmt.Errorf("%s: %w", v.label, err)
		}
		var env []string
		if v.blas != "" {
			env = []string{cpu.EnvBLAS + "=" + v.blas}
		}
		work := filepath.Join(dir, v.name)
		if err := os.MkdirAll(work, 0o755); err != nil {
			return nil, err
		}
		t0 := time.Now()
		u, err := runMeasured(work, env, bin, "run", "demo")
		wall := time.Since(t0).Seconds()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.label, err)
		}
		cpus := u.CPU
		rss := float64(u.MaxRSS) / (1 << 20) // KiB → GiB
		rows = append(rows,
			Row{Figure: v.label + ", CPU-s", Values: []float64{cpus}, Format: "%.1f",
				Cost: fmt.Sprintf("%.1f, %.1f", wall, cpus), Goal: "≤ 100", Met: atMost(100), Note: "the trainer's BLAS: " + chosen.BLAS()},
			Row{Figure: v.label + ", peak RSS of its largest process, GiB", Values: []float64{rss}, Format: "%.2f",
				Cost: "", Goal: "≤ 1", Met: atMost(1)})
	}
	return rows, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
