// A stand-in for github.com/stretchr/testify, which blobloom's go.mod names
// for blobloom's own tests only. The benchmarks never compile those tests, but
// an offline build still reads the go.mod of every module in blobloom's
// requirement graph, and Debian's testify tree names modules that Debian
// ships without a go.mod. This empty module ends the graph there.
module github.com/stretchr/testify

go 1.19
