//! One device's share of a call, pipelined: its circuits go through the device one after
//! another while a preparation thread splits and stages the next ones on the CPU.
//!
//! At most `depth` circuits (a setting, 2 by default) hold their preparation at once: one in
//! the device section and the next one being prepared, so a call of ten circuits needs no more
//! staging than two. Each circuit's preparation is dropped the moment its device section ends.
//! The GPU lock is taken when the first circuit is prepared and held until the last one's
//! device section ends: the lock covers the call's device span, and the CPU work for the next
//! circuit runs inside it without holding the GPU idle (unless the CPU is the slower side:
//! `pipeline_wait_ms` says how long the device waited for it).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use parking_lot::Mutex;

use crate::assignment::Witness;
use crate::backend::{Backend, CircuitPrep, DeviceGroup, DeviceResults};
use crate::error::{panic_message, Error, Result};
use crate::host_memory::Reservation;
use crate::lock::GpuLock;
use crate::split::{split_circuit, CircuitSplit};
use crate::srs::Srs;
use crate::telemetry::{ms, unix_ns, ProofTimings};

/// What every device pipeline of one call shares.
pub(super) struct Job<'a> {
    pub backend: &'static dyn Backend,
    pub srs: &'a Srs,
    pub witnesses: &'a [Witness<'a>],
    /// Circuits prepared at once per device (>= 1).
    pub depth: usize,
}

/// A circuit whose device section ended, with what is left of its split (the G2 tail may still
/// need the B query's tail).
pub(super) struct DeviceDone {
    pub index: usize,
    pub results: DeviceResults,
    pub split: CircuitSplit,
}

/// One hold of a GPU lock shared by the pipelines of one call: taken when the first of them is
/// ready, released when the last of them is done (on whichever thread that is).
pub(super) struct Gate<'l> {
    lock: &'l GpuLock,
    state: Mutex<GateState>,
    /// Serialises entries, so two pipelines of the call never both take the lock.
    entry: Mutex<()>,
}

#[derive(Default)]
struct GateState {
    held: bool,
    /// Pipelines that will not enter again (done, or failed before entering).
    left: usize,
    pipelines: usize,
    acquired: Option<Instant>,
    released: Option<Instant>,
    wait_ms: f64,
    acquired_unix_ns: u64,
    released_unix_ns: u64,
}

/// The time a gate was held, for the call's timings.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct HoldSpan {
    pub acquired: Option<Instant>,
    pub released: Option<Instant>,
    pub wait_ms: f64,
    pub acquired_unix_ns: u64,
    pub released_unix_ns: u64,
}

impl<'l> Gate<'l> {
    /// A gate over `lock` for `pipelines` pipelines.
    pub fn new(lock: &'l GpuLock, pipelines: usize) -> Gate<'l> {
        Gate {
            lock,
            state: Mutex::new(GateState {
                pipelines,
                ..GateState::default()
            }),
            entry: Mutex::new(()),
        }
    }

    /// Takes the lock unless another pipeline of the call holds it already. The lock is taken
    /// with the gate's state unlocked, so a pipeline that is leaving is never blocked by it.
    fn enter(&self) {
        if self.state.lock().held {
            return;
        }
        let t = Instant::now();
        // Only the call's first ready pipeline gets here while `held` is false: the others
        // queue on the lock with it, and find `held` set when they get in.
        let _serial = self.entry.lock();
        if self.state.lock().held {
            return;
        }
        self.lock.acquire_raw();
        let mut s = self.state.lock();
        s.held = true;
        s.acquired = Some(Instant::now());
        s.acquired_unix_ns = unix_ns(SystemTime::now());
        s.wait_ms = ms(t.elapsed());
    }

    /// One pipeline will not enter again; the last one out releases the lock.
    fn leave(&self) {
        let mut s = self.state.lock();
        s.left += 1;
        if s.left == s.pipelines && s.held {
            // Stamped before the unlock: a waiting worker may take the lock (and stamp its own
            // acquisition) the moment it is released, and the spans must not overlap.
            s.released_unix_ns = unix_ns(SystemTime::now());
            s.released = Some(Instant::now());
            s.held = false;
            // SAFETY: `held` was set by this gate's `acquire_raw` and is cleared once, here.
            unsafe { self.lock.release_raw() };
        }
    }

    /// When the lock was held (all `None` if no pipeline entered).
    pub fn span(&self) -> HoldSpan {
        let s = self.state.lock();
        HoldSpan {
            acquired: s.acquired,
            released: s.released,
            wait_ms: s.wait_ms,
            acquired_unix_ns: s.acquired_unix_ns,
            released_unix_ns: s.released_unix_ns,
        }
    }
}

/// Leaves the gate when dropped, on success, error or panic alike.
struct Participant<'g, 'l>(&'g Gate<'l>);

impl Drop for Participant<'_, '_> {
    fn drop(&mut self) {
        self.0.leave();
    }
}

/// One circuit's CPU preparation.
struct Prepared<'r> {
    split: CircuitSplit,
    prep: Option<CircuitPrep>,
    split_ms: f64,
    prep_ms: f64,
    _reserved: OwnReservation<'r>,
}

