// examples/cpp/host.cpp: a C++17 host of groth16-c2 that uses only include/groth16_c2.h and
// libgroth16_c2.a, as a miner would. It loads the params, reads the fixture written by
// examples/c_fixture.rs, and proves the fixture's circuits with the split API from two
// std::threads that share one caller-owned GPU lock (Curio's two-workers-per-GPU shape), three
// rounds each. Every proof must equal bellperson's bytes and pass verify_groth16_proof_c. Every
// library resource is held by an RAII wrapper, so nothing leaks on any path (run.sh runs it
// under AddressSanitizer/LSan where available).
//
// usage: host PARAMS FIXTURE      (built and run by examples/cpp/run.sh)
#include "groth16_c2.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

// ---- RAII over the C ABI -------------------------------------------------------------------

// The library's error messages are malloc'ed; the host owns them and must free() them.
struct FreeDeleter {
    void operator()(char* p) const { std::free(p); }
};
using Message = std::unique_ptr<char, FreeDeleter>;

// An `Error` taken over by value: the message is freed with this object.
struct Status {
    int32_t code = 0;
    Message message;

    explicit Status(Error e) : code(e.code), message(e.message) {}
    bool ok() const { return code == 0; }
    std::string text() const {
        return message ? std::string(message.get()) : std::string("(no message)");
    }
};

// Throws on a non-zero code; the exception carries a copy of the library's message.
void check_ok(Error e, const char* call) {
    Status s(e);
    if (!s.ok())
        throw std::runtime_error(std::string(call) + " failed (code " + std::to_string(s.code) +
                                 "): " + s.text());
}

// One SRS reference; drop_SRS on destruction. Move-only, like the reference it holds.
class Srs {
  public:
    static Srs load(const std::string& path, bool cache) {
        Srs srs;
        check_ok(create_SRS(&srs.h_, path.c_str(), cache), "create_SRS");
        return srs;
    }
    Srs(Srs&& o) noexcept : h_(std::exchange(o.h_, SRS{nullptr})) {}
    Srs& operator=(Srs&&) = delete;
    Srs(const Srs&) = delete;
    ~Srs() { drop_SRS(&h_); }  // drop_SRS accepts an empty handle
    const SRS* get() const { return &h_; }

  private:
    Srs() = default;
    SRS h_{nullptr};
};

// The caller-owned lock (one per GPU). Destroyed only after every thread using it has joined:
// the unique_ptr outlives the threads in main.
struct LockDeleter {
    void operator()(void* lock) const { destroy_gpu_mutex(lock); }
};
using GpuLock = std::unique_ptr<void, LockDeleter>;

// A pending batch. finalize consumes the handle, and destroy_pending_proof on a finalized handle
// is a documented no-op, so the deleter can run unconditionally: it abandons the batch on an
// early exit (an exception between start and finalize) and does nothing after finalize.
struct PendingDeleter {
    void operator()(void* pending) const { destroy_pending_proof(pending); }
};
using Pending = std::unique_ptr<void, PendingDeleter>;

// ---- the fixture (format: the //! header of examples/c_fixture.rs) --------------------------

struct Circuit {
    std::vector<uint64_t> a_aux, b_inp, b_aux;  // density words, LSB first
    size_t a_aux_bits = 0, b_inp_bits = 0, b_aux_bits = 0;
    std::vector<fr_t> a, b, c, inp, aux, publics;
    fr_t r{}, s{};
    groth16_proof expected{};
};

class Reader {
  public:
    explicit Reader(std::vector<unsigned char> bytes) : bytes_(std::move(bytes)) {}

    void read(void* dst, size_t n) {
        if (bytes_.size() - pos_ < n)
            throw std::runtime_error("fixture truncated");
        std::memcpy(dst, bytes_.data() + pos_, n);
        pos_ += n;
    }
    uint64_t u64() {
        uint64_t v;
        read(&v, sizeof v);
        return v;
    }
    template <typename T>
    std::vector<T> array(uint64_t count) {
        // Checked against what is left before allocating, so a corrupt count cannot ask for
        // gigabytes.
        if (count > (bytes_.size() - pos_) / sizeof(T))
            throw std::runtime_error("fixture truncated");
        std::vector<T> v(count);
        read(v.data(), count * sizeof(T));
        return v;
    }
    bool at_end() const { return pos_ == bytes_.size(); }

