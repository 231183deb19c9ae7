// prove_test.go: the Go host's checks. Proves the fixture's circuits with the one-shot call and
// with the split API from two goroutines that share one GPU lock (Curio's two workers per GPU),
// compares every proof with bellperson's bytes and verifies it, and checks that bad input comes
// back as a Go error carrying the library's message.
package groth16c2

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	params   string           // the fixture's circuit.params
	circuits []fixtureCircuit // the fixture's circuits
)

func TestMain(m *testing.M) {
	dir, cleanup, err := fixtureDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	params = filepath.Join(dir, "circuit.params")
	circuits, err = readFixture(filepath.Join(dir, "fixture.bin"))
	if err != nil {
		cleanup()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// loadSRS loads the fixture's params (shared through the library's cache) for one test.
func loadSRS(t *testing.T) *SRS {
	t.Helper()
	srs, err := LoadSRS(params, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srs.Close)
	return srs
}

// batchOf returns the witnesses, r and s of circuits in the given order.
func batchOf(cs []*fixtureCircuit) (ws []Witness, r, s []Fr) {
	for _, c := range cs {
		ws, r, s = append(ws, c.Witness), append(r, c.R), append(s, c.S)
	}
	return ws, r, s
}

// checkProofs returns an error unless every proof is bellperson's and verifies.
func checkProofs(srs *SRS, proofs []Proof, cs []*fixtureCircuit) error {
	for i := range proofs {
		if proofs[i] != cs[i].Expected {
			return fmt.Errorf("proof %d differs from bellperson's", i)
		}
		if err := Verify(srs, &proofs[i], cs[i].Publics); err != nil {
			return fmt.Errorf("proof %d: %w", i, err)
		}
	}
	return nil
}

func inOrder() []*fixtureCircuit {
	cs := make([]*fixtureCircuit, len(circuits))
	for i := range circuits {
		cs[i] = &circuits[i]
	}
	return cs
}

func reversed() []*fixtureCircuit {
	cs := inOrder()
	for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
		cs[i], cs[j] = cs[j], cs[i]
	}
	return cs
}

func TestProveOneShot(t *testing.T) {
	t.Logf("backend: %s", Backend())
	srs := loadSRS(t)
	cs := inOrder()
	ws, r, s := batchOf(cs)
	proofs, err := Prove(srs, ws, r, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkProofs(srs, proofs, cs); err != nil {
		t.Fatal(err)
	}
	t.Logf("ok: generate_groth16_proofs_c: %d proofs equal bellperson's and verify", len(proofs))
}

// proveSplit runs start -> finalize -> close on the shared lock.
func proveSplit(srs *SRS, lock *GPULock, cs []*fixtureCircuit) ([]Proof, error) {
	ws, r, s := batchOf(cs)
	p, err := Start(srs, lock, 0, ws, r, s)
	if err != nil {
		return nil, err
	}
	defer p.Close() // after Finalize: a no-op in the library, as the contract says
	return p.Finalize()
}

func TestTwoWorkersShareOneLock(t *testing.T) {
	const rounds = 3
	srs := loadSRS(t)
	lock, err := NewGPULock()
	if err != nil {
		t.Fatal(err)
	}
	// Worker 0 proves the circuits in order, worker 1 in reverse: two different batches.
	batches := [][]*fixtureCircuit{inOrder(), reversed()}
	var wg sync.WaitGroup
	for id, cs := range batches {
		wg.Add(1)
		go func(id int, cs []*fixtureCircuit) {
			defer wg.Done()
			for round := 1; round <= rounds; round++ {
				proofs, err := proveSplit(srs, lock, cs)
				if err == nil {
					err = checkProofs(srs, proofs, cs)
				}
				if err != nil {
					t.Errorf("worker %d round %d: %v", id, round, err) // Errorf: goroutine-safe
					continue
				}
				t.Logf("ok: worker %d round %d: %d proofs via start/finalize on the shared lock, equal bellperson's, verify", id, round, len(proofs))
			}
		}(id, cs)
	}
	wg.Wait()
	lock.Close() // only after every call using it has returned
}

// TestPinnedInputs proves the circuits with a, b, c copied into groth16_c2_alloc_pinned
// memory, as Curio's engine keeps them in its own page-locked pool: the same proofs as from Go
// slices, and the memory is page-locked exactly when proofs run on a GPU.
func TestPinnedInputs(t *testing.T) {
	srs := loadSRS(t)
	lock, err := NewGPULock()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	var held []*PinnedFr
	defer func() {
		for _, p := range held {
			if err := p.Free(); err != nil {
				t.Error(err)
			}
		}
	}()
	pinnedCopy := func(v []Fr) []Fr {
		p, err := AllocPinned(len(v))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, p)
		copy(p.Slice, v)
		return p.Slice
	}
	cs := inOrder()
	pinned := make([]*fixtureCircuit, len(cs))
	for i, c := range cs {
		cp := *c
		cp.Witness.A, cp.Witness.B, cp.Witness.C = pinnedCopy(c.Witness.A), pinnedCopy(c.Witness.B), pinnedCopy(c.Witness.C)
		pinned[i] = &cp
	}
	if got, want := IsPinned(pinned[0].Witness.A), Backend() == "cuda"; got != want {
		t.Fatalf("IsPinned(pinned a) = %v with backend %s", got, Backend())
	}
	if IsPinned(cs[0].Witness.A) {
		t.Fatal("a Go slice reads as page-locked")
	}
	proofs, err := proveSplit(srs, lock, pinned)
	if err == nil {
		err = checkProofs(srs, proofs, pinned)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AllocPinned(0); err == nil {
		t.Fatal("allocating 0 scalars succeeded")
	}
	extra, err := AllocPinned(4)
	if err != nil {
		t.Fatal(err)
	}
	if err := extra.Free(); err != nil {
		t.Fatal(err)
	}
	if err := extra.Free(); err == nil {
		t.Fatal("a second Free succeeded")
	}
	t.Logf("ok: %d proofs from pinned a, b, c equal bellperson's and verify (page-locked: %v)", len(proofs), IsPinned(pinned[0].Witness.A))
}

// libraryError asserts that err is the library's error with a non-empty message.
func libraryError(t *testing.T, err error, want string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Message == "" || !strings.Contains(e.Message, want) {
		t.Fatalf("want a library error containing %q, got %v", want, err)
	}
	t.Logf("ok: %v", err)
}

func TestBadInput(t *testing.T) {
	srs := loadSRS(t)
	cs := inOrder()

	t.Run("aux size disagrees with the SRS", func(t *testing.T) {
		ws, r, s := batchOf(cs)
		ws[0].Aux = ws[0].Aux[:len(ws[0].Aux)-1]
		p, err := Start(srs, nil, -1, ws, r, s)
		if p != nil {
			p.Close()
		}
		libraryError(t, err, "aux_assignment_size")
	})
	t.Run("missing params file", func(t *testing.T) {
		_, err := LoadSRS("/nonexistent/groth16-c2.params", false)
		libraryError(t, err, "/nonexistent/groth16-c2.params")
	})
	t.Run("wrong public input", func(t *testing.T) {
		publics := append([]Fr(nil), cs[0].Publics...)
		if len(publics) == 0 {
			t.Skip("the circuit has no public inputs")
		}
		publics[0][0] ^= 1
		libraryError(t, Verify(srs, &cs[0].Expected, publics), "")
	})
	t.Run("finalize twice", func(t *testing.T) {
		ws, r, s := batchOf(cs)
		p, err := Start(srs, nil, -1, ws, r, s)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if _, err := p.Finalize(); err != nil {
			t.Fatal(err)
		}
		_, err = p.Finalize()
		libraryError(t, err, "not live")
	})
	t.Run("density shorter than its bit length", func(t *testing.T) {
		// Caught in Go: the library cannot know how long a host's buffer really is.
		ws, r, s := batchOf(cs)
		ws[0].BAuxDensity.Words = ws[0].BAuxDensity.Words[:1]
		if _, err := Prove(srs, ws, r, s); err == nil || !strings.Contains(err.Error(), "density") {
			t.Fatalf("want a density error, got %v", err)
		} else {
			t.Logf("ok: %v", err)
		}
	})
}
