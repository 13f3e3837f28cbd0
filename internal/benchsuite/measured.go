package benchsuite

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// usage is what a measured command cost: its CPU-seconds and those of the
// children it waited for, and the peak RSS of the largest of them.
type usage struct {
	CPU    float64 `json:"cpu_s"`
	MaxRSS int64   `json:"maxrss_kib"`
	Err    string  `json:"err,omitempty"`
	Output string  `json:"output,omitempty"` // its last 2,000 bytes, when it failed
}

// measuredCommand is the command a "run" helper runs.
type measuredCommand struct {
	Dir  string   `json:"dir"`
	Args []string `json:"args"`
	Env  []string `json:"env,omitempty"` // added to the suite's environment
}

// runMeasured runs args in dir from a fresh helper process (the running
// binary re-executed) and returns its usage. A child's peak RSS on Linux
// is at least its parent's at the moment it was started (the child is
// created sharing the parent's memory and execs from it, and the kernel
// counts the memory it leaves), so a command started by the suite after
// the store phase (1.5 GiB) would report that. The helper is small: what
// it reports is the command's own.
func runMeasured(dir string, env []string, args ...string) (usage, error) {
	var u usage
	if err := askHelper("run", helperEnv+"_COMMAND", measuredCommand{Dir: dir, Args: args, Env: env}, &u); err != nil {
		return usage{}, err
	}
	if u.Err != "" {
		return u, fmt.Errorf("%s: %s\n%s", strings.Join(args, " "), u.Err, u.Output)
	}
	return u, nil
}

// helpRun is the "run" helper: it runs the command the environment names
// and prints its usage as JSON on the helper's line.
func helpRun() {
	var c measuredCommand
	if err := json.Unmarshal([]byte(os.Getenv(helperEnv+"_COMMAND")), &c); err != nil || len(c.Args) == 0 {
		fmt.Println("URL", `{"err": "no command to run"}`)
		return
	}
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	cmd.Dir = c.Dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, helperEnv) { // the command is not a helper
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, c.Env...)
	out, err := cmd.CombinedOutput()
	var u usage
	if ru, ok := sysUsage(cmd); ok {
		u.CPU = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		u.MaxRSS = ru.Maxrss
	}
	if err != nil {
		u.Err, u.Output = err.Error(), string(tail(out, 2000))
	}
	b, _ := json.Marshal(u)
	fmt.Println("URL", string(b))
}

// sysUsage is the resource usage of cmd, which ran (false if it never
// started).
func sysUsage(cmd *exec.Cmd) (*syscall.Rusage, bool) {
	if cmd.ProcessState == nil {
		return nil, false
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return ru, ok
}