  private:
    std::vector<unsigned char> bytes_;
    size_t pos_ = 0;
};

std::vector<Circuit> read_fixture(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw std::runtime_error("cannot open " + path);
    Reader rd(std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {}));
    char magic[8];
    rd.read(magic, sizeof magic);
    uint64_t n = rd.u64();
    if (std::memcmp(magic, "G16C2FX1", 8) != 0 || n == 0 || n > 1024)
        throw std::runtime_error(path + ": not a fixture file");
    std::vector<Circuit> cs(n);
    for (Circuit& c : cs) {
        uint64_t abc = rd.u64(), inp = rd.u64(), aux = rd.u64();
        c.a_aux_bits = rd.u64();
        c.b_inp_bits = rd.u64();
        c.b_aux_bits = rd.u64();
        uint64_t num_public = rd.u64();
        c.a_aux = rd.array<uint64_t>((c.a_aux_bits + 63) / 64);
        c.b_inp = rd.array<uint64_t>((c.b_inp_bits + 63) / 64);
        c.b_aux = rd.array<uint64_t>((c.b_aux_bits + 63) / 64);
        c.a = rd.array<fr_t>(abc);
        c.b = rd.array<fr_t>(abc);
        c.c = rd.array<fr_t>(abc);
        c.inp = rd.array<fr_t>(inp);
        c.aux = rd.array<fr_t>(aux);
        rd.read(&c.r, sizeof c.r);
        rd.read(&c.s, sizeof c.s);
        c.publics = rd.array<fr_t>(num_public);
        rd.read(&c.expected, sizeof c.expected);
    }
    if (!rd.at_end())
        throw std::runtime_error(path + ": trailing bytes");
    return cs;
}

size_t popcount(const std::vector<uint64_t>& words, size_t bits) {
    size_t n = 0;
    for (size_t i = 0; i < bits; i++)
        n += (words[i / 64] >> (i % 64)) & 1;
    return n;
}

// A view of `c` for the library: it points into c's vectors, which outlive every call.
Assignment assignment_of(const Circuit& c) {
    Assignment a{};
    a.a_aux_density = c.a_aux.data();
    a.a_aux_bit_len = c.a_aux_bits;
    a.a_aux_popcount = popcount(c.a_aux, c.a_aux_bits);
    a.b_inp_density = c.b_inp.data();
    a.b_inp_bit_len = c.b_inp_bits;
    a.b_inp_popcount = popcount(c.b_inp, c.b_inp_bits);
    a.b_aux_density = c.b_aux.data();
    a.b_aux_bit_len = c.b_aux_bits;
    a.b_aux_popcount = popcount(c.b_aux, c.b_aux_bits);
    a.a = c.a.data();
    a.b = c.b.data();
    a.c = c.c.data();
    a.abc_size = c.a.size();
    a.inp_assignment_data = c.inp.data();
    a.inp_assignment_size = c.inp.size();
    a.aux_assignment_data = c.aux.data();
    a.aux_assignment_size = c.aux.size();
    return a;
}

// ---- proving --------------------------------------------------------------------------------

// A copy of `v` in memory from groth16_c2_alloc_pinned (page-locked when proofs run on a GPU,
// so the library uploads from it without a staging copy), freed with groth16_c2_free_pinned.
class PinnedFr {
  public:
    explicit PinnedFr(const std::vector<fr_t>& v) : size_(v.size()) {
        void* p = nullptr;
        check_ok(groth16_c2_alloc_pinned(std::max<size_t>(1, size_) * sizeof(fr_t), &p),
                 "groth16_c2_alloc_pinned");
        ptr_ = static_cast<fr_t*>(p);
        std::copy(v.begin(), v.end(), ptr_);
    }
    PinnedFr(PinnedFr&& o) noexcept : ptr_(o.ptr_), size_(o.size_) { o.ptr_ = nullptr; }
    PinnedFr(const PinnedFr&) = delete;
    PinnedFr& operator=(const PinnedFr&) = delete;
    PinnedFr& operator=(PinnedFr&&) = delete;
    ~PinnedFr() {
        if (ptr_ != nullptr)
            check_ok(groth16_c2_free_pinned(ptr_), "groth16_c2_free_pinned");
    }
    const fr_t* data() const { return ptr_; }
    size_t bytes() const { return size_ * sizeof(fr_t); }

