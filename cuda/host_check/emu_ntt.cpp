// Host emulation of the NTT kernels (index logic + device arithmetic path) against a radix-2 reference.
// Build: g++ -x c++ -DG16_EMULATE_PTX -O2 -std=c++17 -include cstring emu_ntt.cpp -o emu_ntt && ./emu_ntt 16
#include "../ntt.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <string>
#include <random>
#include <algorithm>
using namespace g16;
using namespace g16::ntt_detail;

static std::mt19937_64 rng(42);
fr_t rnd() { fr_t x; for (int i=0;i<8;i++) x.v[i]=(uint32_t)rng(); x.v[7] &= 0x3fffffff; return x.to_mont(); }

// As run_rounds: FROM_DATA, the first round reads global memory; TO_DATA, the last writes it.
template<int K, bool DIT, bool TW, int R, bool FROM_DATA = false, bool TO_DATA = false>
void rounds(std::vector<pass_tile<K,DIT,TW>>& ts) {
  constexpr bool last = R + 1 == pass_tile<K,DIT,TW>::NR;
  for (auto& T : ts) T.template round<R, FROM_DATA && R == 0, TO_DATA && last>();
  if constexpr (!last) rounds<K,DIT,TW,R+1,FROM_DATA,TO_DATA>(ts);
}
template<int K, bool DIT, bool TW> void emu_pass_tw(const pass_args& a, const pass_plan& p) {
  std::vector<uint4> smem((size_t(1) << kTileLog) + (size_t(1) << (K + p.c)));
  for (uint64_t b = 0; b < p.blocks; b++) {
    std::vector<pass_tile<K,DIT,TW>> ts;
    for (uint32_t t = 0; t < p.threads; t++)
      ts.push_back(pass_tile<K,DIT,TW>{a, (uint32_t)b, t, p.threads, smem.data(), smem.data() + (1u << kTileLog)});
    rounds<K,DIT,TW,0,true,true>(ts);
  }
}
template<int K, bool DIT> void emu_pass(const pass_args& a, const pass_plan& p) {
  if (a.lt_tw == nullptr) emu_pass_tw<K,DIT,false>(a, p);
  else if (K >= (int)kMinTwistK) emu_pass_tw<K,DIT,true>(a, p);
  else abort();
}
template<bool DIT> void emu_dispatch(const pass_args& a, const pass_plan& p) {
  switch (p.k) {
    case 1: emu_pass<1,DIT>(a,p); break; case 2: emu_pass<2,DIT>(a,p); break;
    case 3: emu_pass<3,DIT>(a,p); break; case 4: emu_pass<4,DIT>(a,p); break;
    case 5: emu_pass<5,DIT>(a,p); break; case 6: emu_pass<6,DIT>(a,p); break;
    case 7: emu_pass<7,DIT>(a,p); break; case 8: emu_pass<8,DIT>(a,p); break;
    case 9: emu_pass<9,DIT>(a,p); break; case 10: emu_pass<10,DIT>(a,p); break;
    case 11: emu_pass<11,DIT>(a,p); break; default: abort();
  }
}
// The H step's fused kernel (ntt_join_kernel), block by block.
template<int K> void emu_join(const fused_step& st) {
  const pass_plan& p = st.p;
  std::vector<uint4> smem((size_t(1) << kTileLog) + (size_t(1) << (K + p.c)));
  for (uint64_t b = 0; b < p.blocks; b++) {
    std::vector<pass_tile<K,false,false>> is; std::vector<pass_tile<K,true,true>> fs;
    for (uint32_t t = 0; t < p.threads; t++) {
      is.push_back(pass_tile<K,false,false>{st.x, (uint32_t)b, t, p.threads, smem.data(), smem.data() + (1u << kTileLog)});
      fs.push_back(pass_tile<K,true,true>{st.y, (uint32_t)b, t, p.threads, smem.data(), smem.data() + (1u << kTileLog)});
    }
    rounds<K,false,false,0,true,false>(is);
    rounds<K,true,true,0,false,true>(fs);
  }
}
template<bool DIT> void emu_dispatch(const pass_args& a, const pass_plan& p);
// Only the widths the device code compiles (launch_join).
template<int K> void emu_fused(const fused_step& st) {
  if (st.kind == step_kind::join && K >= (int)kFusedMinK && K <= (int)kTileLog) emu_join<K>(st);
  else { printf("no fused kernel of width %d\n", K); abort(); }
}
void emu_steps(const fused_step* steps, uint32_t n) {
  if (n == 0) abort();
  for (uint32_t i = 0; i < n; i++) {
    const fused_step& st = steps[i];
    if (st.kind == step_kind::pass) { if (st.dit) emu_dispatch<true>(st.x, st.p); else emu_dispatch<false>(st.x, st.p); continue; }
    switch (st.p.k) {
      case 5: emu_fused<5>(st); break; case 6: emu_fused<6>(st); break; case 7: emu_fused<7>(st); break;
      case 8: emu_fused<8>(st); break; case 9: emu_fused<9>(st); break; case 10: emu_fused<10>(st); break;
      case 11: emu_fused<11>(st); break; default: abort();
    }
  }
}
void emu_ntt(std::vector<fr_t>& d, uint32_t L, bool inv, bool dit, const std::vector<fr_t>& table, uint32_t lg_max,
             const top_table& top = top_table()) {
  table_layout lay(lg_max);
  pass_plan plan[8]; uint32_t np = make_plan(L, dit, plan);
  for (uint32_t i=0;i<np;i++) {
    const pass_args a = make_pass_args(d.data(), table.data(), lay, inv, plan[i], top);
    if (dit) emu_dispatch<true>(a, plan[i]); else emu_dispatch<false>(a, plan[i]);
  }
}
// The top pass's own table for 2^L from the plain table for lg_max (empty: L has one pass).
std::vector<fr_t> build_top(uint32_t L, const std::vector<fr_t>& table, uint32_t lg_max) {
  top_init_args a; a.M = L; a.K = top_table::top_k(L); a.table = table.data(); a.lay = table_layout(lg_max);
  if (a.K == 0) return {};
  std::vector<fr_t> top(size_t(2) << L); a.top = top.data();
  for (uint64_t i = 0; i < top.size(); i++) top_entry(a, i);
  return top;
}
// The coset transforms (scaling folded into the passes) against the plain ones with the
// scaling done apart, for sizes 2^L, tables of lg_max; random beta and kappa, and H's own.
int check_coset(const fr_t& w32, const std::vector<uint32_t>& sizes) {
  int bad = 0;
  for (uint32_t L : sizes) for (uint32_t lg_max : {L, 27u}) {
    if (lg_max < L || (lg_max != L && L >= 17)) continue;  // the slow emulations once
    fr_t om = w32; for (uint32_t i=lg_max;i<32;i++) om=om.sqr();
    table_layout lay(lg_max);
    std::vector<fr_t> table(lay.total());
    table_init_args ta; ta.table=table.data(); ta.lay=lay; fr_t omi = om.inverse();
    memcpy(ta.omega.v, om.v, 32); memcpy(ta.omega_inv.v, omi.v, 32);
    for (uint64_t i=0;i<lay.total();i++) table_entry(ta, i);
    coset_layout cl(L);
    if (!cl.ok) { printf("L %u: no coset plan\n", L); bad++; continue; }
    fr_t w = om; for (uint32_t i=L;i<lg_max;i++) w=w.sqr();
    for (int kind = 0; kind < 2; kind++) {
      // kind 0: random beta, kappa; kind 1: beta = 7 (Fr's generator g), kappa = 1/n
      fr_t beta[2], kappa[2];
      if (kind == 0) { beta[0]=rnd(); beta[1]=rnd(); kappa[0]=rnd(); kappa[1]=rnd(); }
      else { fr_t g = fr_t::one(); for (int i=0;i<6;i++) g = g + fr_t::one();
        fr_t n = fr_t::one(); for (uint32_t i=0;i<L;i++) n = n + n;
        beta[0]=g; beta[1]=g.inverse(); kappa[0]=n.inverse(); kappa[1]=n.inverse(); }
      coset_init_args ca; ca.table = nullptr; ca.lay = cl;
      fr_t wi = w.inverse();
      memcpy(ca.omega[0].v, w.v, 32); memcpy(ca.omega[1].v, wi.v, 32);
      for (int d=0; d<2; d++) { memcpy(ca.beta[d].v, beta[d].v, 32); memcpy(ca.kappa[d].v, kappa[d].v, 32); }
      std::vector<fr_t> ct(cl.total()); ca.table = ct.data();
      for (uint64_t i=0;i<cl.total();i++) coset_entry(ca, i);
      size_t n = size_t(1)<<L;
      for (int inv=0; inv<2; inv++) {
        std::vector<fr_t> in(n); for (auto& x: in) x=rnd();
        if (kind == 1) { in[0] = fr_t::zero(); in[n-1] = fr_t::one(); }
        std::vector<fr_t> pw(n); fr_t p = kappa[inv]; for (size_t i=0;i<n;i++) { pw[i]=p; p=p*beta[inv]; }
        std::vector<fr_t> ref(in), d(in);
        if (!inv) {  // bit-reversed coefficients in: scale, DIT
          for (size_t i=0;i<n;i++) ref[i] = ref[i] * pw[bitrev64(i,L)];
          emu_ntt(ref, L, false, true, table, lg_max);
        } else {     // natural evaluations in: DIF, scale the bit-reversed coefficients
          emu_ntt(ref, L, true, false, table, lg_max);
          for (size_t i=0;i<n;i++) ref[i] = ref[i] * pw[bitrev64(i,L)];
        }
        // Without, then with the top pass's own table.
        const std::vector<fr_t> topt = build_top(L, table, lg_max);
        for (int with_top = 0; with_top < 2; with_top++) {
          std::vector<fr_t> dd(d);
          const top_table tt = with_top ? top_table(topt.data(), L) : top_table();
          pass_plan plan[8]; uint32_t np = make_plan(L, !inv, plan);
          for (uint32_t i=0;i<np;i++) {
            const pass_args a = make_coset_pass_args(dd.data(), table.data(), lay, ct.data(), cl, inv, plan[i], tt);
            if (!inv) emu_dispatch<true>(a, plan[i]); else emu_dispatch<false>(a, plan[i]);
          }
          int e=0; for (size_t i=0;i<n;i++) if(!(dd[i]==ref[i])) e++;
          printf("coset L %2u lg_max %2u passes %u (k %u %u %u) %s inv %d top table %d errs %d\n", L, lg_max, cl.np,
                 cl.k0, cl.k1, cl.k2, kind ? "H's beta, kappa" : "random beta, kappa", inv, with_top, e);
          bad += e;
        }
      }
    }
  }
  // Exactly the plans of two or three passes fold: none of one pass (L <= the tile), 2^27 does.
  for (uint32_t L = 0; L <= 32; L++) {
    pass_plan plan[8];
    const uint32_t np = L >= 1 && L <= 31 ? make_plan(L, true, plan) : 0;
    const bool want = (np == 2 || np == 3) && L > kTileLog;
    if (coset_layout(L).ok != want || (L == 27 && !want)) {
      printf("L %u: coset plan %d, expected %d\n", L, (int)coset_layout(L).ok, (int)want); bad++;
    }
  }
  return bad;
}

