module bloomsimd

go 1.19
