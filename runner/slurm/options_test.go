package slurm

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mascot.dev/mascot/schema"
)

func TestStageOptionsOverlayStageOnExperiment(t *testing.T) {
	base := &schema.SlurmOptions{Partition: "cpu", Mem: "4G", GPUs: 1, ExtraArgs: []string{"--exclusive"}}
	exp := &schema.Experiment{Executor: schema.Executor{Kind: "slurm", Slurm: base},
		Stages: map[string]schema.Stage{
			"train": {Raw: []byte(`{"kind": "sft", "slurm": {"partition": "gpu", "gpus": 2, "extra_args": ["--constraint=a100"]}}`)},
			"gen":   {Raw: []byte(`{"kind": "candidates"}`)},
		}}
	got, err := StageOptions(exp, "train")
	if err != nil {
		t.Fatal(err)
	}
	want := schema.SlurmOptions{Partition: "gpu", Mem: "4G", GPUs: 2, ExtraArgs: []string{"--exclusive", "--constraint=a100"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("train options %+v, want %+v", got, want)
	}
	if len(base.ExtraArgs) != 1 {
		t.Fatalf("the overlay changed the experiment's extra_args: %v", base.ExtraArgs)
	}
	if got, err := StageOptions(exp, "gen"); err != nil || got.Partition != "cpu" || got.GPUs != 1 {
		t.Fatalf("gen options %+v, %v; want the experiment's", got, err)
	}
	exp.Stages["bad"] = schema.Stage{Raw: []byte(`{"slurm": {"gpus": "two"}}`)}
	if _, err := StageOptions(exp, "bad"); err == nil || !strings.Contains(err.Error(), "stage bad") {
		t.Fatalf("undecodable slurm block: %v", err)
	}
}

// TestFakeSlurmScriptCarriesStageOptions: the executor, not the runner,
// reads the stage's slurm block, and its settings reach the job script.
func TestFakeSlurmScriptCarriesStageOptions(t *testing.T) {
	state := fakeSlurm(t)
	f := newFixture(t, 2)
	f.slurm.Partition = "batch"
	f.job.Experiment.Stages["gen"] = schema.Stage{Raw: []byte(`{"kind": "fake", "slurm": {"mem": "3G", "extra_args": ["--nice=5"]}}`)}
	ran, failed, err := testExecutor(t).RunUnits(context.Background(), f.job)
	if err != nil || ran != 2 || failed != 0 {
		t.Fatalf("RunUnits = %d, %d, %v", ran, failed, err)
	}
	log, err := os.ReadFile(filepath.Join(state, "sbatch.log"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(strings.Fields(string(log))[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"#SBATCH --partition=batch", "#SBATCH --mem=3G", "#SBATCH --nice=5"} {
		if !strings.Contains(string(script), d+"\n") {
			t.Fatalf("script lacks %q:\n%s", d, script)
		}
	}
}
