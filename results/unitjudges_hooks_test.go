package results

import "context"

// ForgetUnitScoresForTest drops unit fp's score sums, as a later write to
// its judgments does (migration 0008's triggers).
func (s *Store) ForgetUnitScoresForTest(ctx context.Context, fp string) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM unit_scores WHERE unit_fp = ?`, fp)
	return err
}
