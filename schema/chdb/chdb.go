// Package chdb runs SQL on ClickHouse in-process through libchdb, the ClickHouse engine built
// as a shared library. The library is loaded at run time (dlopen), so building this package
// needs no libchdb: only the tests that compare engines need it, from ENERGY_LIBCHDB or the
// cache directory .ci/run installs it in.
package chdb

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void **(*connect_fn)(int, char **);
typedef void (*close_fn)(void **);
typedef void *(*query_fn)(void *, const char *, size_t, const char *, size_t);
typedef char *(*buffer_fn)(void *);
typedef size_t (*length_fn)(void *);
typedef const char *(*error_fn)(void *);
typedef void (*destroy_fn)(void *);

static connect_fn p_connect;
static close_fn p_close;
static query_fn p_query;
static buffer_fn p_buffer;
static length_fn p_length;
static error_fn p_error;
static destroy_fn p_destroy;

static const char *chdb_load(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) return dlerror();
	p_connect = (connect_fn)dlsym(h, "chdb_connect");
	p_close = (close_fn)dlsym(h, "chdb_close_conn");
	p_query = (query_fn)dlsym(h, "chdb_query_n");
	p_buffer = (buffer_fn)dlsym(h, "chdb_result_buffer");
	p_length = (length_fn)dlsym(h, "chdb_result_length");
	p_error = (error_fn)dlsym(h, "chdb_result_error");
	p_destroy = (destroy_fn)dlsym(h, "chdb_destroy_query_result");
	if (!p_connect || !p_close || !p_query || !p_buffer || !p_length || !p_error || !p_destroy)
		return "libchdb lacks one of chdb_connect, chdb_close_conn, chdb_query_n, chdb_result_*";
	return NULL;
}

static void **chdb_open(int argc, char **argv) { return p_connect(argc, argv); }
static void chdb_close(void **conn) { p_close(conn); }
static void *chdb_run(void **conn, const char *q, size_t qlen, const char *f, size_t flen) {
	return p_query(*conn, q, qlen, f, flen);
}
static char *chdb_buffer(void *r) { return p_buffer(r); }
static size_t chdb_length(void *r) { return p_length(r); }
static const char *chdb_error(void *r) { return p_error(r); }
static void chdb_destroy(void *r) { p_destroy(r); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"
)

// CacheDir is where .ci/run unpacks the npm package @chdb/lib-linux-x64-gnu (outside the
// repository: the library is about 560 MB).
const CacheDir = "/var/cache/energy-chdb"

// ErrAbsent reports that no libchdb was found.
var ErrAbsent = errors.New("libchdb.so not found (set ENERGY_LIBCHDB, or run .ci/run once to install it under " + CacheDir + ")")

// LibraryPath returns the libchdb.so to load: ENERGY_LIBCHDB when set, else the cache's copy.
func LibraryPath() (string, error) {
	if p := os.Getenv("ENERGY_LIBCHDB"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("ENERGY_LIBCHDB: %w", err)
		}
		return p, nil
	}
	p := filepath.Join(CacheDir, "package", "libchdb.so")
	if _, err := os.Stat(p); err != nil {
		return "", ErrAbsent
	}
	return p, nil
}

var (
	loadOnce sync.Once
	loadErr  error
)

// load opens the library once per process: the engine inside it is a process-wide singleton.
func load() error {
	loadOnce.Do(func() {
		path, err := LibraryPath()
		if err != nil {
			loadErr = err
			return
		}
		cpath := C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
		if msg := C.chdb_load(cpath); msg != nil {
			loadErr = fmt.Errorf("load %s: %s", path, C.GoString(msg))
		}
	})
	return loadErr
}

// Session is one connection to the in-process engine over a data directory. Calls are
// serialised: the library's session is not meant for concurrent queries.
type Session struct {
	mu   sync.Mutex
	conn **C.void
}

// Open starts a session whose databases live under dir.
func Open(dir string) (*Session, error) {
	if err := load(); err != nil {
		return nil, err
	}
	args := []string{"clickhouse", "--path=" + dir}
	argv := make([]*C.char, len(args))
	for i, a := range args {
		argv[i] = C.CString(a)
		defer C.free(unsafe.Pointer(argv[i]))
	}
	conn := C.chdb_open(C.int(len(args)), &argv[0])
	if conn == nil {
		return nil, fmt.Errorf("chdb_connect on %s failed", dir)
	}
	return &Session{conn: (**C.void)(unsafe.Pointer(conn))}, nil
}

// Query runs one statement and returns its output in the given format (TabSeparatedWithNamesAndTypes, Native, …).
func (s *Session) Query(sql, format string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil, errors.New("chdb session closed")
	}
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	cfmt := C.CString(format)
	defer C.free(unsafe.Pointer(cfmt))
	r := C.chdb_run((*unsafe.Pointer)(unsafe.Pointer(s.conn)), csql, C.size_t(len(sql)), cfmt, C.size_t(len(format)))
	if r == nil {
		return nil, errors.New("chdb_query_n returned no result")
	}
	defer C.chdb_destroy(r)
	if msg := C.chdb_error(r); msg != nil {
		return nil, errors.New(C.GoString(msg))
	}
	n := int(C.chdb_length(r))
	if n == 0 {
		return nil, nil
	}
	return C.GoBytes(unsafe.Pointer(C.chdb_buffer(r)), C.int(n)), nil
}

// Close ends the session.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		C.chdb_close((*unsafe.Pointer)(unsafe.Pointer(s.conn)))
		s.conn = nil
	}
}
