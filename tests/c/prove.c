/*
 * tests/c/prove.c: a C host of groth16-c2, as supraseal-c2 hosts use it. It loads a params
 * file, reads witnesses from a fixture (format in examples/c_fixture.rs), proves them with the
 * one-shot call and with the split start/finalize API, verifies the proofs, compares them with
 * bellperson's, checks that bad calls return an error with a message, and frees everything.
 *
 * usage: prove PARAMS FIXTURE      (built and run by tests/c/run.sh)
 * Compile with -DGROTH16_C2_CUZK_ABI against a library built with the cuzk-abi feature.
 */
#include "groth16_c2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void check(int ok, const char *what) {
    printf("%s - %s\n", ok ? "ok  " : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

/* True on success; otherwise prints the library's message and frees it, as hosts must. */
static int succeeded(Error e, const char *call) {
    if (e.code == 0)
        return e.message == NULL;
    fprintf(stderr, "%s failed (code %d): %s\n", call, (int)e.code,
            e.message ? e.message : "(no message)");
    free(e.message);
    return 0;
}

/* True if `e` is an error that carries a message; prints and frees it. */
static int is_error_with_message(Error e) {
    int ok = e.code != 0 && e.message != NULL && e.message[0] != '\0';
    if (e.message)
        printf("       message (code %d): %s\n", (int)e.code, e.message);
    free(e.message);
    return ok;
}

/* One circuit of the fixture; every array is its own malloc allocation. */
typedef struct {
    uint64_t *a_aux, *b_inp, *b_aux;
    fr_t *a, *b, *c, *inp, *aux, *publics;
    size_t abc_size, inp_size, aux_size, a_aux_bits, b_inp_bits, b_aux_bits, num_public;
    fr_t r, s;
    groth16_proof expected;
} Circuit;

/* A cursor over the fixture bytes; `bad` is set on a read past the end. */
typedef struct {
    const unsigned char *p, *end;
    int bad;
} Reader;

static void read_into(Reader *rd, void *dst, size_t n) {
    if (rd->bad || (size_t)(rd->end - rd->p) < n) {
        rd->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, rd->p, n);
    rd->p += n;
}

static uint64_t read_u64(Reader *rd) {
    uint64_t v;
    read_into(rd, &v, sizeof v);
    return v;
}

/* A fresh allocation of `count` elements of `size` bytes, read from the fixture. */
static void *read_array(Reader *rd, size_t count, size_t size) {
    if (count > (size_t)(rd->end - rd->p) / size) {
        rd->bad = 1;
        return NULL;
    }
    void *dst = malloc(count * size + 1); /* +1: malloc(0) may return NULL */
    if (dst == NULL) {
        rd->bad = 1;
        return NULL;
    }
    read_into(rd, dst, count * size);
    return dst;
}

static size_t popcount(const uint64_t *words, size_t bits) {
    size_t n = 0;
    for (size_t i = 0; i < bits; i++)
        n += (words[i / 64] >> (i % 64)) & 1;
    return n;
}

static Assignment assignment_of(const Circuit *c) {
    Assignment a = {
        .a_aux_density = c->a_aux,
        .a_aux_bit_len = c->a_aux_bits,
        .a_aux_popcount = popcount(c->a_aux, c->a_aux_bits),
        .b_inp_density = c->b_inp,
        .b_inp_bit_len = c->b_inp_bits,
        .b_inp_popcount = popcount(c->b_inp, c->b_inp_bits),
        .b_aux_density = c->b_aux,
        .b_aux_bit_len = c->b_aux_bits,
        .b_aux_popcount = popcount(c->b_aux, c->b_aux_bits),
        .a = c->a,
        .b = c->b,
        .c = c->c,
        .abc_size = c->abc_size,
        .inp_assignment_data = c->inp,
        .inp_assignment_size = c->inp_size,
        .aux_assignment_data = c->aux,
        .aux_assignment_size = c->aux_size,
    };
    return a;
}

static void free_circuit(Circuit *c) {
    free(c->a_aux);
    free(c->b_inp);
    free(c->b_aux);
    free(c->a);
    free(c->b);
    free(c->c);
    free(c->inp);
    free(c->aux);
    free(c->publics);
}

/* Reads the fixture into *out (num_circuits entries); returns the count, 0 on failure. */
static size_t read_fixture(const char *path, Circuit **out) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(len > 0 ? (size_t)len : 1);
    size_t got = bytes ? fread(bytes, 1, (size_t)len, f) : 0;
    fclose(f);
    Reader rd = {bytes, bytes + got, got != (size_t)len};
    char magic[8];
    read_into(&rd, magic, 8);
    size_t n = (size_t)read_u64(&rd);
    if (rd.bad || memcmp(magic, "G16C2FX1", 8) != 0 || n == 0 || n > 1024) {
        fprintf(stderr, "%s: not a fixture file\n", path);
        free(bytes);
        return 0;
    }
    Circuit *cs = calloc(n, sizeof *cs);
    for (size_t i = 0; i < n && !rd.bad; i++) {
        Circuit *c = &cs[i];
        c->abc_size = read_u64(&rd);
        c->inp_size = read_u64(&rd);
        c->aux_size = read_u64(&rd);
        c->a_aux_bits = read_u64(&rd);
        c->b_inp_bits = read_u64(&rd);
        c->b_aux_bits = read_u64(&rd);
        c->num_public = read_u64(&rd);
        c->a_aux = read_array(&rd, (c->a_aux_bits + 63) / 64, 8);
        c->b_inp = read_array(&rd, (c->b_inp_bits + 63) / 64, 8);
        c->b_aux = read_array(&rd, (c->b_aux_bits + 63) / 64, 8);
        c->a = read_array(&rd, c->abc_size, sizeof(fr_t));
        c->b = read_array(&rd, c->abc_size, sizeof(fr_t));
        c->c = read_array(&rd, c->abc_size, sizeof(fr_t));
        c->inp = read_array(&rd, c->inp_size, sizeof(fr_t));
        c->aux = read_array(&rd, c->aux_size, sizeof(fr_t));
        read_into(&rd, &c->r, sizeof c->r);
        read_into(&rd, &c->s, sizeof c->s);
        c->publics = read_array(&rd, c->num_public, sizeof(fr_t));
        read_into(&rd, &c->expected, sizeof c->expected);
    }
    int complete = !rd.bad && rd.p == rd.end;
    free(bytes);
    if (!complete) {
        fprintf(stderr, "%s: truncated or has trailing bytes\n", path);
        for (size_t i = 0; i < n; i++)
            free_circuit(&cs[i]);
        free(cs);
        return 0;
    }
    *out = cs;
    return n;
}

