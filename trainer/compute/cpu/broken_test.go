package cpu_test

import (
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"mascot.dev/mascot/trainer/compute"
	"mascot.dev/mascot/trainer/compute/computetest"
	"mascot.dev/mascot/trainer/compute/cpu"
)

// broken is the CPU backend with one op made wrong the way a backend
// could plausibly get it wrong.
type broken struct {
	*cpu.Backend
	op string
}

func (b broken) Attention(a compute.Attn) {
	if b.op == "Attention" { // padding ignored: every row as long as T
		l := b.Alloc(compute.I32, a.B)
		v := make([]int32, a.B)
		for i := range v {
			v[i] = int32(a.T)
		}
		b.Upload(l, v)
		a.Lens = l
	}
	b.Backend.Attention(a)
}

func (b broken) AttentionBackward(a compute.Attn, dOut, dQ, dK, dV compute.Tensor) {
	b.Backend.AttentionBackward(a, dOut, dQ, dK, dV)
	if b.op == "AttentionBackward" { // one element of dK off by 1e-3
		b.nudge(dK)
	}
}

func (b broken) LogProbs(h compute.LMHead) {
	b.Backend.LogProbs(h)
	if b.op == "LogProbs" {
		b.nudge(h.LSE)
	}
}

func (b broken) Gemm(transA, transB bool, m, n, k int, alpha float32, a compute.Tensor, lda int, bt compute.Tensor, ldb int, beta float32, c compute.Tensor, ldc int) {
	if b.op == "Gemm" && beta == 0 { // beta 0 multiplies C instead of ignoring it
		beta = 1e-30
	}
	b.Backend.Gemm(transA, transB, m, n, k, alpha, a, lda, bt, ldb, beta, c, ldc)
}

func (b broken) RMSNormBackward(dx, dw, dy, x, w, rstd compute.Tensor, rows, dim int, accumulate bool) {
	if b.op == "RMSNormBackward" { // the accumulate flag ignored
		accumulate = false
	}
	b.Backend.RMSNormBackward(dx, dw, dy, x, w, rstd, rows, dim, accumulate)
}

func (b broken) ScatterAdd(dst, src, idx compute.Tensor, dim int) {
	if b.op == "ScatterAdd" { // overwrites the rows it should add into
		b.Zero(dst)
	}
	b.Backend.ScatterAdd(dst, src, idx, dim)
}

func (b broken) Upload(dst compute.Tensor, src any) {
	if f, ok := src.([]float32); ok && b.op == "UploadRoundsBF16" && dst.DType() == compute.BF16 {
		bits := make([]uint16, len(f)) // truncates instead of rounding
		for i, v := range f {
			bits[i] = uint16(math.Float32bits(v) >> 16)
		}
		src = bits
	}
	b.Backend.Upload(dst, src)
}

// nudge scales t's largest element by 1 + 1e-3.
func (b broken) nudge(t compute.Tensor) {
	v := make([]float32, t.Len())
	b.Download(v, t)
	big := 0
	for i, x := range v {
		if math.Abs(float64(x)) > math.Abs(float64(v[big])) {
			big = i
		}
	}
	v[big] *= 1 + 1e-3
	b.Backend.Upload(t, v)
}

// TestSuiteCatchesBrokenBackends runs the suite's subtest for each op on
// a backend with that op broken, in a child process (a failing suite
// fails its test), and wants it to fail.
func TestSuiteCatchesBrokenBackends(t *testing.T) {
	if op := os.Getenv("MASCOT_BREAK_OP"); op != "" {
		computetest.Run(t, func(t *testing.T) compute.Backend {
			b, err := cpu.New(cpu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return broken{Backend: b, op: op}
		})
		return
	}
	for _, op := range []string{"Attention", "AttentionBackward", "LogProbs", "Gemm", "RMSNormBackward", "ScatterAdd", "UploadRoundsBF16"} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSuiteCatchesBrokenBackends$/^"+op+"$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MASCOT_BREAK_OP="+op)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("the suite passed a backend whose %s is broken:\n%s", op, out)
			continue
		}
		if !strings.Contains(string(out), "--- FAIL: TestSuiteCatchesBrokenBackends/"+op) {
			t.Errorf("breaking %s did not fail its subtest:\n%s", op, out)
		}
	}
}
