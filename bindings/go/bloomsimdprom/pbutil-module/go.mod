module github.com/matttproud/golang_protobuf_extensions

go 1.9

require github.com/golang/protobuf v1.5.2
