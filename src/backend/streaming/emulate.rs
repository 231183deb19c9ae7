//! Runs a streamed section's ops on the host, with the memory of the arena as bytes and each
//! stream a queue: in program order, or with the copy streams running as far ahead of the
//! kernels as the events allow, or the kernels as far ahead of the copies. A wait the builder
//! forgot lets one side overwrite or read memory the other still needs, and the results come out
//! wrong; the workspace of every MSM and batch addition is overwritten with junk, as a kernel
//! would scribble on it.

use std::collections::VecDeque;

use blst::blst_scalar;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::{Field, PrimeField};

use super::{HostSrc, Mem, Op, ResultMap, Space, StreamId, StreamPlan, Sums};
use crate::backend::cpu::fft::{scale_by_powers, Domain};
use crate::backend::cpu::CpuBackend;
use crate::backend::kernel_sizes::Curve;
use crate::backend::Backend;
use crate::split::{CircuitSplit, OnesBitmap};
use crate::srs::Srs;

/// The host memory the uploads read.
pub struct HostData<'a> {
    pub srs: &'a Srs,
    pub abc: Vec<[&'a [Scalar]; 3]>,
    pub splits: Vec<&'a CircuitSplit>,
}

/// Which stream runs first whenever several can.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Program,
    CopiesFirst,
    ComputeFirst,
}

struct Machine<'a> {
    plan: &'a StreamPlan,
    host: &'a HostData<'a>,
    arena: Vec<u64>,
    g1: Vec<Option<G1Projective>>,
    g2: Vec<Option<G2Projective>>,
    junk: u64,
}

/// Runs `ops` in `order`; returns each circuit's sums (by the slots of `results`).
pub fn run(
    ops: &[Op],
    plan: &StreamPlan,
    host: &HostData,
    results: &ResultMap,
    order: Order,
) -> Vec<Sums> {
    let mut m = Machine {
        plan,
        host,
        arena: vec![0x5a5a_5a5a_5a5a_5a5a; plan.layout.bytes.div_ceil(8)],
        g1: vec![None; results.g1.len()],
        g2: vec![None; results.g2.len()],
        junk: 1,
    };
    // The record each wait waits for: the last one queued before it (program order).
    let mut last_record: Vec<Option<usize>> = Vec::new();
    let mut target = vec![None; ops.len()];
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Record { event, .. } => {
                if last_record.len() <= event {
                    last_record.resize(event + 1, None);
                }
                last_record[event] = Some(i);
            }
            Op::Wait { event, .. } => target[i] = last_record.get(event).copied().flatten(),
            _ => {}
        }
    }
    let mut done = vec![false; ops.len()];
    if order == Order::Program {
        for op in ops {
            m.exec(op);
        }
    } else {
        let mut queues: [VecDeque<usize>; 3] = Default::default();
        for (i, op) in ops.iter().enumerate() {
            queues[op.stream().index()].push_back(i);
        }
        let (first, second): (&[StreamId], &[StreamId]) = match order {
            Order::CopiesFirst => (&[StreamId::Copy, StreamId::Side], &[StreamId::Compute]),
            _ => (&[StreamId::Compute], &[StreamId::Copy, StreamId::Side]),
        };
        let ready = |i: usize, done: &[bool]| target[i].is_none_or(|t| done[t]);
        loop {
            // The favoured streams run as far as they can, then one op of the others.
            let mut moved = true;
            while moved {
                moved = false;
                for s in first {
                    while let Some(&i) = queues[s.index()].front() {
                        if !ready(i, &done) {
                            break;
                        }
                        queues[s.index()].pop_front();
                        m.exec(&ops[i]);
                        done[i] = true;
                        moved = true;
                    }
                }
            }
            let mut stepped = false;
            for s in second {
                if let Some(&i) = queues[s.index()].front() {
                    if ready(i, &done) {
                        queues[s.index()].pop_front();
                        m.exec(&ops[i]);
                        done[i] = true;
                        stepped = true;
                        break;
                    }
                }
            }
            if !stepped {
                assert!(
                    queues.iter().all(VecDeque::is_empty),
                    "the streams wait on each other for ever"
                );
                break;
            }
        }
    }
    results.sums(
        host.abc.len(),
        |slot| m.g1[slot].expect("every G1 slot written"),
        |slot| m.g2[slot].expect("every G2 slot written"),
    )
}

