package train

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDoneTrainingLeavesNoCheckpointFolder: a finished unit removes its
// checkpoint folder, and the shared runs/checkpoints/ goes with the last
// one, so a finished run leaves no checkpoint folder to explain; a unit
// still running keeps its own.
func TestDoneTrainingLeavesNoCheckpointFolder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "checkpoints")
	a, b := filepath.Join(root, "fp-a"), filepath.Join(root, "fp-b")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "trainer_state.gob"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := doneTraining(a); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("finished unit's checkpoint %s still there (%v)", a, err)
	}
	if _, err := os.Stat(filepath.Join(b, "trainer_state.gob")); err != nil {
		t.Fatalf("a running unit's checkpoint was removed: %v", err)
	}
	if err := doneTraining(b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("checkpoints/ is left after its last unit finished (%v)", err)
	}
}
