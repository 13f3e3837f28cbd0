package host

import (
	"os/exec"
	"syscall"
)

// dieWithHost makes the kernel SIGKILL the plugin when the host dies, even
// by SIGKILL. (Pdeathsig is tied to the forking OS thread; Go only retires
// threads of goroutines that exit while locked, which the host never does.)
func dieWithHost(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