/// A host-memory reservation that also counts towards its pipeline's own total.
struct OwnReservation<'r> {
    reservation: Reservation,
    own: &'r AtomicU64,
}

impl Drop for OwnReservation<'_> {
    fn drop(&mut self) {
        self.own
            .fetch_sub(self.reservation.bytes(), Ordering::SeqCst);
    }
}

/// Runs device `device`'s circuits (`circuits`, in order) through the pipeline under `gate`,
/// adding stage times to `timings` and handing each finished circuit to `done`.
pub(super) fn run_device<T: Send>(
    job: &Job,
    device: usize,
    circuits: &[usize],
    gate: &Gate,
    timings: &mut ProofTimings,
    done: &(dyn Fn(DeviceDone) -> T + Sync),
) -> Result<Vec<(usize, T)>> {
    let participant = Participant(gate);
    // Whether this pipeline is inside the lock, and the host memory it holds: a preparation
    // that the device waits for is never held back by the budget (see `host_memory`).
    let inside = AtomicBool::new(false);
    let own = AtomicU64::new(0);
    let prepare = |index: usize| -> Result<Prepared> {
        catch_unwind(AssertUnwindSafe(|| {
            prepare(job, index, device, &inside, &own)
        }))
        .unwrap_or_else(|p| Err(Error::Panic(panic_message(p))))
    };
    let mut groups = Groups {
        job,
        device,
        left: circuits.len(),
        open: None,
        out: Vec::with_capacity(circuits.len()),
        done,
    };

    if let [index] = *circuits {
        // One circuit: nothing to overlap, no thread.
        let p = prepare(index)?;
        gate.enter();
        inside.store(true, Ordering::SeqCst);
        groups.section(index, p, timings)?;
        drop(participant);
        return Ok(groups.out);
    }

    std::thread::scope(|scope| -> Result<()> {
        // Each token lets the preparation thread take one more circuit; a device section hands
        // its token back when it ends.
        let (token_back, tokens) = mpsc::channel::<()>();
        for _ in 0..job.depth.max(1) {
            let _ = token_back.send(());
        }
        let (ready_send, ready) = mpsc::channel::<(usize, Result<Prepared>)>();
        let prepare = &prepare;
        scope.spawn(move || {
            for &index in circuits {
                if tokens.recv().is_err() {
                    return; // the device side stopped
                }
                let p = prepare(index);
                let failed = p.is_err();
                if ready_send.send((index, p)).is_err() || failed {
                    return;
                }
            }
        });
        let mut entered = false;
        for _ in circuits {
            let waited = Instant::now();
            let (index, p) = ready
                .recv()
                .map_err(|_| Error::Panic("the preparation thread ended early".into()))?;
            if entered {
                timings.pipeline_wait_ms += ms(waited.elapsed());
            }
            let p = p?;
            if !entered {
                gate.enter();
                inside.store(true, Ordering::SeqCst);
                entered = true;
            }
            groups.section(index, p, timings)?;
            let _ = token_back.send(());
        }
        Ok(())
    })?;
    drop(participant);
    Ok(groups.out)
}

