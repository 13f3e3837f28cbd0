package runner

import (
	"fmt"
	"hash/fnv"
)

// Shard makes a run a remote worker's share of one stage: it runs that
// stage's units in this process against Options.Store (normally the
// worker's own copy of a snapshot of the controller's database, which the
// controller's executor ingests afterwards), restricted to the units the
// shard owns. It is what `mascot stage-exec` runs inside a Slurm job.
//
// A shard run executes only Stage (its upstream stages must be done in the
// store), never calls the stage's Finish (that is left to the
// controller), writes the stage's files (adapters, models) under
// RunDir/<stage>/ when RunDir is set, and reads the endpoints of
// slurm-server endpoints that the controller's servers published there.
type Shard struct {
	Stage string
	// Units lists the fingerprints of the shard's units, when the
	// executor knew them before submitting. Listed units the stage does
	// not produce are ignored.
	Units []string
	// Part and Parts, when Parts > 0, select the units instead of Units
	// (a detached job lists its own stage's units): the shard runs the
	// pending units whose ShardOf(fingerprint, Parts) is Part.
	Part, Parts int
	// RunDir is the controller's run directory (on the shared
	// filesystem), so artifact paths ingested into the controller's store
	// point at files next to its run; "" keeps this run's own directory.
	RunDir string
}

// scopeShard checks opts.Shard and limits the run to its stage.
func scopeShard(opts *Options) error {
	sh := opts.Shard
	if sh == nil {
		return nil
	}
	if _, ok := opts.Loaded.Experiment.Stages[sh.Stage]; !ok {
		return fmt.Errorf("stage %q is not in the experiment", sh.Stage)
	}
	if sh.Parts > 0 && (sh.Part < 0 || sh.Part >= sh.Parts) {
		return fmt.Errorf("shard %d of stage %s is out of range: the stage has %d shards", sh.Part, sh.Stage, sh.Parts)
	}
	opts.Only, opts.From = sh.Stage, ""
	return nil
}

// owner returns the function that keeps the units the shard owns.
func (sh *Shard) owner() func([]Unit) []Unit {
	own := func(fp string) bool { return ShardOf(fp, sh.Parts) == sh.Part }
	if sh.Parts <= 0 {
		set := make(map[string]bool, len(sh.Units))
		for _, fp := range sh.Units {
			set[fp] = true
		}
		own = func(fp string) bool { return set[fp] }
	}
	return func(pending []Unit) []Unit {
		var out []Unit
		for _, u := range pending {
			if own(u.Fingerprint) {
				out = append(out, u)
			}
		}
		return out
	}
}

// ShardOf is the shard (0..parts-1) a detached stage job assigns the unit
// with fingerprint fp to; every job of the stage computes the same split.
func ShardOf(fp string, parts int) int {
	if parts <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(fp))
	return int(h.Sum32() % uint32(parts))
}

// inShard reports whether this run is a shard of stage key; such a run
// runs the stage's units only: its Finish runs on the controller.
func (r *run) inShard(key string) bool {
	return r.opts.Shard != nil && r.opts.Shard.Stage == key
}

// shardRunDir is the directory a shard's stage writes files into (the
// controller's run directory), "" outside a shard run.
func (r *run) shardRunDir() string {
	if r.opts.Shard == nil {
		return ""
	}
	return r.opts.Shard.RunDir
}
