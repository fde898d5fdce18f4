//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package lake

import (
	"errors"
	"os"
	"syscall"
)

// flockWorks: the writer lock is an flock, released by the system when its
// process dies, on this host and (over NFS's lock manager) others.
const flockWorks = true

// tryFlock takes an exclusive flock on f without waiting; held reports that
// another process has it.
func tryFlock(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// processAlive reports whether a process of this host has the id pid.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
