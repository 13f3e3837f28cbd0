package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// episodeTallyTrigger is migration 0007's per-row trigger that counts each
// inserted episode into run_stage_units. An import inserts 100,000
// episodes of one unit in one transaction; it suspends the trigger and
// counts them in one statement at the end, inside the same transaction (a
// failed import rolls the trigger's removal back with everything else).
const episodeTallyTrigger = "run_stage_units_episode_add"

// suspendEpisodeTally drops the tally trigger for the rest of tx; resume
// creates it again from its stored definition and adds n episodes of unit
// fp to the tallies, as n firings of the trigger would have (run_units does
// not change in between). Without the trigger, resume does nothing.
func suspendEpisodeTally(ctx context.Context, tx *sql.Tx) (resume func(fp string, n int) error, err error) {
	var ddl string
	err = tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`,
		episodeTallyTrigger).Scan(&ddl)
	if errors.Is(err, sql.ErrNoRows) {
		return func(string, int) error { return nil }, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading trigger %s: %w", episodeTallyTrigger, err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TRIGGER `+episodeTallyTrigger); err != nil {
		return nil, fmt.Errorf("suspending trigger %s: %w", episodeTallyTrigger, err)
	}
	return func(fp string, n int) error {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("restoring trigger %s: %w", episodeTallyTrigger, err)
		}
		_, err := tx.ExecContext(ctx, `UPDATE run_stage_units SET episodes = episodes + ?
			WHERE (run_id, stage_key) IN (SELECT run_id, stage_key FROM run_units WHERE fingerprint = ?)`, n, fp)
		if err != nil {
			return fmt.Errorf("counting the imported episodes: %w", err)
		}
		return nil
	}, nil
}
