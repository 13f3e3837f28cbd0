package slurm

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"mascot.dev/mascot/schema"
)

// ScriptSpec is what a job script needs.
type ScriptSpec struct {
	Name    string // job name
	Dir     string // attempt directory (logs/, shards/<i>/ are created under it)
	Chdir   string // working directory of the job (the controller's)
	Shards  int    // array size; 1 = a plain job
	Options schema.SlurmOptions
	// Command is the argv run per task; the literal {shard} is replaced by
	// the task's index and {out} by its shard directory.
	Command []string
}

// Render writes the sbatch script. The wrapper starts the command in its
// own session, forwards SIGUSR1/SIGINT to that process group, on SIGTERM
// kills the command's whole process tree (so nothing survives scancel under
// proctrack/linuxproc), and writes the exit status to <shard
// dir>/exitcode atomically.
func Render(s ScriptSpec) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	for _, a := range Directives(s) {
		fmt.Fprintf(&b, "#SBATCH %s\n", a)
	}
	fmt.Fprintf(&b, `set -u
i=${SLURM_ARRAY_TASK_ID:-0}
out=%s/shards/$i
mkdir -p "$out"
rm -f "$out/exitcode"
echo "mascot job ${SLURM_JOB_ID:-?} shard $i restart ${SLURM_RESTART_COUNT:-0} on $(hostname) gpus=${CUDA_VISIBLE_DEVICES:-none}" >&2
setsid %s &
child=$!
tree() { local c; for c in $(pgrep -P "$1" 2>/dev/null); do tree "$c"; done; echo "$1"; }
forward() { kill -"$1" -- -"$child" 2>/dev/null; }
# On TERM (scancel, time limit) the whole tree goes, including processes
# that started their own session (proctrack/linuxproc would miss them).
stop() { kill -TERM $(tree "$child") 2>/dev/null; forward TERM; }
trap stop TERM
# USR1 comes MASCOT_SLURM_SIGNAL seconds before the time limit: requeue the
# job (at most three times) so it restarts and resumes (done units stay
# done; training stages continue from their checkpoint).
requeue() {
  if [ "${SLURM_RESTART_COUNT:-0}" -lt 3 ] && [ -n "${SLURM_JOB_ID:-}" ]; then
    echo "mascot job $SLURM_JOB_ID shard $i: time limit near, requeueing" >&2
    scontrol requeue "${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}${SLURM_ARRAY_TASK_ID:+_$SLURM_ARRAY_TASK_ID}"
  else
    forward USR1
  fi
}
trap requeue USR1
trap 'forward INT' INT
while :; do
  wait "$child"; rc=$?
  kill -0 "$child" 2>/dev/null || break
done
echo "$rc" > "$out/exitcode.tmp" && mv "$out/exitcode.tmp" "$out/exitcode"
exit "$rc"
`, shq(s.Dir), commandLine(s.Command))
	return b.String()
}

// Directives lists the #SBATCH options of a script.
func Directives(s ScriptSpec) []string {
	o := s.Options
	d := []string{"--job-name=" + s.Name, "--output=" + s.Dir + "/logs/%A_%a.out", "--open-mode=append",
		"--signal=B:USR1@" + signalSeconds()}
	if s.Chdir != "" {
		d = append(d, "--chdir="+s.Chdir)
	}
	if s.Shards > 1 {
		arr := "--array=0-" + strconv.Itoa(s.Shards-1)
		if o.ArrayParallelism > 0 {
			arr += "%" + strconv.Itoa(o.ArrayParallelism)
		}
		d = append(d, arr)
	}
	if o.Partition != "" {
		d = append(d, "--partition="+o.Partition)
	}
	if o.GPUs > 0 {
		d = append(d, "--gres=gpu:"+strconv.Itoa(o.GPUs))
	}
	if o.CPUs > 0 {
		d = append(d, "--cpus-per-task="+strconv.Itoa(o.CPUs))
	}
	if o.Mem != "" {
		d = append(d, "--mem="+o.Mem)
	}
	if o.Time != "" {
		d = append(d, "--time="+o.Time)
	}
	if o.Account != "" {
		d = append(d, "--account="+o.Account)
	}
	if o.QOS != "" {
		d = append(d, "--qos="+o.QOS)
	}
	return append(d, o.ExtraArgs...)
}

func commandLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, "{shard}", "\x00i")
		a = strings.ReplaceAll(a, "{out}", "\x00o")
		s := shq(a)
		s = strings.ReplaceAll(s, "\x00i", `'"$i"'`)
		s = strings.ReplaceAll(s, "\x00o", `'"$out"'`)
		q[i] = s
	}
	return strings.Join(q, " ")
}

// shq quotes s for the shell.
func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// signalSeconds is how long before its time limit a job gets SIGUSR1 (and
// requeues itself): 120 s, or MASCOT_SLURM_SIGNAL.
func signalSeconds() string {
	if v := os.Getenv("MASCOT_SLURM_SIGNAL"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return v
		}
	}
	return "120"
}
