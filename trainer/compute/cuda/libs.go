package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mascot.dev/mascot/internal/dl"
)

// EnvLibs names the environment variable with extra directories (colon
// separated, like PATH) searched for the CUDA libraries after the
// loader's standard paths. On a machine whose cuBLAS and NVRTC sit inside
// a Python environment (NVIDIA's pip wheels), point it at their lib
// folders; scripts/gpu-check shows how it finds them.
const EnvLibs = "MASCOT_CUDA_LIBS"

// majors are the CUDA major versions whose cuBLAS and NVRTC sonames are
// tried, newest first; the unversioned development symlink comes last.
var majors = []string{"13", "12"}

// libraries are the shared libraries the backend runs on, all opened
// RTLD_GLOBAL.
type libraries struct {
	driver, blasLt, blas, nvrtc *dl.Lib
	// builtins is NVRTC's companion library when it was found beside
	// NVRTC (nil when the loader's own search will find it).
	builtins *dl.Lib
}

func versioned(base string) []string {
	var out []string
	for _, m := range majors {
		out = append(out, base+"."+m)
	}
	return append(out, base)
}

// soSuffix is what follows ".so" in a library's file name (".13", or "").
func soSuffix(path string) string {
	b := filepath.Base(path)
	if i := strings.Index(b, ".so"); i >= 0 {
		return b[i+3:]
	}
	return ""
}

// openLibraries loads the driver, cuBLASLt, cuBLAS and NVRTC: each name
// through the loader's standard search (LD_LIBRARY_PATH, the ld.so cache,
// the default directories), then inside each of dirs. cuBLAS is taken of
// the same major version as cuBLASLt, which it links against. Every
// library that is missing is reported, with every file tried.
func openLibraries(dirs []string) (*libraries, error) {
	var libs libraries
	var errs []error
	open := func(what string, names []string) *dl.Lib {
		l, err := dl.Open(names, dirs)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
		return l
	}
	libs.driver = open("the CUDA driver", []string{"libcuda.so.1", "libcuda.so"})
	libs.blasLt = open("cuBLASLt", versioned("libcublasLt.so"))
	if libs.blasLt != nil {
		libs.blas = open("cuBLAS", []string{"libcublas.so" + soSuffix(libs.blasLt.Path)})
	} else {
		libs.blas = open("cuBLAS", versioned("libcublas.so"))
	}
	libs.nvrtc = open("NVRTC", versioned("libnvrtc.so"))
	if libs.nvrtc != nil {
		libs.builtins = openBuiltins(libs.nvrtc.Path)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading the CUDA libraries (searched the loader's paths, then %s=%q): %w",
			EnvLibs, strings.Join(dirs, ":"), errors.Join(errs...))
	}
	return &libs, nil
}

// openBuiltins opens NVRTC's libnvrtc-builtins beside an NVRTC loaded by
// path: NVRTC opens it by soname at its first compile, which the loader
// resolves to an already loaded library but would not find in a
// directory it does not search (a pip wheel's lib folder).
func openBuiltins(nvrtcPath string) *dl.Lib {
	if !strings.Contains(nvrtcPath, "/") {
		return nil
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(nvrtcPath), "libnvrtc-builtins.so.*"))
	sort.Sort(sort.Reverse(sort.StringSlice(matches)))
	for _, m := range matches {
		if l, err := dl.Open([]string{m}, nil); err == nil {
			return l
		}
	}
	return nil
}

// libDirs is the value of MASCOT_CUDA_LIBS as a list.
func libDirs() []string { return dl.SplitDirs(os.Getenv(EnvLibs)) }

// FindLibraries reports whether the CUDA libraries can be loaded here,
// and which files it tried when they cannot. It needs no GPU and no
// -tags cuda build; the preflight of a stage with device "cuda" calls it
// through Probe.
func FindLibraries() ([]string, error) {
	l, err := openLibraries(libDirs())
	if err != nil {
		return nil, err
	}
	out := []string{l.driver.Path, l.blasLt.Path, l.blas.Path, l.nvrtc.Path}
	if l.builtins != nil {
		out = append(out, l.builtins.Path)
	}
	return out, nil
}
