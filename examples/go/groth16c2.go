// Package groth16c2 is a Go host of groth16-c2: a small cgo wrapper over the C ABI in
// include/groth16_c2.h, linked against the release static library, as a Go miner would use it.
//
// Memory: witness data stays in Go slices. Start stores pointers to them in the library's
// Assignment structs, and the library may keep those until Finalize, so they are pinned with a
// runtime.Pinner (the cgo rule: C may keep a Go pointer only while it is pinned). The caller
// must not modify a witness between Start and Finalize/Close.
//
// The package links the library's default ABI: the 6-argument generate_groth16_proofs_c (build
// it without the cuzk-abi feature).
package groth16c2

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/libgroth16_c2.a -lgcc_s -lutil -lrt -lpthread -lm -ldl
#include <stdint.h>
#include <stdlib.h>
#include "groth16_c2.h"

// Pending handles are tickets (small integers) in a void*, not pointers. Go keeps them as
// uintptr_t so that the garbage collector never sees them as pointers; these shims convert.
static Error g16_start(const Assignment *provers, size_t n, const fr_t *r, const fr_t *s,
                       const SRS *srs, void *lock, int gpu, uintptr_t *pending_out) {
    void *pending = NULL;
    Error e = generate_groth16_proofs_start_c(provers, n, r, s, srs, lock, gpu, &pending);
    *pending_out = (uintptr_t)pending;
    return e;
}
static Error g16_finalize(uintptr_t pending, groth16_proof *proofs) {
    return finalize_groth16_proof_c((void *)pending, proofs);
}
static void g16_destroy(uintptr_t pending) { destroy_pending_proof((void *)pending); }
*/
import "C"

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"unsafe"
)

// Fr is a BLS12-381 scalar in blst's Montgomery form: the memory of fr_t.
type Fr [4]uint64

// Proof is a Groth16 proof: the 384 bytes of groth16_proof (A in G1, B in G2, C in G1).
type Proof [384]byte

// Compile-time layout checks: these fail to build if the C types are not the size assumed.
var (
	_ [C.sizeof_fr_t]byte          = [unsafe.Sizeof(Fr{})]byte{}
	_ [C.sizeof_groth16_proof]byte = [unsafe.Sizeof(Proof{})]byte{}
)

// Density is a bit vector: bit i is bit i%64 of Words[i/64] (LSB first), Bits long.
type Density struct {
	Words []uint64
	Bits  int
}

func (d Density) popcount() int {
	n := 0
	for i, w := range d.Words[:(d.Bits+63)/64] {
		if rest := d.Bits - 64*i; rest < 64 {
			w &= (uint64(1) << uint(rest)) - 1 // ignore bits past the end
		}
		n += bits.OnesCount64(w)
	}
	return n
}

// Witness is one circuit's assignment, as bellperson builds it.
type Witness struct {
	ADensity, BInpDensity, BAuxDensity Density
	A, B, C                            []Fr // the evaluations, all of one length
	Inputs, Aux                        []Fr // Inputs starts with the constant ONE
}

// Error is a failed library call; Message is the library's own text.
type Error struct {
	Call    string
	Code    int
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (code %d)", e.Call, e.Message, e.Code)
}

// errorFrom turns a C Error into a Go error and frees its malloc'ed message.
func errorFrom(e C.Error, call string) error {
	if e.message == nil {
		if e.code == 0 {
			return nil
		}
		return &Error{Call: call, Code: int(e.code), Message: "(no message)"}
	}
	msg := C.GoString(e.message)
	C.free(unsafe.Pointer(e.message))
	if e.code == 0 {
		return nil
	}
	return &Error{Call: call, Code: int(e.code), Message: msg}
}

// SRS is one reference to loaded params. Close it once no call is using it.
type SRS struct{ h C.SRS }

// LoadSRS loads a bellperson params file; with cache, loads of one path are shared.
func LoadSRS(path string, cache bool) (*SRS, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	s := &SRS{}
	if err := errorFrom(C.create_SRS(&s.h, cpath, C.bool(cache)), "create_SRS"); err != nil {
		return nil, err
	}
	return s, nil
}

// Close releases the reference (drop_SRS empties the handle, so a second Close does nothing).
func (s *SRS) Close() { C.drop_SRS(&s.h) }

// GPULock is a caller-owned lock for one GPU, shared by that GPU's workers.
type GPULock struct{ p unsafe.Pointer }

// NewGPULock creates a lock; Close it after every call using it has returned.
func NewGPULock() (*GPULock, error) {
	p := C.create_gpu_mutex()
	if p == nil {
		return nil, errors.New("create_gpu_mutex returned NULL")
	}
	return &GPULock{p: p}, nil
}

