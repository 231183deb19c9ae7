// fixture_test.go: reads the fixture that examples/c_fixture.rs writes (the format is in that
// file's //! header): per circuit a witness, r and s, public inputs and bellperson's proof.
// If GROTH16_C2_FIXTURE names no directory, the tests make one with cargo.
package groth16c2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

type fixtureCircuit struct {
	Witness  Witness
	R, S     Fr
	Publics  []Fr
	Expected Proof
}

// fixtureDir returns the fixture directory and a cleanup function.
func fixtureDir() (string, func(), error) {
	if dir := os.Getenv("GROTH16_C2_FIXTURE"); dir != "" {
		return dir, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "groth16c2-go-fixture")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	// `go test` runs in this directory; the crate root is two levels up.
	cmd := exec.Command("cargo", "run", "--quiet", "--release", "--features", "bellpepper",
		"--example", "c_fixture", "--", dir)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("making the fixture with cargo: %w", err)
	}
	return dir, cleanup, nil
}

// reader is a cursor over the fixture bytes; the first read past the end sets err.
type reader struct {
	b   []byte
	err error
}

// take returns the next count*size bytes, checked against what is left before anything is
// allocated (and without overflow), so a corrupt count cannot ask for gigabytes.
func (r *reader) take(count, size uint64) []byte {
	if r.err != nil || count > uint64(len(r.b))/size {
		r.err = errors.New("fixture truncated")
		return nil
	}
	out := r.b[:count*size]
	r.b = r.b[count*size:]
	return out
}

func (r *reader) u64() uint64 {
	if b := r.take(1, 8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) words(n uint64) []uint64 {
	b := r.take(n, 8)
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

func (r *reader) frs(n uint64) []Fr {
	if n > uint64(len(r.b))/32 {
		r.take(n, 32) // records the error
		return nil
	}
	w := r.words(4 * n)
	out := make([]Fr, len(w)/4)
	for i := range out {
		copy(out[i][:], w[4*i:])
	}
	return out
}

func (r *reader) density(bits uint64) Density {
	return Density{Words: r.words((bits + 63) / 64), Bits: int(bits)}
}

func readFixture(path string) ([]fixtureCircuit, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &reader{b: data}
	if string(r.take(8, 1)) != "G16C2FX1" {
		return nil, fmt.Errorf("%s: not a fixture file", path)
	}
	n := r.u64()
	if n == 0 || n > 1024 {
		return nil, fmt.Errorf("%s: %d circuits", path, n)
	}
	cs := make([]fixtureCircuit, n)
	for i := range cs {
		abc, inp, aux := r.u64(), r.u64(), r.u64()
		aBits, bInpBits, bAuxBits, numPublic := r.u64(), r.u64(), r.u64(), r.u64()
		w := &cs[i].Witness
		w.ADensity, w.BInpDensity, w.BAuxDensity = r.density(aBits), r.density(bInpBits), r.density(bAuxBits)
		w.A, w.B, w.C = r.frs(abc), r.frs(abc), r.frs(abc)
		w.Inputs, w.Aux = r.frs(inp), r.frs(aux)
		rs := r.frs(2)
		if len(rs) == 2 {
			cs[i].R, cs[i].S = rs[0], rs[1]
		}
		cs[i].Publics = r.frs(numPublic)
		copy(cs[i].Expected[:], r.take(1, 384))
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: %w", path, r.err)
	}
	return cs, nil
}