/* The one-shot call, in whichever form the library was built with. */
static Error generate(const Assignment *provers, size_t n, const fr_t *r, const fr_t *s,
                      groth16_proof *proofs, const SRS *srs) {
#ifdef GROTH16_C2_CUZK_ABI
    return generate_groth16_proofs_c(provers, n, r, s, proofs, srs, NULL, -1);
#else
    return generate_groth16_proofs_c(provers, n, r, s, proofs, srs);
#endif
}

static int proofs_match(const groth16_proof *proofs, const Circuit *cs, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&proofs[i], &cs[i].expected, sizeof(groth16_proof)) != 0)
            return 0;
    return 1;
}

static int all_verify(const SRS *srs, const groth16_proof *proofs, const Circuit *cs, size_t n) {
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= succeeded(verify_groth16_proof_c(srs, &proofs[i], cs[i].publics, cs[i].num_public),
                        "verify_groth16_proof_c");
    return ok;
}

/* The split API with a caller-owned lock; frees copies of a, b, c as soon as start returns,
 * which the contract allows (docs/design.md, "The C ABI contract"). */
static void split_api(const SRS *srs, Circuit *cs, size_t n, const fr_t *r, const fr_t *s) {
    Assignment *asg = calloc(n, sizeof *asg);
    for (size_t i = 0; i < n; i++) {
        asg[i] = assignment_of(&cs[i]);
        fr_t *abc[3];
        for (int k = 0; k < 3; k++) {
            abc[k] = malloc(cs[i].abc_size * sizeof(fr_t));
            memcpy(abc[k], k == 0 ? cs[i].a : k == 1 ? cs[i].b : cs[i].c,
                   cs[i].abc_size * sizeof(fr_t));
        }
        asg[i].a = abc[0];
        asg[i].b = abc[1];
        asg[i].c = abc[2];
    }
    void *lock = create_gpu_mutex();
    check(lock != NULL, "create_gpu_mutex returns a lock");
    void *pending = NULL;
    Error e = generate_groth16_proofs_start_c(asg, n, r, s, srs, lock, 0, &pending);
    check(succeeded(e, "generate_groth16_proofs_start_c") && pending != NULL,
          "generate_groth16_proofs_start_c returns a pending proof");
    for (size_t i = 0; i < n; i++) {
        /* Scribble over the copies before freeing them: the proofs must not depend on them. */
        memset((void *)asg[i].a, 0xA5, cs[i].abc_size * sizeof(fr_t));
        memset((void *)asg[i].b, 0xA5, cs[i].abc_size * sizeof(fr_t));
        memset((void *)asg[i].c, 0xA5, cs[i].abc_size * sizeof(fr_t));
        free((void *)asg[i].a);
        free((void *)asg[i].b);
        free((void *)asg[i].c);
    }
    if (pending != NULL) {
        groth16_proof *proofs = calloc(n, sizeof *proofs);
        groth16_timings t = {0};
        check(succeeded(groth16_pending_timings(pending, &t), "groth16_pending_timings") &&
                  t.num_circuits == n && t.gpu_total_ms > 0.0,
              "groth16_pending_timings reports the device section before finalize");
        check(succeeded(finalize_groth16_proof_c(pending, proofs), "finalize_groth16_proof_c"),
              "finalize_groth16_proof_c succeeds");
        check(proofs_match(proofs, cs, n),
              "split API proofs equal bellperson's (a, b, c freed after start)");
        check(groth16_c2_last_timings(&t) && t.num_circuits == n && t.total_ms > 0.0,
              "groth16_c2_last_timings reports the finished batch");
        check(is_error_with_message(finalize_groth16_proof_c(pending, proofs)),
              "finalizing twice is an error with a message (finalize consumed the handle)");
        destroy_pending_proof(pending); /* allowed after finalize: a no-op */
        free(proofs);
    }
    destroy_gpu_mutex(lock);
    free(asg);
}

