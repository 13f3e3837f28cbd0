package computetest

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/compute"
)

// Tolerances are the relative errors allowed per class of output (see the
// package documentation for the measure).
type Tolerances struct {
	// F32 holds element-wise and row-wise ops on F32 data.
	F32 float64
	// Products holds the matrix products on F32 operands: Gemm, Attention
	// and its backward, the LM head with an F32 head. 0 means F32's; a
	// backend that runs them on TF32 or bf16 tensor cores states its own.
	Products float64
	// BF16 holds products with a BF16 weight (Gemm, the LM head).
	BF16 float64
}

// Default is what a backend computing in float32 meets.
var Default = Tolerances{F32: 1e-5, Products: 1e-5, BF16: 1e-2}

// class says which tolerance an output is held to.
type class int

const (
	exact class = iota
	f32
	products
	bf16
	f64
)

func (c class) String() string {
	return [...]string{"exact", "F32", "Products", "BF16", "float64"}[c]
}

func (tol Tolerances) of(c class) float64 {
	switch c {
	case f32:
		return tol.F32
	case products:
		if tol.Products == 0 {
			return tol.F32
		}
		return tol.Products
	case bf16:
		return tol.BF16
	case f64:
		return 1e-12
	}
	return 0
}

// output is one result of a case. want, when set by the case itself, is
// its expected value (the untouched elements around a view); otherwise
// the case's reference supplies it by name.
type output struct {
	name  string
	got   []float64
	class class
	want  []float64
	// floor, when above the output's rms, replaces it in the bound: for
	// outputs that may be all zero in exact arithmetic while float32
	// leaves noise of the inputs' scale.
	floor float64
}

// instance is one op call on fixed inputs: run performs it on a backend
// and returns the downloaded outputs; ref computes the outputs in float64.
type instance struct {
	run func(e *env) []output
	ref func() map[string][]float64
}

// variant is one shape or flag combination of an op.
type variant struct {
	name  string
	build func(r *rand.Rand) instance
}

// opCase is one op with its variants.
type opCase struct {
	name     string
	variants []variant
}

// cases lists every op case, in the order subtests run.
func cases() []opCase {
	var all []opCase
	all = append(all, gemmCases()...)
	all = append(all, indexCases()...)
	all = append(all, elementCases()...)
	all = append(all, normCases()...)
	all = append(all, attentionCases()...)
	all = append(all, headCases()...)
	all = append(all, adamCases()...)
	return all
}

// seedOf gives each variant its own reproducible inputs.
func seedOf(name string) int64 {
	var h int64 = 1469598103
	for _, c := range name {
		h = h*1099511 + int64(c)
	}
	return h
}

// Run checks the backend open returns against the float64 references with
// the Default tolerances; open is called once for the op subtests and once
// more for each contract that leaves a backend in a sticky error.
func Run(t *testing.T, open func(t *testing.T) compute.Backend) {
	RunWith(t, open, Default)
}

// RunWith is Run with other tolerances (tighter, for a backend that meets
// them: the CPU backend passes F32 tolerances on BF16 products).
func RunWith(t *testing.T, open func(t *testing.T) compute.Backend, tol Tolerances) {
	b := open(t)
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range c.variants {
				t.Run(v.name, func(t *testing.T) {
					inst := v.build(rand.New(rand.NewSource(seedOf(c.name + "/" + v.name))))
					if b.Sync() != nil {
						b = open(t) // an earlier variant left a sticky error
					}
					outs := runOn(t, b, inst)
					ref := inst.ref()
					for _, o := range outs {
						want := o.want
						if want == nil {
							want = ref[o.name]
						}
						if want == nil {
							t.Fatalf("no reference for output %s", o.name)
						}
						checkClose(t, o.name, o.got, want, o.class, tol, o.floor)
					}
				})
			}
		})
	}
	contracts(t, b, open)
}

// Compare runs every case on want and on got, and checks got's outputs
// against want's with tol (the bound scales with want's values).
func Compare(t *testing.T, want, got compute.Backend, tol Tolerances) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range c.variants {
				t.Run(v.name, func(t *testing.T) {
					seed := seedOf(c.name + "/" + v.name)
					ow := runOn(t, want, v.build(rand.New(rand.NewSource(seed))))
					og := runOn(t, got, v.build(rand.New(rand.NewSource(seed))))
					for i, o := range og {
						checkClose(t, o.name+" ("+got.Name()+" vs "+want.Name()+")", o.got, ow[i].got, o.class, tol, o.floor)
					}
				})
			}
		})
	}
}

// runOn runs inst on b, frees what it allocated and fails on a sticky
// error.
func runOn(t *testing.T, b compute.Backend, inst instance) []output {
	t.Helper()
	e := &env{b: b}
	outs := inst.run(e)
	err := b.Sync()
	e.freeAll()
	if err != nil {
		t.Fatalf("backend error: %v", err)
	}
	return outs
}

// checkClose fails t when an element of got is not within the class's
// tolerance of want (NaN never is).
func checkClose(t *testing.T, name string, got, want []float64, c class, tol Tolerances, floor float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", name, len(got), len(want))
	}
	rel := tol.of(c)
	var ss float64
	finite := 0
	for _, w := range want {
		if !math.IsNaN(w) && !math.IsInf(w, 0) {
			ss += w * w
			finite++
		}
	}
	rms := max(floor, math.Sqrt(ss/float64(max(1, finite))))
	var bad []string
	worst := 0.0
	for i := range got {
		d := math.Abs(got[i] - want[i])
		bound := rel * (math.Abs(want[i]) + rms)
		if got[i] == want[i] || (math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			continue
		}
		if c != exact && d <= bound {
			if r := d / (math.Abs(want[i]) + rms); r > worst {
				worst = r
			}
			continue
		}
		if len(bad) < 5 {
			bad = append(bad, fmt.Sprintf("[%d] got %.9g want %.9g (|diff| %.3g, bound %.3g)", i, got[i], want[i], d, bound))
		}
		if len(bad) == 5 {
			bad = append(bad, "…")
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s (%s tolerance %g, rms %.4g): %s", name, c, rel, rms, strings.Join(bad, "; "))
	}
}
