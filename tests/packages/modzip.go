//go:build ignore

// modzip.go DIR MODULE VERSION OUT.zip — writes DIR's module zip the way the
// Go module proxy makes one, with golang.org/x/mod/zip (the code the go
// command itself uses): only the files below go.mod, without nested modules,
// vendor/ or symlinks, refusing invalid names and the size limits. It prints
// the zip's file count and size, and every file it left out and why.
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run modzip.go DIR MODULE VERSION OUT.zip
//
// (Debian's golang-golang-x-mod-dev in GOPATH mode: no module download.)
package main

import (
	"fmt"
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: go run modzip.go DIR MODULE VERSION OUT.zip")
		os.Exit(2)
	}
	dir, m, out := os.Args[1], module.Version{Path: os.Args[2], Version: os.Args[3]}, os.Args[4]
	checked, err := zip.CheckDir(dir)
	for _, f := range checked.Omitted {
		fmt.Printf("modzip: left out %s: %v\n", f.Path, f.Err)
	}
	for _, f := range checked.Invalid {
		fmt.Printf("modzip: invalid %s: %v\n", f.Path, f.Err)
	}
	if err == nil {
		err = checked.Err()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
	w, err := os.Create(out)
	if err == nil {
		err = zip.CreateFromDir(w, m, dir)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
	st, _ := os.Stat(out)
	fmt.Printf("modzip: %s@%s: %d files, %d bytes zipped\n", m.Path, m.Version, len(checked.Valid), st.Size())
}
