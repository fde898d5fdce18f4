package lake

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Lock is a lake's writer lock: one lake write at a time reads,
// merges and replaces the manifest. The file .write.lock says who holds it
// ("pid N on HOST since T"); the holding is an advisory lock on the file
// (flock), which the system releases when the process dies, so a writer
// killed half-way does not keep every later write out. A lock file whose
// writer is gone is taken over with a line to the log. Where there is no
// flock (another system), a lock whose process is gone on this host is
// still taken over; one of another host must be removed by hand.
type Lock struct {
	path string
	f    *os.File
	me   string
}

var lockOwnerRe = regexp.MustCompile(`^pid ([0-9]+) on (\S+) since (\S+)$`)

// Acquire takes dir's writer lock or says who holds it. logf, when
// set, is told of a lock taken over from a writer that is gone.
func Acquire(dir string, logf func(string)) (*Lock, error) {
	path := dir + string(os.PathSeparator) + ".write.lock"
	host, _ := os.Hostname()
	me := fmt.Sprintf("pid %d on %s since %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339Nano))
	for range 5 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lake: %w", err)
		}
		held, err := tryFlock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lake: lock %s: %w", path, err)
		}
		owner := readOwner(f)
		if held {
			f.Close()
			return nil, fmt.Errorf("lake: %s: another lake write is running (%s)", path, owner)
		}
		// Locked: but the file may have been removed and made anew by the
		// writer before us since we opened it; then ours is not the lock.
		if !sameFile(f, path) {
			f.Close()
			continue
		}
		if owner != "" {
			m := lockOwnerRe.FindStringSubmatch(owner)
			pid := 0
			if m != nil {
				pid, _ = strconv.Atoi(m[1])
			}
			switch {
			case m != nil && m[2] == host && pid != os.Getpid() && processAlive(pid):
				// A live process of this host holds it without flock (an
				// older auditscope, which took the lock by creating it).
				f.Close()
				return nil, fmt.Errorf("lake: %s: another lake write is running (%s)", path, owner)
			case m != nil && m[2] != host && !flockWorks:
				f.Close()
				return nil, fmt.Errorf("lake: %s: a lake write of another host holds it (%s); remove the file if that writer is gone", path, owner)
			}
			if logf != nil {
				logf(fmt.Sprintf("lake: took over %s from a writer that is gone (%s)", path, owner))
			}
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, fmt.Errorf("lake: %w", err)
		}
		if _, err := f.WriteAt([]byte(me+"\n"), 0); err != nil {
			f.Close()
			return nil, fmt.Errorf("lake: %w", err)
		}
		return &Lock{path: path, f: f, me: me}, nil
	}
	return nil, fmt.Errorf("lake: %s: the lock keeps changing hands; try again", path)
}

// Release removes the lock file, still holding it (so no writer that
// opened it meanwhile can think it holds a lock on it), then lets it go.
func (l *Lock) Release() {
	if readOwner(l.f) == l.me && sameFile(l.f, l.path) {
		os.Remove(l.path)
	}
	l.f.Close()
}

func readOwner(f *os.File) string {
	b, _ := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	return strings.TrimSpace(string(b))
}

// sameFile reports whether path still names the open file f.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
