//go:build cuda

package cuda

import (
	"fmt"
	"sort"
	"strings"
)

// EmulatorKernels is the C++ that compiles the kernels into the host
// emulator of the CUDA libraries (trainer/compute/cuda/cudatest, for tests
// without a GPU): the kernels' source, then a table from each kernel's
// name to a launcher that unpacks cuLaunchKernel's parameter array, and
// whether the kernel waits at barriers (its threads then run as fibers).
func EmulatorKernels() string {
	var names []string
	for n := range kernelSigs {
		names = append(names, n)
	}
	sort.Strings(names)
	src := kernelSource()
	var b strings.Builder
	b.WriteString("#include \"emu_prelude.h\"\n")
	b.WriteString(src)
	b.WriteString(`
#include <functional>
#include <map>
#include <string>
#include <utility>
using Launcher = std::function<void(void**)>;
struct Kernel {
	Launcher run;
	bool fibers;
};
template <typename... A, std::size_t... I>
static void emu_call(void (*f)(A...), void** p, std::index_sequence<I...>) { f(*static_cast<A*>(p[I])...); }
template <typename... A>
static Launcher emu_launcher(void (*f)(A...)) { return [f](void** p) { emu_call(f, p, std::index_sequence_for<A...>{}); }; }
const std::map<std::string, Kernel>& emu_kernels() {
	static const std::map<std::string, Kernel> m = {
`)
	for _, n := range names {
		fmt.Fprintf(&b, "\t\t{%q, {emu_launcher(%s), %v}},\n", n, n, waits(src, n))
	}
	b.WriteString("\t};\n\treturn m;\n}\n")
	return b.String()
}

// waits says whether kernel name's body waits at a barrier or shuffles
// (directly or through the block reductions).
func waits(src, name string) bool {
	i := strings.Index(src, " "+name+"(")
	if i < 0 {
		return true
	}
	body := src[i:]
	if j := strings.Index(body[1:], "extern \"C\""); j >= 0 {
		body = body[:j+1]
	}
	for _, w := range []string{"__syncthreads", "__shfl", "block_sum(", "block_max("} {
		if strings.Contains(body, w) {
			return true
		}
	}
	return false
}
