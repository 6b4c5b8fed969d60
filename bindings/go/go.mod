module github.com/libbloomsimd/libbloomsimd/bindings/go

go 1.19
