package bloomsimd

/*
#include <bloomsimd.h>
*/
import "C"

import (
	"errors"
	"runtime"
	"syscall"
)

// statusError is a libbloomsimd status code as a Go error: the sentinels
// below are the only values of this type.
type statusError struct {
	code C.bloomsimd_status
	name string
}

func (e *statusError) Error() string { return "bloomsimd: " + e.name }

// The library's status codes (include/bloomsimd.h, "Status codes"). Errors
// returned by this package wrap one of them: test with errors.Is, e.g.
// errors.Is(err, bloomsimd.ErrCorrupt).
var (
	ErrInvalidArgument   = &statusError{C.BLOOMSIMD_ERR_INVALID_ARGUMENT, "invalid argument"}
	ErrTooLarge          = &statusError{C.BLOOMSIMD_ERR_TOO_LARGE, "too large"}
	ErrNoMemory          = &statusError{C.BLOOMSIMD_ERR_NO_MEMORY, "out of memory"}
	ErrKernelUnavailable = &statusError{C.BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "kernel unavailable"}
	ErrIO                = &statusError{C.BLOOMSIMD_ERR_IO, "I/O error"}
	ErrCorrupt           = &statusError{C.BLOOMSIMD_ERR_CORRUPT, "corrupt data"}
	ErrVersion           = &statusError{C.BLOOMSIMD_ERR_VERSION, "unsupported format version"}
	ErrIncompatible      = &statusError{C.BLOOMSIMD_ERR_INCOMPATIBLE, "incompatible filters"}
	ErrReadOnly          = &statusError{C.BLOOMSIMD_ERR_READ_ONLY, "read-only filter"}
)

// ErrClosed is returned by calls on a Filter after Close. It is not a
// library status: the Go value no longer has a C filter to ask.
var ErrClosed = errors.New("bloomsimd: filter is closed")

var sentinels = []*statusError{ErrInvalidArgument, ErrTooLarge, ErrNoMemory, ErrKernelUnavailable, ErrIO,
	ErrCorrupt, ErrVersion, ErrIncompatible, ErrReadOnly}

// Error is what a failing call returns: the operation, the file (for
// Save/Load/Map/Sync), the library status and, for ErrIO, the errno the
// library kept. errors.Is matches the status sentinel, and through Unwrap the
// errno too (errors.Is(err, fs.ErrNotExist) for a missing file).
type Error struct {
	Op     string        // "new", "load", "union", ...
	Path   string        // the file, if any
	Status error         // one of the Err* sentinels above
	Errno  syscall.Errno // for ErrIO: errno as the library left it; else 0
	detail string        // the library's status string, then its bloomsimd_last_error detail
}

func (e *Error) Error() string {
	s := "bloomsimd: " + e.Op
	if e.Path != "" {
		s += " " + e.Path
	}
	s += ": " + e.detail
	if e.Errno != 0 {
		s += ": " + e.Errno.Error()
	}
	return s
}

// Is reports whether target is this error's status sentinel.
func (e *Error) Is(target error) bool { return target == e.Status }

// Unwrap returns the errno of an ErrIO failure (nil otherwise).
func (e *Error) Unwrap() error {
	if e.Errno != 0 {
		return e.Errno
	}
	return nil
}

// statusErr turns a library status into nil or an *Error. errno is the
// value cgo captured with the call (nil when the caller did not ask).
func statusErr(st C.bloomsimd_status, op, path string, errno error) error {
	if st == C.BLOOMSIMD_OK {
		return nil
	}
	e := &Error{Op: op, Path: path, detail: C.GoString(C.bloomsimd_status_string(st))}
	for _, s := range sentinels {
		if s.code == st {
			e.Status = s
		}
	}
	if e.Status == nil { // a status newer than this package: keep the text, match no sentinel
		e.Status = &statusError{st, e.detail}
	}
	if st == C.BLOOMSIMD_ERR_IO {
		var no syscall.Errno
		if errors.As(errno, &no) {
			e.Errno = no
		}
	}
	return e
}

// pinThread keeps the goroutine on its OS thread until the returned func
// runs: bloomsimd_last_error is per thread, and between two cgo calls a
// goroutine may move to another thread, whose text would be another call's.
// Cold calls (create, load, save, set operations) pin around the call and
// report with detailErr:
//
//	defer pinThread()()
//	st := C.bloomsimd_load(...)
//	return detailErr(st, "load", path, errno)
func pinThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// detailErr is statusErr plus the library's detail string ("k 0 is outside
// 1..16", "truncated: length ..."). Only on a thread pinned since the call.
func detailErr(st C.bloomsimd_status, op, path string, errno error) error {
	err := statusErr(st, op, path, errno)
	if e, ok := err.(*Error); ok {
		if d := C.GoString(C.bloomsimd_last_error()); d != "" && d != e.detail {
			e.detail += ": " + d
		}
	}
	return err
}

// argErr is an invalid argument caught on the Go side, before any C call.
func argErr(op, why string) error {
	return &Error{Op: op, Status: ErrInvalidArgument, detail: why}
}
