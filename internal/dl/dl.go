// Package dl opens shared libraries at run time (dlopen and dlsym), so
// that native libraries the project can use but must not need in order to
// build — OpenBLAS for the CPU trainer, the CUDA driver, cuBLAS and NVRTC
// for the GPU one — are found when the program starts, not when it links.
//
// Layer: internal, below everything. It knows no library; callers name the
// files to try and call the symbols through cgo trampolines of their own.
package dl

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// dlerror's message belongs to the OS thread and lives until that
// thread's next dl call, while a goroutine may go on on another thread
// after each cgo call (and another goroutine on this one): the message is
// read and copied in the call that failed; the Go caller frees the copy.
static char *mascot_dlerror(void) {
	const char *e = dlerror();
	return e == NULL ? NULL : strdup(e);
}

static void *mascot_dlopen(const char *path, int flags, char **err) {
	void *h = dlopen(path, flags);
	*err = h == NULL ? mascot_dlerror() : NULL;
	return h;
}

static void *mascot_dlsym(void *h, const char *name, char **err) {
	dlerror();
	void *p = dlsym(h, name);
	*err = p == NULL ? mascot_dlerror() : NULL;
	return p;
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"
)

// Lib is an opened shared library.
type Lib struct {
	// Path is the name dlopen succeeded with (a bare name when the
	// loader's own search found it).
	Path string
	h    unsafe.Pointer
	mu   sync.Mutex
	syms map[string]unsafe.Pointer
}

// Open loads the first of names that the dynamic loader finds: each name
// as given (the loader's standard search: LD_LIBRARY_PATH, the ld.so
// cache, the default directories), then each name inside each of dirs.
// The symbols are global (RTLD_GLOBAL), so a library opened later can
// resolve against them. The error lists every attempt and the last
// loader message.
func Open(names []string, dirs []string) (*Lib, error) {
	var tried []string
	var last string
	try := func(p string) *Lib {
		cs := C.CString(p)
		defer C.free(unsafe.Pointer(cs))
		var e *C.char
		h := C.mascot_dlopen(cs, C.RTLD_NOW|C.RTLD_GLOBAL, &e)
		if h == nil {
			tried = append(tried, p)
			if e != nil {
				last = C.GoString(e)
				C.free(unsafe.Pointer(e))
			}
			return nil
		}
		return &Lib{Path: p, h: h, syms: map[string]unsafe.Pointer{}}
	}
	for _, n := range names {
		if l := try(n); l != nil {
			return l, nil
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		for _, n := range names {
			p := filepath.Join(d, n)
			if _, err := os.Stat(p); err != nil {
				tried = append(tried, p)
				continue
			}
			if l := try(p); l != nil {
				return l, nil
			}
		}
	}
	msg := fmt.Sprintf("none of %s could be loaded (tried %s)", strings.Join(names, ", "), strings.Join(tried, ", "))
	if last != "" {
		msg += ": " + last
	}
	return nil, fmt.Errorf("%s", msg)
}

// Sym returns the address of a symbol of the library.
func (l *Lib) Sym(name string) (unsafe.Pointer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.syms[name]; ok {
		return p, nil
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var e *C.char
	p := C.mascot_dlsym(l.h, cs, &e)
	if p == nil {
		msg := "not found"
		if e != nil {
			msg = C.GoString(e)
			C.free(unsafe.Pointer(e))
		}
		return nil, fmt.Errorf("symbol %s in %s: %s", name, l.Path, msg)
	}
	l.syms[name] = p
	return p, nil
}

// Syms resolves several symbols at once and reports every missing one.
func (l *Lib) Syms(names ...string) (map[string]unsafe.Pointer, error) {
	out := make(map[string]unsafe.Pointer, len(names))
	var missing []string
	for _, n := range names {
		p, err := l.Sym(n)
		if err != nil {
			missing = append(missing, n)
			continue
		}
		out[n] = p
	}
	if len(missing) > 0 {
		return out, fmt.Errorf("%s lacks %s", l.Path, strings.Join(missing, ", "))
	}
	return out, nil
}

// SplitDirs splits a list of directories written like PATH (colon
// separated; empty entries dropped), as an environment variable such as
// MASCOT_CUDA_LIBS holds it.
func SplitDirs(list string) []string {
	var out []string
	for _, d := range filepath.SplitList(list) {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}
