package train_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
)

// finite reports whether every value is set and finite.
func finite(ps ...*float64) bool {
	for _, p := range ps {
		if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
			return false
		}
	}
	return true
}

// Pretraining, SFT and DPO report held-out figures on data they never
// trained on, before and after training: the stage metrics read back by
// Store.Heldout, the artifact's eval and run_summary.json agree.
func TestLanguageAndDPOStagesReportHeldout(t *testing.T) {
	l := writeSpec(t, `stages: `+candStage+`stages: {
	sft: {kind: "train-sft", dataset: "es", base_stage: "pre", max_steps: 10, batch_size: 4, max_length: 160, lr: 1e-2,
		lora: {r: 8, alpha: 16}}
	dpo: {kind: "train-dpo", pairs: "prs", base_stage: "pre", max_steps: 12, batch_size: 4, max_length: 96, lr: 2e-2,
		lora: {r: 8, alpha: 16}}
}
`)
	h := newHarness(t, l, fakeRegistry())
	sum := h.run()
	held, err := h.store.Heldout(context.Background(), h.runID())
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range held {
		b, _ := json.Marshal(v)
		t.Logf("%s heldout %s", k, b)
	}

	// pretrain: one of the corpus's six lines (default fraction 0.1) is
	// held out; made of the same phrases, its loss falls well below the
	// random model's ln 259 (the byte-level vocabulary) = 5.56 nats.
	pre := held["pre"]
	if pre == nil || !finite(pre.LossBefore, pre.Loss, pre.PerplexityBefore, pre.Perplexity) || pre.Examples != 1 || pre.Tokens == 0 {
		t.Fatalf("pretrain held-out %+v, want finite losses and perplexities on one window", pre)
	}
	if !(*pre.LossBefore > 4.5) || !(*pre.Loss < *pre.LossBefore-1.5) || math.Abs(*pre.Perplexity-math.Exp(*pre.Loss)) > 1e-9 {
		t.Errorf("pretrain held-out loss %.3f -> %.3f (perplexity %.3f), want from near ln 259 down by 1.5 nats",
			*pre.LossBefore, *pre.Loss, *pre.Perplexity)
	}
	var meta struct {
		TrainLines   int `json:"train_lines"`
		HeldoutLines int `json:"heldout_lines"`
	}
	if err := json.Unmarshal(h.artifact("model").Meta, &meta); err != nil || meta.TrainLines != 5 || meta.HeldoutLines != 1 {
		t.Errorf("pretrain artifact: %d train and %d held-out lines (%v), want 5 and 1", meta.TrainLines, meta.HeldoutLines, err)
	}

	// train-sft: two conversations, one held out with all its turns;
	// training on the other's lowers its completion loss a little.
	sft := held["sft"]
	if sft == nil || !finite(sft.LossBefore, sft.Loss, sft.PerplexityBefore, sft.Perplexity) || sft.Examples == 0 || sft.Tokens == 0 ||
		sft.Accuracy != nil {
		t.Fatalf("sft held-out %+v, want finite losses on held-out examples", sft)
	}
	if !(*sft.Loss < *sft.LossBefore) {
		t.Errorf("sft held-out loss %.4f -> %.4f, want it lower", *sft.LossBefore, *sft.Loss)
	}

	// train-dpo: two of the eight queries held out. Before training the
	// adapter is the reference (no pair ranked, loss ln 2); after, the
	// sentence beats the gibberish on both.
	dpo := held["dpo"]
	if dpo == nil || !finite(dpo.AccuracyBefore, dpo.Accuracy, dpo.LossBefore, dpo.Loss) || dpo.Pairs != 2 {
		t.Fatalf("dpo held-out %+v, want finite figures on 2 pairs", dpo)
	}
	if *dpo.AccuracyBefore != 0 || math.Abs(*dpo.LossBefore-math.Ln2) > 1e-9 || *dpo.Accuracy != 1 || !(*dpo.Loss < math.Ln2) {
		t.Errorf("dpo held-out accuracy %v -> %v, loss %.4f -> %.4f; want 0 -> 1 and ln 2 -> less",
			*dpo.AccuracyBefore, *dpo.Accuracy, *dpo.LossBefore, *dpo.Loss)
	}

	for _, st := range sum.Stages {
		want := held[st.Key]
		if (want == nil) != (st.Heldout == nil) {
			t.Errorf("run summary stage %s held-out %+v, ledger %+v", st.Key, st.Heldout, want)
			continue
		}
		if want != nil && (st.Heldout.Loss == nil || *st.Heldout.Loss != *want.Loss) {
			t.Errorf("run summary stage %s held-out loss differs from the ledger's", st.Key)
		}
	}
	if s := h.run(); s.Ran != 0 {
		t.Fatalf("rerun ran %d units, want 0", s.Ran)
	}
}
