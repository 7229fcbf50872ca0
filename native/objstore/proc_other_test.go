//go:build !linux

package objstore

import "syscall"

// dieWithParent: only Linux can tie a child's life to its parent's; TestMain stops the server.
func dieWithParent() *syscall.SysProcAttr { return nil }
