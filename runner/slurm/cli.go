package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"os/user"
	"strings"
)

// CLI runs the Slurm commands. Tests put fake sbatch/squeue/scontrol/
// scancel scripts on PATH; Prefix (e.g. a directory) is prepended to the
// command names when set.
type CLI struct {
	// Prefix is prepended to every command name ("/opt/slurm/bin/").
	Prefix string
	// User filters squeue; default the current user.
	User string
}

func (c *CLI) run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.Prefix+name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	return out.String(), nil
}

// Submit runs `sbatch --parsable [args] script` and returns the job id.
func (c *CLI) Submit(ctx context.Context, script string, args ...string) (string, error) {
	out, err := c.run(ctx, "sbatch", append(append([]string{"--parsable"}, args...), script)...)
	if err != nil {
		return "", explainSubmit(err)
	}
	return ParseSbatch(out)
}

// Queue lists every job of the user that slurmctld still knows, array
// tasks one per line (`squeue -h -r -t all`), keyed by job id ("12",
// "12_3").
func (c *CLI) Queue(ctx context.Context) (map[string]Job, error) {
	u := c.User
	if u == "" {
		cur, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("finding the current user: %w", err)
		}
		u = cur.Username
	}
	out, err := c.run(ctx, "squeue", "-h", "-r", "-t", "all", "-u", u, "-o", squeueFormat)
	if err != nil {
		return nil, err
	}
	return ParseSqueue(out)
}

// Show runs `scontrol show job -o ID`; a job slurmctld no longer knows
// gives ErrUnknownJob.
func (c *CLI) Show(ctx context.Context, id string) ([]Job, error) {
	out, err := c.run(ctx, "scontrol", "show", "job", "-o", id)
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return nil, fmt.Errorf("job %s: %w", id, ErrUnknownJob)
		}
		return nil, err
	}
	return ParseScontrol(out)
}

// Cancel runs scancel on the ids.
func (c *CLI) Cancel(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := c.run(ctx, "scancel", ids...)
	return err
}

// Requeue runs `scontrol requeue ID`.
func (c *CLI) Requeue(ctx context.Context, id string) error {
	_, err := c.run(ctx, "scontrol", "requeue", id)
	return err
}