// Close destroys the lock.
func (l *GPULock) Close() {
	C.destroy_gpu_mutex(l.p)
	l.p = nil
}

// batch is a set of witnesses prepared for the library: Assignment structs (Go memory) that
// point into the witnesses' slices, with everything the library reads pinned.
type batch struct {
	provers []C.Assignment
	r, s    []Fr
	pins    runtime.Pinner // pins until finalize: provers, r, s, inputs, aux, densities
	abcPins runtime.Pinner // a, b, c: the library is done with them when start returns
}

// first returns a pointer to xs[0] pinned by p, or nil for an empty slice.
func first[T any](p *runtime.Pinner, xs []T) unsafe.Pointer {
	if len(xs) == 0 {
		return nil
	}
	p.Pin(&xs[0])
	return unsafe.Pointer(&xs[0])
}

func newBatch(ws []Witness, r, s []Fr) (*batch, error) {
	if len(ws) == 0 || len(r) != len(ws) || len(s) != len(ws) {
		return nil, fmt.Errorf("groth16c2: %d witnesses, %d r and %d s values", len(ws), len(r), len(s))
	}
	// The library trusts each pointer to hold as many elements as its size field says; only
	// Go knows the slices' real lengths, so they are checked here.
	for i, w := range ws {
		if len(w.B) != len(w.A) || len(w.C) != len(w.A) {
			return nil, fmt.Errorf("groth16c2: witness %d: a, b, c lengths %d, %d, %d differ", i, len(w.A), len(w.B), len(w.C))
		}
		for _, d := range []Density{w.ADensity, w.BInpDensity, w.BAuxDensity} {
			if d.Bits < 0 || len(d.Words) < (d.Bits+63)/64 {
				return nil, fmt.Errorf("groth16c2: witness %d: a density of %d bits has only %d words", i, d.Bits, len(d.Words))
			}
		}
	}
	b := &batch{provers: make([]C.Assignment, len(ws)), r: r, s: s}
	for i, w := range ws {
		b.provers[i] = C.Assignment{
			a_aux_density:       (*C.uint64_t)(first(&b.pins, w.ADensity.Words)),
			a_aux_bit_len:       C.size_t(w.ADensity.Bits),
			a_aux_popcount:      C.size_t(w.ADensity.popcount()),
			b_inp_density:       (*C.uint64_t)(first(&b.pins, w.BInpDensity.Words)),
			b_inp_bit_len:       C.size_t(w.BInpDensity.Bits),
			b_inp_popcount:      C.size_t(w.BInpDensity.popcount()),
			b_aux_density:       (*C.uint64_t)(first(&b.pins, w.BAuxDensity.Words)),
			b_aux_bit_len:       C.size_t(w.BAuxDensity.Bits),
			b_aux_popcount:      C.size_t(w.BAuxDensity.popcount()),
			a:                   (*C.fr_t)(first(&b.abcPins, w.A)),
			b:                   (*C.fr_t)(first(&b.abcPins, w.B)),
			c:                   (*C.fr_t)(first(&b.abcPins, w.C)),
			abc_size:            C.size_t(len(w.A)),
			inp_assignment_data: (*C.fr_t)(first(&b.pins, w.Inputs)),
			inp_assignment_size: C.size_t(len(w.Inputs)),
			aux_assignment_data: (*C.fr_t)(first(&b.pins, w.Aux)),
			aux_assignment_size: C.size_t(len(w.Aux)),
		}
	}
	// The structs themselves hold (pinned) Go pointers and may be kept until finalize.
	first(&b.pins, b.provers)
	first(&b.pins, r)
	first(&b.pins, s)
	return b, nil
}

// releaseABC drops the library's a, b, c pointers once start has returned: the contract lets
// the host free them then, and an unpinned Go pointer must not stay where C can see it.
func (b *batch) releaseABC() {
	for i := range b.provers {
		b.provers[i].a, b.provers[i].b, b.provers[i].c = nil, nil, nil
	}
	b.abcPins.Unpin()
}

func (b *batch) release() {
	b.abcPins.Unpin()
	b.pins.Unpin()
}

func (b *batch) args() (*C.Assignment, C.size_t, *C.fr_t, *C.fr_t) {
	return &b.provers[0], C.size_t(len(b.provers)), (*C.fr_t)(unsafe.Pointer(&b.r[0])), (*C.fr_t)(unsafe.Pointer(&b.s[0]))
}

// Prove proves every witness with randomness r[i], s[i] in one call (the library's own lock).
func Prove(srs *SRS, ws []Witness, r, s []Fr) ([]Proof, error) {
	b, err := newBatch(ws, r, s)
	if err != nil {
		return nil, err
	}
	defer b.release()
	proofs := make([]Proof, len(ws))
	provers, n, rp, sp := b.args()
	e := C.generate_groth16_proofs_c(provers, n, rp, sp, (*C.groth16_proof)(unsafe.Pointer(&proofs[0])), &srs.h)
	if err := errorFrom(e, "generate_groth16_proofs_c"); err != nil {
		return nil, err
	}
	return proofs, nil
}

