package data

import (
	"sync"
	"sync/atomic"
	"time"
)

// While a server runs, imports (serve --watch) land under its readers. Two
// things keep a page from mixing data:
//
//   - a request reads inside View, and an import's commit, its generation
//     marker and the removal of what it replaces happen under the write side
//     of the same lock, so no request sees rows that are committed but not
//     yet marked, or an old generation beside its replacement;
//   - every landed change bumps a version, globally and for the dataset or
//     experiment it touched, so caches keyed by version never serve what
//     the data no longer says.

// versions counts the changes that landed.
type versions struct {
	view sync.RWMutex // readers share it; a landing import holds it alone
	// landing counts the imports waiting for or holding view alone, so a
	// test can see an import held off by a reader rather than guess.
	landing atomic.Int32

	global atomic.Int64
	mu     sync.Mutex
	byName map[string]int64
	at     time.Time
}

// View holds off landing imports until release is called: a request reads
// one consistent state in between. An import waits for every reader, and
// readers that come while it waits wait for it (sync.RWMutex), so a reader
// must not take View again while it holds it.
func (s *Store) View() (release func()) {
	s.ver.view.RLock()
	return s.ver.view.RUnlock
}

// land takes view alone for an import landing; the returned func releases
// it.
func (v *versions) land() (release func()) {
	v.landing.Add(1)
	v.view.Lock()
	return func() {
		v.view.Unlock()
		v.landing.Add(-1)
	}
}

// Version is the number of changes that landed since the store was opened.
func (s *Store) Version() int64 { return s.ver.global.Load() }

// NameVersion is the version of the last change to the dataset or
// experiment name (0: none since the store was opened).
func (s *Store) NameVersion(name string) int64 {
	s.ver.mu.Lock()
	defer s.ver.mu.Unlock()
	return s.ver.byName[name]
}

// ChangedAt is when the last change landed (the store's opening when none
// has).
func (s *Store) ChangedAt() time.Time {
	s.ver.mu.Lock()
	defer s.ver.mu.Unlock()
	return s.ver.at
}

// landed records a change to name.
func (s *Store) landed(name string) {
	v := s.ver.global.Add(1)
	s.ver.mu.Lock()
	defer s.ver.mu.Unlock()
	if s.ver.byName == nil {
		s.ver.byName = map[string]int64{}
	}
	s.ver.byName[name] = v
	s.ver.at = time.Now().UTC()
}
