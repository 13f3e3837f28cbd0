package optim

import (
	"math"
	"testing"
)

// TestAdamWMatchesHandComputation checks one step against torch's AdamW
// formulas written out by hand, including decoupled weight decay and clipping.
func TestAdamWMatchesHandComputation(t *testing.T) {
	p := Param{Name: "w", Value: []float32{1, -2}, Grad: []float64{3, 4}, Decay: true}
	o, err := New(Config{LR: 0.1, WeightDecay: 0.01, MaxGradNorm: 1}, []Param{p})
	if err != nil {
		t.Fatal(err)
	}
	st := o.Step()
	if st.GradNorm != 5 || st.LR != 0.1 {
		t.Fatalf("stats %+v, want norm 5, lr 0.1", st)
	}
	for i, x := range []float64{1, -2} {
		g := []float64{3, 4}[i] / (5 + 1e-6)
		m := 0.1 * g
		v := 0.001 * g * g
		want := x*(1-0.1*0.01) - 0.1*(m/(1-0.9))/(math.Sqrt(v/(1-0.999))+1e-8) // bias-corrected, step 1
		if math.Abs(float64(p.Value[i])-want) > 1e-6 {
			t.Errorf("value[%d] = %g, want %g", i, p.Value[i], want)
		}
	}
	if p.Grad[0] != 0 || p.Grad[1] != 0 {
		t.Error("Step did not zero the gradients")
	}
}

func TestLinearSchedule(t *testing.T) {
	cases := []struct {
		k, w, n int
		want    float64
	}{{0, 2, 10, 0}, {1, 2, 10, 0.5}, {2, 2, 10, 1}, {6, 2, 10, 0.5}, {10, 2, 10, 0}, {0, 0, 4, 1}, {5, 0, 0, 1}}
	for _, c := range cases {
		if got := LinearSchedule(c.k, c.w, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("LinearSchedule(%d,%d,%d) = %g, want %g", c.k, c.w, c.n, got, c.want)
		}
	}
}

// TestAdamWMinimisesQuadratic is a learning check: AdamW drives a
// quadratic to its minimum.
func TestAdamWMinimisesQuadratic(t *testing.T) {
	p := Param{Name: "x", Value: []float32{5, -3}, Grad: make([]float64, 2)}
	o, _ := New(Config{LR: 0.1, MaxGradNorm: -1}, []Param{p})
	for range 500 {
		for i, x := range p.Value {
			p.Grad[i] = 2 * (float64(x) - 1)
		}
		o.Step()
	}
	for i, x := range p.Value {
		if math.Abs(float64(x)-1) > 1e-2 {
			t.Errorf("x[%d] = %g, want 1", i, x)
		}
	}
}

func TestRestoreChecksShapes(t *testing.T) {
	p := Param{Name: "x", Value: []float32{1}, Grad: []float64{0}}
	o, _ := New(Config{LR: 1}, []Param{p})
	if err := o.Restore(State{M: map[string][]float64{}, V: map[string][]float64{}}); err == nil {
		t.Error("restoring a state without moments succeeded")
	}
}