  private:
    fr_t* ptr_ = nullptr;
    size_t size_ = 0;
};

// A batch in the order a worker proves it: Assignments plus r and s, index-aligned. With
// `pinned`, each circuit's a, b, c are copies in pinned memory, as Curio's engine keeps them.
struct Batch {
    std::vector<const Circuit*> circuits;
    std::vector<Assignment> provers;
    std::vector<fr_t> r, s;
    std::vector<PinnedFr> pinned_abc;

    Batch(std::vector<const Circuit*> cs, bool pinned) : circuits(std::move(cs)) {
        for (const Circuit* c : circuits) {
            Assignment a = assignment_of(*c);
            if (pinned) {
                for (const std::vector<fr_t>* v : {&c->a, &c->b, &c->c})
                    pinned_abc.emplace_back(*v);
                const size_t k = pinned_abc.size();
                a.a = pinned_abc[k - 3].data();
                a.b = pinned_abc[k - 2].data();
                a.c = pinned_abc[k - 1].data();
            }
            provers.push_back(a);
            r.push_back(c->r);
            s.push_back(c->s);
        }
    }
};

// start -> finalize -> destroy (by the Pending deleter) on the shared lock.
std::vector<groth16_proof> prove_split(const Batch& batch, const Srs& srs, void* lock) {
    void* raw = nullptr;
    check_ok(generate_groth16_proofs_start_c(batch.provers.data(), batch.provers.size(),
                                             batch.r.data(), batch.s.data(), srs.get(), lock,
                                             /*gpu_index=*/0, &raw),
             "generate_groth16_proofs_start_c");
    Pending pending(raw);
    std::vector<groth16_proof> proofs(batch.provers.size());
    check_ok(finalize_groth16_proof_c(pending.get(), proofs.data()), "finalize_groth16_proof_c");
    return proofs;  // ~Pending calls destroy_pending_proof on the consumed handle: a no-op
}

// Empty when every proof equals bellperson's and verifies; otherwise what went wrong.
std::string check_proofs(const std::vector<groth16_proof>& proofs, const Batch& batch,
                         const Srs& srs) {
    for (size_t i = 0; i < proofs.size(); i++) {
        const Circuit& c = *batch.circuits[i];
        if (std::memcmp(&proofs[i], &c.expected, sizeof(groth16_proof)) != 0)
            return "proof " + std::to_string(i) + " differs from bellperson's";
        Status v(verify_groth16_proof_c(srs.get(), &proofs[i], c.publics.data(),
                                        c.publics.size()));
        if (!v.ok())
            return "proof " + std::to_string(i) + " does not verify: " + v.text();
    }
    return "";
}

int passed = 0, failed = 0;
std::mutex print_mutex;  // checks are printed from both workers

void check(bool ok, const std::string& what) {
    std::lock_guard<std::mutex> guard(print_mutex);
    std::printf("%s - %s\n", ok ? "ok  " : "FAIL", what.c_str());
    std::fflush(stdout);
    (ok ? passed : failed)++;
}

constexpr int kWorkers = 2;
constexpr int kRounds = 3;

// One worker: proves its batch kRounds times and checks every proof. Exceptions are caught here:
// one escaping a std::thread would call std::terminate.
void worker(int id, const Batch& batch, const Srs& srs, void* lock) {
    for (int round = 1; round <= kRounds; round++) {
        std::string what = "worker " + std::to_string(id) + " round " + std::to_string(round) +
                           ": " + std::to_string(batch.provers.size()) +
                           " proofs via start/finalize on the shared lock";
        try {
            std::string problem = check_proofs(prove_split(batch, srs, lock), batch, srs);
            check(problem.empty(), what + (problem.empty() ? ", equal bellperson's, verify"
                                                            : ": " + problem));
        } catch (const std::exception& e) {
            check(false, what + ": " + e.what());
        }
    }
}

