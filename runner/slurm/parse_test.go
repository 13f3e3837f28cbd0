package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mascot.dev/mascot/schema"
)

func TestParseSbatch(t *testing.T) {
	for in, want := range map[string]string{"123\n": "123", "456;cluster\n": "456",
		"sbatch: warning: x\n789\n": "789"} {
		got, err := ParseSbatch(in)
		if err != nil || got != want {
			t.Errorf("ParseSbatch(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseSbatch("Submitted batch job\n"); err == nil {
		t.Error("ParseSbatch accepted a line without a job id")
	}
}

func TestParseSqueue(t *testing.T) {
	out := "12|RUNNING|None|mascot-gen\n12_3|PENDING|Resources|mascot-gen\n13|CD|None|x\n\n"
	q, err := ParseSqueue(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 3 || q["12_3"].Reason != "Resources" || q["12_3"].State != "PENDING" || q["13"].State != "COMPLETED" {
		t.Fatalf("%+v", q)
	}
	if _, err := ParseSqueue("garbage\n"); err == nil {
		t.Error("accepted a line without fields")
	}
}

func TestParseScontrol(t *testing.T) {
	out := `JobId=20 ArrayJobId=19 ArrayTaskId=1 JobName=mascot gen UserId=root(0) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 StdOut=/r/logs/19_1.out
JobId=21 JobName=t JobState=CANCELLED Reason=None ExitCode=0:9
JobId=22 JobName=t JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:125
`
	js, err := ParseScontrol(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 3 {
		t.Fatalf("%d jobs", len(js))
	}
	if j := js[0]; j.ID != "19_1" || j.State != "FAILED" || j.ExitCode != 3 || j.Signal != 0 || j.Name != "mascot gen" || j.StdOut != "/r/logs/19_1.out" {
		t.Errorf("array task: %+v", j)
	}
	if j := js[1]; j.ID != "21" || j.State != "CANCELLED" || j.Signal != 9 {
		t.Errorf("cancelled: %+v", j)
	}
	if js[2].State != "OUT_OF_MEMORY" {
		t.Errorf("oom: %+v", js[2])
	}
	if _, err := ParseScontrol("JobState=RUNNING ExitCode=x:y"); err == nil {
		t.Error("accepted a line without JobId")
	}
}

func TestStateMessages(t *testing.T) {
	for state, want := range map[string]string{"TIMEOUT": "slurm.time", "OUT_OF_MEMORY": "slurm.mem",
		"NODE_FAIL": "node failed", "PREEMPTED": "preempted", "CANCELLED": "cancelled"} {
		if !Terminal(state) || !strings.Contains(StateMessage(state, ""), want) {
			t.Errorf("%s: terminal %v, message %q", state, Terminal(state), StateMessage(state, ""))
		}
	}
	for _, s := range []string{"PENDING", "RUNNING", "COMPLETING", "REQUEUED"} {
		if Terminal(s) {
			t.Errorf("%s counted as final", s)
		}
	}
	if !NeverStarts("DependencyNeverSatisfied") || NeverStarts("Resources") {
		t.Error("NeverStarts")
	}
	if !strings.Contains(PendingMessage("PartitionTimeLimit"), "slurm.time") || PendingMessage("None") != "" {
		t.Error("PendingMessage")
	}
}

func TestRenderDirectives(t *testing.T) {
	s := Render(ScriptSpec{Name: "mascot-gen", Dir: "/r/a 1", Chdir: "/w", Shards: 6,
		Options: schema.SlurmOptions{Partition: "gpu", GPUs: 1, CPUs: 4, Mem: "16G", Time: "1:00:00",
			Account: "lab", QOS: "high", ArrayParallelism: 2, ExtraArgs: []string{"--constraint=a100"}},
		Command: []string{"/bin/mascot", "stage-exec", "--shard", "{shard}", "--out", "{out}"}})
	for _, want := range []string{"#SBATCH --array=0-5%2", "#SBATCH --gres=gpu:1", "#SBATCH --cpus-per-task=4",
		"#SBATCH --mem=16G", "#SBATCH --time=1:00:00", "#SBATCH --partition=gpu", "#SBATCH --account=lab",
		"#SBATCH --qos=high", "#SBATCH --constraint=a100", "#SBATCH --chdir=/w", "#SBATCH --output=/r/a 1/logs/%A_%a.out",
		`out='/r/a 1'/shards/$i`, `'--shard' ''"$i"''`} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if one := Render(ScriptSpec{Name: "n", Dir: "/d", Shards: 1, Command: []string{"true"}}); strings.Contains(one, "--array") {
		t.Errorf("a single shard got an array:\n%s", one)
	}
}

// TestWrapperWritesExitcodeAndKillsTree runs a rendered script with bash
// (no Slurm): the exit status lands in the exitcode file, and TERM kills
// a grandchild that started its own session.
func TestWrapperWritesExitcodeAndKillsTree(t *testing.T) {
	dir := t.TempDir()
	run := func(cmd ...string) *exec.Cmd {
		p := filepath.Join(dir, "job.sh")
		os.WriteFile(p, []byte(Render(ScriptSpec{Name: "n", Dir: dir, Shards: 1, Command: cmd})), 0o755)
		c := exec.Command("bash", p)
		c.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=")
		return c
	}
	if err := run("sh", "-c", "exit 7").Run(); err == nil {
		t.Fatal("wrapper hid the exit status")
	}
	a := &Attempt{Dir: dir, Shards: [][]string{{"x"}}}
	if code, ok := a.ExitCode(0); !ok || code != 7 {
		t.Fatalf("exitcode file: %d %v", code, ok)
	}
	pidFile := filepath.Join(dir, "gc.pid")
	c := run("sh", "-c", "setsid sleep 300 & echo $! > "+pidFile+"; wait")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var pid string
	for pid == "" {
		b, _ := os.ReadFile(pidFile)
		pid = strings.TrimSpace(string(b))
	}
	c.Process.Signal(os.Signal(sigterm))
	c.Wait()
	waitGone(t, pid)
	if code, ok := a.ExitCode(0); !ok || code == 0 {
		t.Fatalf("exitcode after TERM: %d %v", code, ok)
	}
}