impl Machine<'_> {
    fn bytes(&self, mem: Mem) -> &[u8] {
        match mem.space {
            Space::Arena => {
                // SAFETY: the arena's words as bytes.
                let all = unsafe {
                    std::slice::from_raw_parts(
                        self.arena.as_ptr().cast::<u8>(),
                        self.arena.len() * 8,
                    )
                };
                &all[mem.offset..mem.offset + mem.bytes]
            }
            Space::Resident(q) => {
                let all = super::points_bytes(self.host.srs, q, 0, self.plan.shape.points(q));
                &all[mem.offset..mem.offset + mem.bytes]
            }
        }
    }

    fn arena_mut(&mut self, mem: Mem) -> &mut [u8] {
        assert_eq!(mem.space, Space::Arena, "only the arena is written");
        // SAFETY: the arena's words as bytes.
        let all = unsafe {
            std::slice::from_raw_parts_mut(
                self.arena.as_mut_ptr().cast::<u8>(),
                self.arena.len() * 8,
            )
        };
        &mut all[mem.offset..mem.offset + mem.bytes]
    }

    fn read<T>(&self, mem: Mem) -> Vec<T> {
        let bytes = self.bytes(mem);
        let n = bytes.len() / std::mem::size_of::<T>();
        // SAFETY: plain-data values copied out of bytes (unaligned reads).
        (0..n)
            .map(|i| unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<T>().add(i)) })
            .collect()
    }

    fn write<T: Copy>(&mut self, mem: Mem, values: &[T]) {
        let out = self.arena_mut(mem);
        assert!(std::mem::size_of_val(values) <= out.len());
        // SAFETY: plain-data values as bytes.
        let src = unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
        };
        out[..src.len()].copy_from_slice(src);
    }

    fn host_bytes(&self, src: &HostSrc) -> Vec<u8> {
        let h = self.host;
        match *src {
            HostSrc::Points {
                query,
                first,
                count,
            } => super::points_bytes(h.srs, query, first, count).to_vec(),
            HostSrc::Abc {
                circuit,
                which,
                len,
            } => {
                let v = h.abc[circuit][which];
                assert_eq!(v.len(), len);
                as_bytes(v).to_vec()
            }
            HostSrc::Bitmap {
                circuit,
                split,
                first,
                count,
            } => as_bytes(&split_of(h.splits[circuit], split).ones.words[first..first + count])
                .to_vec(),
            HostSrc::TailIndex {
                circuit,
                split,
                first,
                count,
            } => as_bytes(&split_of(h.splits[circuit], split).tail_points[first..first + count])
                .to_vec(),
            HostSrc::TailScalars {
                circuit,
                split,
                first,
                count,
            } => as_bytes(&split_of(h.splits[circuit], split).tail_scalars[first..first + count])
                .to_vec(),
        }
    }

    fn scribble_workspace(&mut self) {
        let ws = self.plan.layout.workspace.clone();
        self.junk = self.junk.wrapping_mul(6364136223846793005).wrapping_add(1);
        let junk = self.junk;
        for w in &mut self.arena[ws.start / 8..ws.end / 8] {
            *w = junk;
        }
    }

    fn exec(&mut self, op: &Op) {
        let n = 1usize << self.plan.shape.lg_n;
        match *op {
            Op::Record { .. } | Op::Wait { .. } => {}
            Op::Upload { dst, src, .. } => {
                let bytes = self.host_bytes(&src);
                assert_eq!(bytes.len(), dst.bytes);
                self.arena_mut(dst).copy_from_slice(&bytes);
            }
            Op::ZeroFrom { poly, from } => {
                let mut v: Vec<Scalar> = self.read(poly);
                v[from..].fill(Scalar::ZERO);
                self.write(poly, &v);
            }
            Op::Lde { poly } => {
                let mut v: Vec<Scalar> = self.read(poly);
                let d = Domain::new(n);
                d.ifft_unscaled(&mut v);
                scale_by_powers(&mut v, d.n_inv(), Scalar::MULTIPLICATIVE_GENERATOR);
                d.fft(&mut v);
                self.write(poly, &v);
            }
            Op::Pointwise { a, b, c, .. } => {
                let mut va: Vec<Scalar> = self.read(a);
                if let Some(b) = b {
                    let vb: Vec<Scalar> = self.read(b);
                    va.iter_mut().zip(&vb).for_each(|(x, y)| *x *= y);
                }
                if let Some(c) = c {
                    let vc: Vec<Scalar> = self.read(c);
                    va.iter_mut().zip(&vc).for_each(|(x, y)| *x -= y);
                }
                self.write(a, &va);
            }
            Op::InverseCoset { poly } => {
                let mut v: Vec<Scalar> = self.read(poly);
                let d = Domain::new(n);
                let g = Scalar::MULTIPLICATIVE_GENERATOR;
                let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap();
                d.ifft_unscaled(&mut v);
                scale_by_powers(&mut v, d.n_inv() * z_inv, g.invert().unwrap());
                let lg = self.plan.shape.lg_n;
                let rev: Vec<Scalar> = (0..n).map(|k| v[bitrev(k, lg)]).collect();
                self.write(poly, &rev);
            }
            Op::BitReverse { poly } => {
                let v: Vec<Scalar> = self.read(poly);
                let lg = self.plan.shape.lg_n;
                let nat: Vec<Scalar> = (0..n).map(|k| v[bitrev(k, lg)]).collect();
                self.write(poly, &nat);
            }
            Op::Rebase { index, n, base } => {
                let mut idx: Vec<u32> = self.read(index);
                idx[..n].iter_mut().for_each(|i| *i = i.wrapping_sub(base));
                self.write(index, &idx);
            }
            Op::Gather {
                curve,
                points,
                n_points,
                index,
                base,
                scalars,
                n,
                out_points,
                out_scalars,
            } => {
                let pb = curve.affine_bytes();
                let idx: Vec<u32> = self.read(index);
                let src = self.bytes(points).to_vec();
                let mut out = vec![0u8; n * pb];
                for (k, &i) in idx[..n].iter().enumerate() {
                    let i = i.wrapping_sub(base) as usize;
                    // Past the chunk: the identity (all zero bytes, as blst writes it).
                    if i < n_points {
                        out[k * pb..(k + 1) * pb].copy_from_slice(&src[i * pb..(i + 1) * pb]);
                    }
                }
                let sc = self.bytes(scalars)[..n * 32].to_vec();
                self.arena_mut(out_points).copy_from_slice(&out);
                self.arena_mut(out_scalars).copy_from_slice(&sc);
            }
            Op::BatchAdd {
                curve,
                points,
                n_points,
                bitmap,
                result,
            } => {
                let mut words: Vec<u64> = self.read(bitmap);
                words.truncate(n_points.div_ceil(64));
                if n_points % 64 != 0 {
                    *words.last_mut().unwrap() &= (1u64 << (n_points % 64)) - 1;
                }
                let count = words.iter().map(|w| w.count_ones() as usize).sum();
                let ones = OnesBitmap {
                    words: words.into(),
                    len: n_points,
                    count,
                };
                match curve {
                    Curve::G1 => {
                        let pts: Vec<G1Affine> = self.read(points);
                        self.g1[result.index] = Some(CpuBackend.g1_sum(&pts, &ones).unwrap());
                    }
                    Curve::G2 => {
                        let pts: Vec<G2Affine> = self.read(points);
                        self.g2[result.index] = Some(CpuBackend.g2_sum(&pts, &ones).unwrap());
                    }
                }
                self.scribble_workspace();
            }
            Op::MsmAccumulate {
                points,
                n_points,
                scalars,
                n,
                first,
                buckets,
            } => {
                let s: Vec<Scalar> = self.read(scalars);
                let s: Vec<blst_scalar> = s[..n]
                    .iter()
                    .map(|x| blst_scalar { b: x.to_bytes_le() })
                    .collect();
                let pts: Vec<G1Affine> = self.read(points);
                let idx: Vec<u32> = (0..n.min(n_points) as u32).collect();
                let chunk = CpuBackend.g1_msm(&pts, &idx, &s[..idx.len()]).unwrap();
                // The running sum lives where the accumulation's buckets do; the sort's scratch
                // is the shared workspace.
                let sum = if first {
                    chunk
                } else {
                    self.read::<G1Projective>(buckets)[0] + chunk
                };
                self.write(buckets, &[sum]);
                self.scribble_workspace();
            }
            Op::MsmAccumulated { buckets, result } => {
                self.g1[result.index] = Some(self.read::<G1Projective>(buckets)[0]);
                self.scribble_workspace();
            }
            Op::Msm {
                curve,
                points,
                n_points,
                index,
                scalars,
                montgomery,
                n,
                bit_reversed,
                result,
                ..
            } => {
                let scalars: Vec<blst_scalar> = if montgomery {
                    let s: Vec<Scalar> = self.read(scalars);
                    s[..n]
                        .iter()
                        .map(|x| blst_scalar { b: x.to_bytes_le() })
                        .collect()
                } else {
                    let mut s = self.read::<blst_scalar>(scalars);
                    s.truncate(n);
                    s
                };
                let idx: Vec<u32> = match index {
                    Some(mem) => self.read::<u32>(mem)[..n].to_vec(),
                    None if bit_reversed != 0 => {
                        (0..n).map(|k| bitrev(k, bit_reversed) as u32).collect()
                    }
                    None => (0..n as u32).collect(),
                };
                // Indices at or past n_points count as the identity.
                let (idx, scalars): (Vec<u32>, Vec<blst_scalar>) = idx
                    .into_iter()
                    .zip(scalars)
                    .filter(|(i, _)| (*i as usize) < n_points)
                    .unzip();
                match curve {
                    Curve::G1 => {
                        let pts: Vec<G1Affine> = self.read(points);
                        self.g1[result.index] =
                            Some(CpuBackend.g1_msm(&pts, &idx, &scalars).unwrap());
                    }
                    Curve::G2 => {
                        let pts: Vec<G2Affine> = self.read(points);
                        self.g2[result.index] =
                            Some(CpuBackend.g2_msm(&pts, &idx, &scalars).unwrap());
                    }
                }
                self.scribble_workspace();
            }
        }
    }
}

fn split_of(s: &CircuitSplit, i: usize) -> &crate::split::QuerySplit {
    [&s.l, &s.a, &s.b][i]
}

fn bitrev(k: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        k.reverse_bits() >> (usize::BITS - bits)
    }
}

fn as_bytes<T>(v: &[T]) -> &[u8] {
    // SAFETY: plain-data values viewed as bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}
