module github.com/google/go-cmp
