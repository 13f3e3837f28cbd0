package slurm

import (
	"encoding/json"
	"fmt"

	"mascot.dev/mascot/schema"
)

// StageOptions are the sbatch settings of stage key: the experiment's
// executor.slurm block overlaid with the stage's own slurm block (set
// fields win; extra_args are appended).
func StageOptions(exp *schema.Experiment, key string) (schema.SlurmOptions, error) {
	var o schema.SlurmOptions
	if exp == nil {
		return o, nil
	}
	if base := exp.Executor.Slurm; base != nil {
		o = *base
		o.ExtraArgs = append([]string(nil), base.ExtraArgs...)
	}
	st, ok := exp.Stages[key]
	if !ok || len(st.Raw) == 0 {
		return o, nil
	}
	var raw struct {
		Slurm *schema.SlurmOptions `json:"slurm"`
	}
	if err := json.Unmarshal(st.Raw, &raw); err != nil {
		return o, fmt.Errorf("decoding slurm options of stage %s: %w", key, err)
	}
	s := raw.Slurm
	if s == nil {
		return o, nil
	}
	setStr := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	setInt := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	setStr(&o.Partition, s.Partition)
	setStr(&o.Mem, s.Mem)
	setStr(&o.Time, s.Time)
	setStr(&o.Account, s.Account)
	setStr(&o.QOS, s.QOS)
	setInt(&o.GPUs, s.GPUs)
	setInt(&o.CPUs, s.CPUs)
	setInt(&o.ArrayParallelism, s.ArrayParallelism)
	o.ExtraArgs = append(o.ExtraArgs, s.ExtraArgs...)
	return o, nil
}