// The H step's fused sequence (lde_steps for a, b and c, then the point-wise step and the
// inverse coset transform, as ntt_lde_quotient runs them) against the separate passes (plain
// inverse, coset forward, point-wise, coset inverse): the same h, bit for bit, for H's beta and
// kappa (and random ones at the first size), with and without the top pass's own table. A size
// written with a trailing 'q' runs H's beta and kappa with the top table only: the slow
// emulations.
int check_fused(const fr_t& w32, const std::vector<std::string>& sizes) {
  int bad = 0;
  // Every size: exactly the plans of three passes that fold fuse, with kernels of the compiled
  // widths; the others get no steps (the entry points then run the separate passes).
  for (uint32_t L = 1; L <= 31; L++) {
    pass_plan plan[8];
    const bool want = coset_layout(L).ok && make_plan(L, false, plan) == 3;
    fused_step steps[kMaxFusedSteps];
    const coset_layout cl(L);
    const table_layout lay(L);
    fr_t* p = reinterpret_cast<fr_t*>(uintptr_t(64));  // never dereferenced
    const uint32_t n1 = lde_steps(p, L, p, lay, p, cl, top_table(), steps, 0);
    bool widths = true;
    for (uint32_t i = 0; i < n1; i++) {
      const uint32_t k = steps[i].p.k;
      if (steps[i].kind == step_kind::join) widths &= k >= kFusedMinK && k <= kTileLog;
    }
    if (h_fusable(L) != want || (n1 != 0) != want || !widths || (want && n1 != 3 * 2 - 1)) {
      printf("L %u: fusable %d (expected %d), %u steps, widths %s\n", L, (int)h_fusable(L),
             (int)want, n1, widths ? "ok" : "not compiled");
      bad++;
    }
  }
  bool first = true;
  for (const std::string& size : sizes) {
    const uint32_t L = (uint32_t)atoi(size.c_str());
    const bool quick = size.back() == 'q';
    const uint32_t lg_max = L;
    fr_t om = w32; for (uint32_t i=lg_max;i<32;i++) om=om.sqr();
    table_layout lay(lg_max);
    std::vector<fr_t> table(lay.total());
    table_init_args ta; ta.table=table.data(); ta.lay=lay; fr_t omi = om.inverse();
    memcpy(ta.omega.v, om.v, 32); memcpy(ta.omega_inv.v, omi.v, 32);
    for (uint64_t i=0;i<lay.total();i++) table_entry(ta, i);
    coset_layout cl(L);
    if (!h_fusable(L)) { printf("L %u: does not fuse\n", L); bad++; continue; }
    const std::vector<fr_t> topt = build_top(L, table, lg_max);
    size_t n = size_t(1)<<L;
    for (int kind = first && !quick ? 0 : 1; kind < 2; kind++) {
      fr_t beta[2], kappa[2];
      if (kind == 0) { beta[0]=rnd(); beta[1]=rnd(); kappa[0]=rnd(); kappa[1]=rnd(); }
      else { fr_t g = fr_t::one(); for (int i=0;i<6;i++) g = g + fr_t::one();
        fr_t nn = fr_t::one(); for (uint32_t i=0;i<L;i++) nn = nn + nn;
        beta[0]=g; beta[1]=g.inverse(); kappa[0]=nn.inverse(); kappa[1]=nn.inverse(); }
      coset_init_args ca; ca.lay = cl;
      fr_t wi = om.inverse();
      memcpy(ca.omega[0].v, om.v, 32); memcpy(ca.omega[1].v, wi.v, 32);
      for (int d=0; d<2; d++) { memcpy(ca.beta[d].v, beta[d].v, 32); memcpy(ca.kappa[d].v, kappa[d].v, 32); }
      std::vector<fr_t> ct(cl.total()); ca.table = ct.data();
      for (uint64_t i=0;i<cl.total();i++) coset_entry(ca, i);
      std::vector<fr_t> in[3];
      for (auto& v : in) { v.resize(n); for (auto& x : v) x = rnd(); }
      in[2][0] = fr_t::zero(); in[1][n-1] = fr_t::one();
      for (int with_top = quick ? 1 : 0; with_top < 2 && (with_top == 0 || !topt.empty()); with_top++) {
        const top_table tt = with_top ? top_table(topt.data(), L) : top_table();
        // Separate passes.
        std::vector<fr_t> ref[3] = {in[0], in[1], in[2]};
        pass_plan dif[8], dit[8];
        const uint32_t np = make_plan(L, false, dif); make_plan(L, true, dit);
        for (auto& v : ref) {
          emu_ntt(v, L, true, false, table, lg_max, tt);
          for (uint32_t i=0;i<np;i++) emu_dispatch<true>(make_coset_pass_args(v.data(), table.data(), lay, ct.data(), cl, false, dit[i], tt), dit[i]);
        }
        for (size_t i=0;i<n;i++) ref[0][i] = ref[0][i] * ref[1][i] - ref[2][i];
        for (uint32_t i=0;i<np;i++) emu_dispatch<false>(make_coset_pass_args(ref[0].data(), table.data(), lay, ct.data(), cl, true, dif[i], tt), dif[i]);
        // Fused: each polynomial's LDE by its steps, then the point-wise step and the inverse
        // coset passes.
        std::vector<fr_t> d[3] = {in[0], in[1], in[2]};
        uint32_t kernels = 0;
        for (auto& v : d) {
          fused_step steps[kMaxFusedSteps];
          const uint32_t ns = lde_steps(v.data(), L, table.data(), lay, ct.data(), cl, tt, steps, 0);
          emu_steps(steps, ns); kernels += ns;
        }
        for (size_t i=0;i<n;i++) d[0][i] = d[0][i] * d[1][i] - d[2][i];
        for (uint32_t i=0;i<np;i++) emu_dispatch<false>(make_coset_pass_args(d[0].data(), table.data(), lay, ct.data(), cl, true, dif[i], tt), dif[i]);
        kernels += 1 + np;
        int e = 0; for (size_t i=0;i<n;i++) if (!(d[0][i]==ref[0][i])) e++;
        printf("fused L %2u passes %u %s top table %d: %u kernels (separate: %u) errs %d\n", L, np,
               kind ? "H's beta, kappa" : "random beta, kappa", with_top, kernels, 7 * np + 1, e);
        bad += e;
        if (kernels != 7 * np - 2) { printf("  expected %u kernels\n", 7 * np - 2); bad++; }
      }
    }
    first = false;
  }
  return bad;
}

