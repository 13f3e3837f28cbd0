package slurm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrUnknownJob means slurmctld does not know the job (never existed or
// purged after MinJobAge).
var ErrUnknownJob = errors.New("slurm does not know this job")

// Job is what squeue or scontrol says about one job or array task.
type Job struct {
	ID     string // "12" or "12_3"
	State  string // PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, ...
	Reason string // pending reason or "None"
	Name   string
	// ExitCode and Signal come from scontrol's ExitCode=code:signal.
	ExitCode, Signal int
	StdOut           string
}

// squeueFormat is the squeue -o format ParseSqueue reads.
const squeueFormat = "%i|%T|%r|%j"

// ParseSbatch reads `sbatch --parsable` output: "jobid" or "jobid;cluster".
func ParseSbatch(out string) (string, error) {
	line := strings.TrimSpace(out)
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[i+1:])
	}
	id, _, _ := strings.Cut(line, ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("reading sbatch output %q: not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// ParseSqueue reads lines in squeueFormat, keyed by job id.
func ParseSqueue(out string) (map[string]Job, error) {
	jobs := map[string]Job{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "|", 4)
		if len(f) < 3 {
			return nil, fmt.Errorf("reading squeue line %q: want id|state|reason|name", line)
		}
		j := Job{ID: f[0], State: normState(f[1]), Reason: f[2]}
		if len(f) == 4 {
			j.Name = f[3]
		}
		jobs[j.ID] = j
	}
	return jobs, nil
}

// ParseScontrol reads `scontrol show job -o` output: one line of
// Key=Value pairs per job or array task.
func ParseScontrol(out string) ([]Job, error) {
	var jobs []Job
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		kv := splitKV(line)
		id := kv["JobId"]
		if id == "" {
			return nil, fmt.Errorf("reading scontrol line %q: no JobId", line)
		}
		if a, t := kv["ArrayJobId"], kv["ArrayTaskId"]; a != "" && t != "" && !strings.ContainsAny(t, "[-,%") {
			id = a + "_" + t
		}
		j := Job{ID: id, State: normState(kv["JobState"]), Reason: kv["Reason"], Name: kv["JobName"], StdOut: kv["StdOut"]}
		if ec := kv["ExitCode"]; ec != "" {
			c, s, _ := strings.Cut(ec, ":")
			var err1, err2 error
			j.ExitCode, err1 = strconv.Atoi(c)
			j.Signal, err2 = strconv.Atoi(s)
			if err := errors.Join(err1, err2); err != nil {
				return nil, fmt.Errorf("reading ExitCode %q of job %s: %w", ec, id, err)
			}
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// splitKV splits "A=1 B=x y C=2" into keys; a value runs until the next
// " Key=" token, so values with spaces (Reason, Command) survive.
func splitKV(line string) map[string]string {
	kv := map[string]string{}
	fields := strings.Fields(line)
	key := ""
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if ok && k != "" && isKey(k) {
			key = k
			kv[key] = v
			continue
		}
		if key != "" {
			kv[key] += " " + f
		}
	}
	return kv
}

func isKey(s string) bool {
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == ':') {
			return false
		}
	}
	return s[0] >= 'A' && s[0] <= 'Z'
}

// normState turns short or decorated states ("CANCELLED by 0", "CD") into
// the long names.
func normState(s string) string {
	s = strings.TrimSpace(s)
	s, _, _ = strings.Cut(s, " ")
	if long, ok := shortStates[s]; ok {
		return long
	}
	return s
}

var shortStates = map[string]string{"PD": "PENDING", "R": "RUNNING", "CG": "COMPLETING", "CD": "COMPLETED",
	"F": "FAILED", "CA": "CANCELLED", "TO": "TIMEOUT", "NF": "NODE_FAIL", "PR": "PREEMPTED", "OOM": "OUT_OF_MEMORY",
	"BF": "BOOT_FAIL", "DL": "DEADLINE", "S": "SUSPENDED", "RQ": "REQUEUED", "RH": "REQUEUE_HOLD",
	"RF": "REQUEUE_FED", "RS": "RESIZING", "SE": "SPECIAL_EXIT", "ST": "STOPPED", "CF": "CONFIGURING"}
