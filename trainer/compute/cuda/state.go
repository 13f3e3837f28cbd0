//go:build cuda

package cuda

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"unsafe"
)

// EnvDevice names the environment variable choosing the device ordinal
// (default 0, among the devices CUDA_VISIBLE_DEVICES leaves visible).
const EnvDevice = "MASCOT_CUDA_DEVICE"

// state is what one process shares among its backends: the libraries,
// the device and its primary context, and the compiled kernels.
type state struct {
	api           *api
	dev           deviceInfo
	driverVersion int
	nvrtc         string // "13.0"
	module        unsafe.Pointer
	fns           map[string]unsafe.Pointer
	// ptxFrom says where the kernels came from: "compiled" or "cache"
	// (and the cache file).
	ptxFrom string
}

var (
	stateOnce sync.Once
	shared    *state
	sharedErr error
)

// process initialises the shared state once; a failure (no libraries, no
// device) is returned to every later caller too.
func process() (*state, error) {
	stateOnce.Do(func() { shared, sharedErr = initState() })
	return shared, sharedErr
}

func initState() (*state, error) {
	libs, err := openLibraries(libDirs())
	if err != nil {
		return nil, err
	}
	a, err := newAPI(libs)
	if err != nil {
		return nil, fmt.Errorf("loading the CUDA libraries: %w", err)
	}
	if err := a.initDriver(); err != nil {
		return nil, fmt.Errorf("initialising the CUDA driver (%s): %w", libs.driver.Path, err)
	}
	s := &state{api: a}
	if s.driverVersion, err = a.driverVersion(); err != nil {
		return nil, err
	}
	n, err := a.deviceCount()
	if err != nil {
		return nil, err
	}
	ord := 0
	if v := os.Getenv(EnvDevice); v != "" {
		if ord, err = strconv.Atoi(v); err != nil || ord < 0 {
			return nil, fmt.Errorf("%s=%q is not a device ordinal", EnvDevice, v)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("the CUDA driver (%s) sees no GPU (CUDA_VISIBLE_DEVICES=%q)", libs.driver.Path, os.Getenv("CUDA_VISIBLE_DEVICES"))
	}
	if ord >= n {
		return nil, fmt.Errorf("%s=%d, but the CUDA driver sees %d GPU(s)", EnvDevice, ord, n)
	}
	if s.dev, err = a.device(ord); err != nil {
		return nil, err
	}
	if err := a.useDevice(s.dev); err != nil {
		return nil, err
	}
	major, minor, err := a.nvrtcVersion()
	if err != nil {
		return nil, err
	}
	s.nvrtc = fmt.Sprintf("%d.%d", major, minor)
	if err := s.loadKernels(); err != nil {
		return nil, err
	}
	return s, nil
}

// nvrtcOptions compiles for the device's own compute capability.
func nvrtcOptions(major, minor int) []string {
	return []string{fmt.Sprintf("--gpu-architecture=compute_%d%d", major, minor)}
}

// loadKernels loads the kernels' PTX from the cache, or compiles it with
// NVRTC and caches it, then looks up every kernel. A cached PTX the
// driver rejects is compiled afresh once.
func (s *state) loadKernels() error {
	src := kernelSource()
	opts := nvrtcOptions(s.dev.major, s.dev.minor)
	key := ptxKey(src, opts, s.nvrtc)
	dir := ptxDir()
	mod, from := s.loadCached(dir, key)
	if mod == nil {
		ptx, err := s.api.compile(src, "mascot_kernels.cu", opts)
		if err != nil {
			return err
		}
		// A cache that cannot be written costs the next start a compile.
		_ = writePTX(dir, key, ptx[:len(ptx)-1])
		if mod, err = s.api.loadModule(ptx); err != nil {
			return fmt.Errorf("loading the kernels' PTX: %w", err)
		}
		from = "compiled by NVRTC " + s.nvrtc
	}
	s.module, s.ptxFrom = mod, from
	s.fns = map[string]unsafe.Pointer{}
	for name := range kernelSigs {
		f, err := s.api.function(mod, name)
		if err != nil {
			return err
		}
		s.fns[name] = f
	}
	return nil
}

// loadCached loads the cached PTX of key; nil when there is none or the
// driver rejects it.
func (s *state) loadCached(dir, key string) (unsafe.Pointer, string) {
	ptx, ok := readPTX(dir, key)
	if !ok {
		return nil, ""
	}
	mod, err := s.api.loadModule(append(ptx, 0))
	if err != nil {
		return nil, ""
	}
	return mod, "cached " + ptxPath(dir, key)
}