// Bank conflicts of the register rounds' shared-memory accesses: for every pass width K >= 5,
// column count c and lane layout (al = min(lo, c)), how many quarter warps (8 lanes of 16-byte
// accesses) fall in fewer than 8 bank groups (pass_tile::phys, pass_tile::lane).
template<int K, bool DIT> int bank_conflicts_dir(uint32_t c, uint32_t lo) {
  typedef pass_tile<K,DIT,false> T;
  const uint32_t nthreads = 1u << (K - T::W + c);
  pass_args a{}; a.lo = lo; a.c = c;
  int bad = 0;
  for (int R = 0; R < T::NR; R++)
    for (int m = 0; m < T::E; m++)
      for (uint32_t base = 0; base + 8 <= nthreads; base += 8) {
        uint32_t seen = 0;
        for (uint32_t tid = base; tid < base + 8; tid++) {
          const T t{a, 0, tid, nthreads, nullptr, nullptr};
          uint32_t l, ut;
          t.lane(l, ut);
          seen |= 1u << (T::phys((l << K) | T::round_slot(R, ut, m)) & 7u);
        }
        bad += seen != 0xffu;
      }
  return bad;
}

template<int K> int bank_conflicts() {
  int total = 0;
  for (uint32_t c = 0; K + c <= kTileLog; c++) {
    for (uint32_t lo = 0; lo <= c; lo++) {
      // Both directions: the high rounds map ut to slots their own way.
      const int bad = bank_conflicts_dir<K, false>(c, lo) + bank_conflicts_dir<K, true>(c, lo);
      printf("banks K %2d c %u lo %u: %d quarter warps conflict\n", K, c, lo, bad);
      total += bad;
    }
  }
  return total;
}

