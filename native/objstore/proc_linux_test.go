package objstore

import "syscall"

// dieWithParent kills the test server with the test binary, however that ends.
func dieWithParent() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
