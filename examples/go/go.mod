module groth16c2

// 1.21: runtime.Pinner, which Start needs to let the library keep pointers to Go memory
// between start and finalize.
go 1.21
