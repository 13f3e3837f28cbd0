//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mascot.dev/mascot/cmd/mascot/cli"
)

// BenchmarkDemo runs `mascot run demo` from an empty directory, in this
// process, and reports its wall time, its CPU time (user+system, this
// process and the plugin processes it started: the figure that holds up
// when other work shares the cores) and the process's peak resident set
// (VmHWM). Run it alone, once:
//
//	go test ./cmd/mascot -run '^$' -bench BenchmarkDemo -benchtime 1x [-tags openblas] [-cpuprofile cpu.out]
func BenchmarkDemo(b *testing.B) {
	wd, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	defer os.Chdir(wd)
	var wall, cpu float64
	for b.Loop() {
		if err := os.Chdir(b.TempDir()); err != nil {
			b.Fatal(err)
		}
		var out, errb bytes.Buffer
		cpu0, start := cpuTime(), time.Now()
		if code := cli.Run(context.Background(), []string{"run", "demo"}, &out, &errb); code != 0 {
			b.Fatalf("mascot run demo: exit %d\n%s", code, lastLines(errb.String(), 40))
		}
		wall += time.Since(start).Seconds()
		cpu += cpuTime() - cpu0
	}
	n := float64(b.N)
	b.ReportMetric(wall/n, "wall-s/run")
	b.ReportMetric(cpu/n, "cpu-s/run")
	b.ReportMetric(peakRSSMiB(b), "peak-RSS-MiB")
}

// cpuTime is the user+system CPU seconds of this process and of its
// waited-for children.
func cpuTime() float64 {
	var total float64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			total += float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
		}
	}
	return total
}

// peakRSSMiB reads VmHWM, the peak resident set of this process.
func peakRSSMiB(b *testing.B) float64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(st), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}