// Pending is a batch past its GPU section. Finalize it, or Close it to abandon it; Close after
// Finalize does nothing, so `defer p.Close()` is always right.
type Pending struct {
	handle C.uintptr_t
	n      int
	batch  *batch // keeps the pinned witnesses alive until Finalize or Close
}

// Start runs a batch up to the end of its GPU section under lock (nil: the library's own lock)
// on GPU gpuIndex (-1: any). The witnesses must stay unmodified until Finalize or Close.
func Start(srs *SRS, lock *GPULock, gpuIndex int, ws []Witness, r, s []Fr) (*Pending, error) {
	b, err := newBatch(ws, r, s)
	if err != nil {
		return nil, err
	}
	var lp unsafe.Pointer
	if lock != nil {
		lp = lock.p
	}
	var handle C.uintptr_t
	provers, n, rp, sp := b.args()
	e := C.g16_start(provers, n, rp, sp, &srs.h, lp, C.int(gpuIndex), &handle)
	if err := errorFrom(e, "generate_groth16_proofs_start_c"); err != nil {
		b.release()
		return nil, err
	}
	b.releaseABC()
	return &Pending{handle: handle, n: len(ws), batch: b}, nil
}

// Finalize finishes the batch (G2 MSM, epilogue) and returns one proof per witness. It
// consumes the handle: a second Finalize returns the library's error.
func (p *Pending) Finalize() ([]Proof, error) {
	proofs := make([]Proof, p.n)
	e := C.g16_finalize(p.handle, (*C.groth16_proof)(unsafe.Pointer(&proofs[0])))
	p.unpin()
	if err := errorFrom(e, "finalize_groth16_proof_c"); err != nil {
		return nil, err
	}
	return proofs, nil
}

// Close abandons the batch if it was not finalized (the library ignores a consumed handle).
func (p *Pending) Close() {
	C.g16_destroy(p.handle)
	p.unpin()
}

func (p *Pending) unpin() {
	if p.batch != nil {
		p.batch.release()
		p.batch = nil
	}
}

// Verify checks proof against the SRS's verifying key and the public inputs (without ONE).
func Verify(srs *SRS, proof *Proof, publics []Fr) error {
	var pp *C.fr_t
	if len(publics) > 0 {
		pp = (*C.fr_t)(unsafe.Pointer(&publics[0]))
	}
	e := C.verify_groth16_proof_c(&srs.h, (*C.groth16_proof)(unsafe.Pointer(proof)), pp, C.size_t(len(publics)))
	return errorFrom(e, "verify_groth16_proof_c")
}

// Backend says which backend the library proves with ("cpu" or "cuda").
func Backend() string { return C.GoString(C.groth16_c2_backend()) }

// PinnedFr is n scalars in memory from groth16_c2_alloc_pinned: page-locked when proofs run on
// a GPU, so witness vectors kept there (a, b, c) upload without the library's staging copy.
// The memory is C memory: the Go garbage collector neither moves nor frees it; call Free.
type PinnedFr struct {
	ptr   unsafe.Pointer
	Slice []Fr
}

// AllocPinned allocates n scalars (n > 0) of pinned memory, zeroed.
func AllocPinned(n int) (*PinnedFr, error) {
	if n <= 0 {
		return nil, fmt.Errorf("groth16c2: cannot allocate %d scalars", n)
	}
	var p unsafe.Pointer
	if err := errorFrom(C.groth16_c2_alloc_pinned(C.size_t(n)*C.sizeof_fr_t, &p), "groth16_c2_alloc_pinned"); err != nil {
		return nil, err
	}
	s := unsafe.Slice((*Fr)(p), n)
	clear(s)
	return &PinnedFr{ptr: p, Slice: s}, nil
}

// Free releases the memory; the slice must not be used afterwards. A second Free is an error.
func (p *PinnedFr) Free() error {
	if p.ptr == nil {
		return errors.New("groth16c2: pinned memory freed twice")
	}
	err := errorFrom(C.groth16_c2_free_pinned(p.ptr), "groth16_c2_free_pinned")
	p.ptr, p.Slice = nil, nil
	return err
}

// IsPinned reports whether xs lies in page-locked host memory (uploads without staging).
func IsPinned(xs []Fr) bool {
	if len(xs) == 0 {
		return false
	}
	return bool(C.groth16_c2_is_pinned(unsafe.Pointer(&xs[0]), C.size_t(len(xs))*C.sizeof_fr_t))
}
