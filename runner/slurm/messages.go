package slurm

import (
	"errors"
	"fmt"
	"strings"
)

// Terminal reports whether a state is final for this attempt. PREEMPTED
// and NODE_FAIL jobs may come back when they are requeued, but squeue
// then shows them PENDING again, so they are treated as final only while
// they stay that way.
func Terminal(state string) bool {
	switch state {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY",
		"BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT":
		return true
	}
	return false
}

// StateMessage explains a final state that is not success in words a user
// can act on.
func StateMessage(state, reason string) string {
	switch state {
	case "TIMEOUT":
		return "hit its time limit; raise slurm.time (the stage resumes its done units on rerun)"
	case "NODE_FAIL":
		return "its node failed; rerun to retry the units it did not finish"
	case "PREEMPTED":
		return "was preempted by a higher-priority job; rerun to retry (or use a QOS that is not preemptible)"
	case "OUT_OF_MEMORY":
		return "ran out of memory; raise slurm.mem"
	case "CANCELLED":
		return "was cancelled (scancel, or a dependency could never be satisfied)"
	case "BOOT_FAIL":
		return "its node failed to boot; rerun to retry"
	case "DEADLINE":
		return "missed its deadline"
	case "FAILED":
		if reason != "" && reason != "None" {
			return "failed (" + reason + ")"
		}
		return "failed"
	}
	return strings.ToLower(state)
}

// PendingMessage explains why a job waits; "" for nothing worth saying.
func PendingMessage(reason string) string {
	switch {
	case reason == "" || reason == "None":
		return ""
	case reason == "Resources":
		return "waiting for resources (GPUs, CPUs or memory) to free up"
	case reason == "Priority":
		return "waiting behind higher-priority jobs"
	case reason == "Dependency":
		return "waiting for the jobs it depends on"
	case reason == "DependencyNeverSatisfied":
		return "will never start: a job it depends on failed (scancel it)"
	case reason == "BeginTime":
		return "waiting for its begin time"
	case reason == "JobHeldUser" || reason == "JobHeldAdmin":
		return "held; release it with scontrol release"
	case reason == "PartitionTimeLimit":
		return "will never start: slurm.time exceeds the partition's time limit"
	case reason == "PartitionNodeLimit" || reason == "BadConstraints":
		return "will never start: the partition cannot satisfy the request (" + reason + ")"
	case reason == "ReqNodeNotAvail":
		return "waiting: the requested nodes are down, drained or reserved"
	case reason == "InvalidAccount" || reason == "InvalidQOS":
		return "will never start: " + reason + " (check slurm.account and slurm.qos)"
	case strings.HasPrefix(reason, "QOS") || strings.HasPrefix(reason, "Assoc"):
		return "waiting: a limit of the QOS or account is reached (" + reason + ")"
	}
	return "pending (" + reason + ")"
}

// NeverStarts reports whether a pending reason means the job cannot run.
func NeverStarts(reason string) bool {
	switch reason {
	case "DependencyNeverSatisfied", "PartitionTimeLimit", "PartitionNodeLimit", "BadConstraints",
		"InvalidAccount", "InvalidQOS":
		return true
	}
	return false
}

// ErrUnsatisfiable is returned when sbatch rejects a request that no node
// of the cluster can satisfy.
var ErrUnsatisfiable = errors.New("no node of the cluster can satisfy the request")

// explainSubmit turns sbatch's rejections into actionable errors.
func explainSubmit(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Requested node configuration is not available"):
		return fmt.Errorf("%w (check slurm.gpus, slurm.cpus and slurm.mem against the partition's nodes): %v", ErrUnsatisfiable, err)
	case strings.Contains(msg, "Invalid partition"):
		return fmt.Errorf("the partition does not exist (check slurm.partition): %w", err)
	case strings.Contains(msg, "Invalid account") || strings.Contains(msg, "Invalid qos"):
		return fmt.Errorf("the account or QOS is not valid here (check slurm.account and slurm.qos): %w", err)
	case strings.Contains(msg, "time limit"):
		return fmt.Errorf("the time limit is over the partition's (check slurm.time): %w", err)
	case strings.Contains(msg, "executable file not found"):
		return fmt.Errorf("sbatch is not installed or not on PATH: %w", err)
	}
	return err
}