template<int K, bool DIT> int warp_rounds_dir(uint32_t c, uint32_t lo, int& local, int& missed) {
  typedef pass_tile<K,DIT,false> T;
  const uint32_t nthreads = 1u << (K - T::W + c);
  pass_args a{}; a.lo = lo; a.c = c;
  const T t0{a, 0, 0, nthreads, nullptr, nullptr};
  int bad = 0;
  for (int R = 0; R + 1 < T::NR; R++) {
    bool same = true;
    for (uint32_t base = 0; base < nthreads; base += 32) {
      std::vector<uint32_t> slots[2];
      for (int k = 0; k < 2; k++) {
        for (uint32_t tid = base; tid < base + 32 && tid < nthreads; tid++) {
          const T t{a, 0, tid, nthreads, nullptr, nullptr};
          uint32_t l, ut;
          t.lane(l, ut);
          for (int m = 0; m < T::E; m++) slots[k].push_back((l << K) | T::round_slot(R + k, ut, m));
        }
        std::sort(slots[k].begin(), slots[k].end());
      }
      if (slots[0] != slots[1]) same = false;
    }
    const bool claimed = t0.warp_local(R);
    if (claimed && !same) {
      printf("warps K %2d c %u lo %u %s rounds %d-%d: called warp-local, but a warp's slots differ\n",
             K, c, lo, DIT ? "DIT" : "DIF", R, R + 1);
      bad++;
    }
    local += claimed;
    missed += !claimed && same;
  }
  return bad;
}