// Calls that must fail cleanly, each with a message (freed by Status).
void bad_calls(const std::vector<Circuit>& cs, const Srs& srs, void* lock) {
    std::vector<const Circuit*> ptrs;
    for (const Circuit& c : cs)
        ptrs.push_back(&c);
    Batch batch(ptrs, /*pinned=*/false);
    batch.provers[0].aux_assignment_size -= 1;
    void* raw = nullptr;
    Status st(generate_groth16_proofs_start_c(batch.provers.data(), batch.provers.size(),
                                              batch.r.data(), batch.s.data(), srs.get(), lock,
                                              0, &raw));
    Pending pending(raw);  // in case a buggy library returned one anyway
    std::printf("       message (code %d): %s\n", st.code, st.text().c_str());
    check(!st.ok() && st.message && st.message.get()[0] != '\0' && raw == nullptr,
          "start with an aux size that disagrees with the SRS: error with a message, no handle");

    // finalize consumes the handle: a second finalize is an error (and the deleter's destroy a
    // no-op).
    batch.provers[0].aux_assignment_size += 1;
    try {
        check_ok(generate_groth16_proofs_start_c(batch.provers.data(), batch.provers.size(),
                                                 batch.r.data(), batch.s.data(), srs.get(),
                                                 lock, 0, &raw),
                 "generate_groth16_proofs_start_c");
        Pending again(raw);
        std::vector<groth16_proof> proofs(batch.provers.size());
        check_ok(finalize_groth16_proof_c(again.get(), proofs.data()), "finalize_groth16_proof_c");
        Status twice(finalize_groth16_proof_c(again.get(), proofs.data()));
        std::printf("       message (code %d): %s\n", twice.code, twice.text().c_str());
        check(!twice.ok() && twice.message, "a second finalize is an error with a message");
    } catch (const std::exception& e) {
        check(false, std::string("a second finalize is an error with a message: ") + e.what());
    }
}

int run(const std::string& params, const std::string& fixture) {
    std::printf("backend: %s\n", groth16_c2_backend());
    std::vector<Circuit> cs = read_fixture(fixture);
    check(true, "the fixture reads: " + std::to_string(cs.size()) + " circuits");
    Srs srs = Srs::load(params, /*cache=*/true);
    check(srs.get()->ptr != nullptr, "create_SRS loads the params file");
    GpuLock lock(create_gpu_mutex());
    check(lock != nullptr, "create_gpu_mutex returns a lock");

    // Worker 0 proves the fixture's circuits in order from the host's own vectors, worker 1 in
    // reverse order from pinned copies of a, b, c: two different batches through one lock, each
    // with its own expected proofs.
    std::vector<Batch> batches;
    std::vector<const Circuit*> order;
    for (const Circuit& c : cs)
        order.push_back(&c);
    batches.emplace_back(order, /*pinned=*/false);
    batches.emplace_back(std::vector<const Circuit*>(order.rbegin(), order.rend()), true);
    const bool on_gpu = std::string(groth16_c2_backend()) == "cuda";
    const PinnedFr& first = batches[1].pinned_abc.front();
    check(groth16_c2_is_pinned(first.data(), first.bytes()) == on_gpu,
          "groth16_c2_alloc_pinned memory is page-locked exactly when proofs run on a GPU");
    check(!groth16_c2_is_pinned(cs[0].a.data(), cs[0].a.size() * sizeof(fr_t)),
          "the host's own vectors are not page-locked");
    {
        void* none = nullptr;
        Status zero(groth16_c2_alloc_pinned(0, &none));
        check(!zero.ok() && none == nullptr, "allocating 0 bytes is an error: " + zero.text());
        int on_stack = 0;
        Status foreign(groth16_c2_free_pinned(&on_stack));
        check(!foreign.ok(), "freeing memory the library did not allocate is an error");
    }
    {
        std::vector<std::thread> workers;
        for (int id = 0; id < kWorkers; id++)
            workers.emplace_back(worker, id, std::cref(batches[id]), std::cref(srs), lock.get());
        for (std::thread& t : workers)
            t.join();
    }
    bad_calls(cs, srs, lock.get());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s PARAMS FIXTURE\n", argv[0]);
        return 2;
    }
    try {
        run(argv[1], argv[2]);
    } catch (const std::exception& e) {
        check(false, e.what());
    }
    std::printf("cpp host: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
