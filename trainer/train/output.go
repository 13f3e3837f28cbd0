package train

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"mascot.dev/mascot/trainer/lora"
	"mascot.dev/mascot/trainer/qwen3"
)

// adapterOf returns the model's current LoRA adapter in PEFT form.
func adapterOf(m Network, o Options) *lora.Adapter {
	lc := o.LoRA
	c := lora.NewConfig(o.BaseModelName, lc.R, lc.Alpha, lc.TargetList())
	if o.BaseRevision != "" {
		rev := o.BaseRevision
		c.Revision = &rev
	}
	c.LoraDropout = lc.Dropout
	c.UseRSLoRA = lc.UseRSLoRA
	return &lora.Adapter{Config: c, Weights: m.LoRAWeights()}
}

// writeOutput saves the trained artifact: a PEFT adapter when the model
// has one, else the full model as a checkpoint directory.
func (s *session) writeOutput() error {
	m := s.model
	if s.o.LoRA != nil {
		if err := adapterOf(m, s.o).Save(s.o.OutputDir); err != nil {
			return fmt.Errorf("saving adapter: %w", err)
		}
		if s.o.BaseFingerprint != "" {
			if err := lora.WriteMeta(s.o.OutputDir, lora.Meta{Base: s.o.BaseFingerprint}); err != nil {
				return fmt.Errorf("saving adapter: %w", err)
			}
		}
		s.res.Kind = "adapter"
	} else {
		qm, err := qwen3.New(s.cfg, m.Weights())
		if err != nil {
			return fmt.Errorf("saving model: %w", err)
		}
		if err := qm.Save(s.o.OutputDir); err != nil {
			return fmt.Errorf("saving model: %w", err)
		}
		s.res.Kind = "model"
	}
	return s.hashOutput()
}

// hashOutput fills Result.Dir and Result.Files with every file's sha256.
func (s *session) hashOutput() error {
	s.res.Dir = s.o.OutputDir
	s.res.Files = map[string]string{}
	var names []string
	err := filepath.WalkDir(s.o.OutputDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		names = append(names, path)
		return nil
	})
	if err != nil {
		return fmt.Errorf("hashing outputs: %w", err)
	}
	sort.Strings(names)
	for _, path := range names {
		sum, err := fileSHA256(path)
		if err != nil {
			return fmt.Errorf("hashing outputs: %w", err)
		}
		rel, _ := filepath.Rel(s.o.OutputDir, path)
		s.res.Files[filepath.ToSlash(rel)] = sum
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