static fr_t *copy_of(const fr_t *xs, size_t n) {
    fr_t *copy = malloc(n * sizeof *copy + 1);
    memcpy(copy, xs, n * sizeof *copy);
    return copy;
}

/* Calls that must fail cleanly, each with a message the host frees. */
static void bad_calls(const SRS *srs, Circuit *cs, size_t n, const fr_t *r, const fr_t *s) {
    Assignment *asg = calloc(n, sizeof *asg);
    for (size_t i = 0; i < n; i++)
        asg[i] = assignment_of(&cs[i]);
    groth16_proof *proofs = calloc(n, sizeof *proofs);

    check(is_error_with_message(generate(asg, 0, r, s, proofs, srs)),
          "num_circuits = 0 is an error with a message");
    asg[0].aux_assignment_size -= 1;
    check(is_error_with_message(generate(asg, n, r, s, proofs, srs)),
          "an aux size that disagrees with the SRS is an error with a message");
    asg[0].aux_assignment_size += 1;
    check(is_error_with_message(generate(asg, n, NULL, s, proofs, srs)),
          "NULL r_s is an error with a message");

    SRS missing = {NULL};
    check(is_error_with_message(create_SRS(&missing, "/nonexistent/groth16-c2.params", false)) &&
              missing.ptr == NULL,
          "create_SRS on a missing file is an error with a message");

    if (cs[0].num_public > 0) {
        fr_t *wrong = copy_of(cs[0].publics, cs[0].num_public);
        wrong[0].l[0] ^= 1;
        check(is_error_with_message(
                  verify_groth16_proof_c(srs, &cs[0].expected, wrong, cs[0].num_public)),
              "a proof does not verify against a wrong public input");
        free(wrong);
    }
    free(proofs);
    free(asg);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PARAMS FIXTURE\n", argv[0]);
        return 2;
    }
    printf("backend: %s\n", groth16_c2_backend());
    Circuit *cs = NULL;
    size_t n = read_fixture(argv[2], &cs);
    check(n > 0, "the fixture reads");
    if (n == 0)
        goto done;

    SRS srs = {NULL};
    check(succeeded(create_SRS(&srs, argv[1], true), "create_SRS") && srs.ptr != NULL,
          "create_SRS loads the params file");
    if (srs.ptr == NULL)
        goto free_circuits;
    SRS extra = clone_SRS(&srs);
    check(extra.ptr != NULL, "clone_SRS adds a reference");
    drop_SRS(&extra);
    check(extra.ptr == NULL, "drop_SRS empties the handle");

    fr_t *r = malloc(n * sizeof *r), *s = malloc(n * sizeof *s);
    Assignment *asg = malloc(n * sizeof *asg);
    groth16_proof *proofs = calloc(n, sizeof *proofs);
    for (size_t i = 0; i < n; i++) {
        r[i] = cs[i].r;
        s[i] = cs[i].s;
        asg[i] = assignment_of(&cs[i]);
    }
    int proved = succeeded(generate(asg, n, r, s, proofs, &srs), "generate_groth16_proofs_c");
    check(proved, "generate_groth16_proofs_c proves the batch");
    if (proved) {
        check(proofs_match(proofs, cs, n), "the proofs equal bellperson's byte for byte");
        check(all_verify(&srs, proofs, cs, n), "verify_groth16_proof_c accepts every proof");
        groth16_timings t = {0};
        check(groth16_c2_last_timings(&t) && t.num_circuits == n && t.total_ms > 0.0,
              "groth16_c2_last_timings reports the call");
        printf("       %zu circuits of %zu constraints, total_ms %.1f\n", n, cs[0].abc_size,
               t.total_ms);
    }
    split_api(&srs, cs, n, r, s);
    bad_calls(&srs, cs, n, r, s);

    evict_SRS(&srs);
    drop_SRS(&srs);
    check(srs.ptr == NULL, "drop_SRS releases the last handle");
    free(proofs);
    free(asg);
    free(r);
    free(s);
free_circuits:
    for (size_t i = 0; i < n; i++)
        free_circuit(&cs[i]);
    free(cs);
done:
    printf("prove.c: %d checks passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