// The register rounds that pass_tile::warp_local joins by __syncwarp alone: for every pass
// width K, column count c, lane layout and pair of consecutive rounds it calls warp-local,
// each warp must read and write the same tile slots in both rounds. Counts how many pairs are
// warp-local, and how many others happen to keep each warp's slots too (left to __syncthreads).
template<int K> int warp_rounds(int& local, int& missed) {
  int bad = 0;
  for (uint32_t c = 0; K + c <= kTileLog; c++)
    for (uint32_t lo = 0; lo <= c + 1; lo++)
      bad += warp_rounds_dir<K, false>(c, lo, local, missed) + warp_rounds_dir<K, true>(c, lo, local, missed);
  return bad;
}

int main(int argc, char** argv) {
  // omega_max for lg_max: Fr root of unity of order 2^32, squared 32-lg_max times.
  // Fr::ROOT_OF_UNITY (canonical) = 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b
  const char* rou = "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b";
  fr_t w32; for (int i=0;i<8;i++) { char buf[9]; memcpy(buf, rou + 8*(7-i), 8); buf[8]=0; w32.v[i]=strtoul(buf,0,16);} 
  w32 = w32.to_mont();
  // sanity: w32^(2^32) == 1, w32^(2^31) != 1
  { fr_t t=w32; for(int i=0;i<31;i++) t=t.sqr(); if (t==fr_t::one()) {printf("bad root\n");return 1;} t=t.sqr(); if(!(t==fr_t::one())){printf("bad root2\n");return 1;} }
  if (argc > 1 && strcmp(argv[1], "fused") == 0) {
    std::vector<std::string> sizes; for (int i=2;i<argc;i++) sizes.push_back(argv[i]);
    int bad = check_fused(w32, sizes);
    printf(bad ? "FAIL\n" : "ALL OK\n");
    return bad != 0;
  }
  if (argc > 1 && strcmp(argv[1], "banks") == 0) {
    int bad = bank_conflicts<5>() + bank_conflicts<6>() + bank_conflicts<7>() +
              bank_conflicts<8>() + bank_conflicts<9>() + bank_conflicts<10>();
#if G16_NTT_TILE_LOG >= 11
    bad += bank_conflicts<11>();
#endif
    printf(bad ? "FAIL\n" : "ALL OK\n");
    return bad != 0;
  }
  if (argc > 1 && strcmp(argv[1], "warps") == 0) {
    int local = 0, missed = 0;
    int bad = warp_rounds<1>(local, missed) + warp_rounds<2>(local, missed) + warp_rounds<3>(local, missed) +
              warp_rounds<4>(local, missed) + warp_rounds<5>(local, missed) + warp_rounds<6>(local, missed) +
              warp_rounds<7>(local, missed) + warp_rounds<8>(local, missed) + warp_rounds<9>(local, missed) +
              warp_rounds<10>(local, missed);
#if G16_NTT_TILE_LOG >= 11
    bad += warp_rounds<11>(local, missed);
#endif
    printf("warps: %d round pairs warp-local, %d others keep each warp's slots\n", local, missed);
    if (local == 0) { printf("no warp-local round pairs\n"); bad++; }
    printf(bad ? "FAIL\n" : "ALL OK\n");
    return bad != 0;
  }
  if (argc > 1 && strcmp(argv[1], "coset") == 0) {
    std::vector<uint32_t> sizes; for (int i=2;i<argc;i++) sizes.push_back(atoi(argv[i]));
    int bad = check_coset(w32, sizes);
    printf(bad ? "FAIL\n" : "ALL OK\n");
    return bad != 0;
  }
  int maxL = argc > 1 ? atoi(argv[1]) : 14;
  int bad = 0;
  for (uint32_t lg_max : {1u, 5u, 12u, 14u, 16u, 22u, 27u}) {
    fr_t om = w32; for (uint32_t i=lg_max;i<32;i++) om=om.sqr();
    fr_t omi = om.inverse();
    table_layout lay(lg_max);
    std::vector<fr_t> table(lay.total());
    table_init_args ta; ta.table=table.data(); ta.lay=lay; memcpy(ta.omega.v, om.v, 32); memcpy(ta.omega_inv.v, omi.v, 32);
    for (uint64_t i=0;i<lay.total();i++) table_entry(ta, i);
    for (uint32_t L=1; L<=lg_max && L<=(uint32_t)maxL; L++) {
      if (lg_max >= 16 && L < 12 && L != 1 && L != 3 && L != 11) continue;
      size_t n = size_t(1)<<L;
      fr_t w = om; for (uint32_t i=L;i<lg_max;i++) w=w.sqr();
      for (int inv=0; inv<2; inv++) {
        fr_t ww = inv ? w.inverse() : w;
        std::vector<fr_t> in(n); for (auto& x: in) x=rnd();
        // reference: O(n log n) recursive-free via powers (n up to 2^14 -> use radix-2 reference)
        std::vector<fr_t> ref(in);
        { // iterative DIT with bitrev input, natural output, on bit-reversed copy
          std::vector<fr_t> t(n); for (size_t i=0;i<n;i++) t[bitrev64(i,L)]=ref[i];
          for (uint32_t s=0;s<L;s++){ size_t h=size_t(1)<<s; fr_t wm=ww; for(uint32_t q=s+1;q<L;q++) wm=wm.sqr();
            for (size_t blk=0;blk<n;blk+=2*h){ fr_t tw=fr_t::one(); for(size_t j=0;j<h;j++){ fr_t X=t[blk+j], Y=t[blk+j+h]*tw; t[blk+j]=X+Y; t[blk+j+h]=X-Y; tw=tw*wm; } } }
          ref=t;
        }
        if (L <= 6) { // textbook check of the reference itself
          for (size_t k=0;k<n;k++){ fr_t acc=fr_t::zero(); for(size_t j=0;j<n;j++) acc=acc+in[j]*ww.pow((uint64_t)j*k % n); if(!(acc==ref[k])){printf("REF BAD\n");return 1;} }
        }
        // DIF: natural in -> bitrev out
        std::vector<fr_t> d(in); emu_ntt(d, L, inv, false, table, lg_max);
        int e1=0; for (size_t i=0;i<n;i++) if(!(d[bitrev64(i,L)]==ref[i])) e1++;
        // DIT: bitrev in -> natural out
        std::vector<fr_t> d2(n); for (size_t i=0;i<n;i++) d2[bitrev64(i,L)]=in[i];
        emu_ntt(d2, L, inv, true, table, lg_max);
        int e2=0; for (size_t i=0;i<n;i++) if(!(d2[i]==ref[i])) e2++;
        // The same with the top pass's own table (sizes of two or more passes).
        int e3=0, e4=0;
        const std::vector<fr_t> topt = build_top(L, table, lg_max);
        if (!topt.empty()) {
          const top_table tt(topt.data(), L);
          std::vector<fr_t> d3(in); emu_ntt(d3, L, inv, false, table, lg_max, tt);
          for (size_t i=0;i<n;i++) if(!(d3[bitrev64(i,L)]==ref[i])) e3++;
          std::vector<fr_t> d4(n); for (size_t i=0;i<n;i++) d4[bitrev64(i,L)]=in[i];
          emu_ntt(d4, L, inv, true, table, lg_max, tt);
          for (size_t i=0;i<n;i++) if(!(d4[i]==ref[i])) e4++;
        }
        pass_plan plan[8]; uint32_t np=make_plan(L,false,plan);
        printf("lg_max %2u L %2u inv %d passes %u [", lg_max, L, inv, np); for(uint32_t i=0;i<np;i++) printf(" k%u lo%u c%u t%u", plan[i].k, plan[i].lo, plan[i].c, plan[i].threads);
        printf(" ] DIF errs %d DIT errs %d; top table %s: DIF errs %d DIT errs %d\n", e1, e2,
               topt.empty() ? "none" : "yes", e3, e4);
        bad += e1 + e2 + e3 + e4;
      }
    }
  }
  printf(bad ? "FAIL\n" : "ALL OK\n");
  return bad != 0;
}