/// A device pipeline's circuits going through the backend's groups (see
/// [`crate::backend::DeviceGroup`]): each group is opened by its first circuit and finished by
/// its last, whose results then go to `done`.
struct Groups<'j, 'r, 'd, T> {
    job: &'j Job<'j>,
    device: usize,
    /// Circuits not yet added to a group.
    left: usize,
    /// The open group and the host-memory reservations of its circuits, held until it finishes.
    open: Option<(Box<dyn DeviceGroup + 'j>, Vec<OwnReservation<'r>>)>,
    out: Vec<(usize, T)>,
    done: &'d (dyn Fn(DeviceDone) -> T + Sync),
}

impl<'j, 'r, T> Groups<'j, 'r, '_, T> {
    /// Adds one prepared circuit to the open group (opening one first if needed), and finishes
    /// the group when it is full or this was the last circuit.
    fn section(&mut self, index: usize, p: Prepared<'r>, timings: &mut ProofTimings) -> Result<()> {
        timings.split_vectors_ms += p.split_ms;
        timings.prep_msm_ms += p.prep_ms;
        let Prepared {
            split,
            prep,
            _reserved,
            ..
        } = p;
        if self.open.is_none() {
            let job = self.job;
            let group = job
                .backend
                .open_group(self.device, job.srs, self.left, &split)?;
            self.open = Some((group, Vec::new()));
        }
        let (group, held) = self.open.as_mut().expect("opened above");
        let w = &self.job.witnesses[index];
        group.add(index, w, split, prep, timings)?;
        held.push(_reserved);
        self.left -= 1;
        if held.len() >= group.capacity() || self.left == 0 {
            let (group, held) = self.open.take().expect("open");
            for (index, results, split) in group.finish(timings)? {
                self.out.push((
                    index,
                    (self.done)(DeviceDone {
                        index,
                        results,
                        split,
                    }),
                ));
            }
            drop(held);
        }
        Ok(())
    }
}

/// Splits and stages one circuit, inside the host-memory budget.
fn prepare<'r>(
    job: &Job,
    index: usize,
    device: usize,
    inside: &AtomicBool,
    own: &'r AtomicU64,
) -> Result<Prepared<'r>> {
    let w = &job.witnesses[index];
    let t = Instant::now();
    let split = crate::settings::pool().install(|| split_circuit(w));
    let split_ms = ms(t.elapsed());
    if crate::telemetry::log_shapes() {
        eprintln!("{} circuit={index}", split.shape_line(w));
    }

    let bytes = (split_bytes(&split) + job.backend.prep_bytes(w, &split)) as u64;
    let urgent = || inside.load(Ordering::SeqCst) && own.load(Ordering::SeqCst) == 0;
    let reservation = Reservation::wait_for(bytes, &urgent);
    own.fetch_add(bytes, Ordering::SeqCst);
    let reserved = OwnReservation { reservation, own };

    let t = Instant::now();
    let prep = job.backend.prepare_circuit(w, &split, device)?;
    Ok(Prepared {
        split,
        prep,
        split_ms,
        prep_ms: ms(t.elapsed()),
        _reserved: reserved,
    })
}

/// Host bytes a split holds.
pub(super) fn split_bytes(split: &CircuitSplit) -> usize {
    [&split.l, &split.a, &split.b]
        .iter()
        .map(|q| q.ones.words.len() * 8 + q.tail_points.len() * 4 + q.tail_scalars.len() * 32)
        .sum()
}
