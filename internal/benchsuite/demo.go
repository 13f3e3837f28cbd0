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
// directory once, from a small helper process (runMeasured): the
// CPU-seconds of it and of the plugin processes it waited for (wait4's
// usage of the child), and the peak RSS of the largest of them. No
// anchor: the goal is absolute.
func demoRows(ctx context.Context, dir string) ([]Row, error) {
	bin := filepath.Join(dir, "mascot")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "mascot.dev/mascot/cmd/mascot")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building mascot: %v\n%s", err, out)
	}
	work := filepath.Join(dir, "demo")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	t0 := time.Now()
	u, err := runMeasured(work, bin, "run", "demo")
	wall := time.Since(t0).Seconds()
	if err != nil {
		return nil, fmt.Errorf("mascot run demo: %w", err)
	}
	cpus := u.CPU
	rss := float64(u.MaxRSS) / (1 << 20) // KiB → GiB
	return []Row{
		{Figure: "demo (mascot run demo), CPU-s", Values: []float64{cpus}, Format: "%.1f",
			Cost: fmt.Sprintf("%.1f, %.1f", wall, cpus), Goal: "≤ 100", Met: atMost(100), Note: trainerBLAS()},
		{Figure: "demo, peak RSS of its largest process, GiB", Values: []float64{rss}, Format: "%.2f",
			Cost: "", Goal: "≤ 1", Met: atMost(1)},
	}, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// trainerBLAS names the BLAS the demo's training stages chose on this
// machine, the same choice in the same environment (asked after the demo,
// so that the suite's process loads nothing before it): the demo's CPU
// time depends on it (docs/benchmarks.md, the demo).
func trainerBLAS() string {
	b, err := cpu.New(cpu.Options{})
	if err != nil {
		return "the trainer's BLAS: " + err.Error()
	}
	return "the trainer's BLAS: " + b.BLAS()
}
