//! `bench --proofs ... --timeline-svg FILE`: the interlock run as a picture of the GPU's time.
//!
//! One SVG holds every config of the run (each `--g2-tail` × `--workers` setting), one panel
//! each, stacked on one time scale, so that a faster config is visibly shorter. A panel has a
//! lane per worker showing each of its proofs' phases (CPU prep, waiting for the lock,
//! holding it, the CPU tail after it, idle between proofs) and a lane per GPU showing the
//! union of its lock holds, with its busy share of the run. Every lane spans the run, from its
//! first proof's start to its last proof's end; hovering a rectangle names the proof and times.
//!
//! The phases are the text timeline's (`interlock::phases`), from all proofs, not only the
//! first few. `render` is a pure function of the records, so the tests below can check that
//! the picture adds up.

use groth16_c2::ProofTimings;

use crate::interlock::{merged, phases, worker_name, Record};

/// One config's run, drawn as one panel.
pub struct Panel {
    /// What the config was and how it went.
    pub caption: String,
    /// Worker threads per GPU: worker `w` proves on GPU `w / gw`.
    pub gw: usize,
    pub gpus: usize,
    /// Every proof of the run, each with full timestamps.
    pub records: Vec<Record>,
}

/// The whole picture's width and its parts, in pixels.
const WIDTH: f64 = 1200.0;
const LABEL_COLUMN: f64 = 170.0;
const PLOT_WIDTH: f64 = 1000.0;
const LANE_HEIGHT: f64 = 18.0;
const LANE_STEP: f64 = 24.0;
/// The legend's first row, under the title and subtitle; its rows' height.
const LEGEND_TOP: f64 = 60.0;
const LEGEND_ROW: f64 = 20.0;
const CAPTION_HEIGHT: f64 = 28.0;
const AXIS_HEIGHT: f64 = 30.0;
const PANEL_GAP: f64 = 16.0;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Phase {
    Prep,
    Wait,
    Hold,
    Tail,
    Idle,
    /// A GPU lane's share of the run inside some worker's device section.
    Busy,
}

/// The worker phases in the order a proof goes through them.
const PROOF_PHASES: [Phase; 4] = [Phase::Prep, Phase::Wait, Phase::Hold, Phase::Tail];
const LEGEND: [Phase; 5] = [
    Phase::Prep,
    Phase::Wait,
    Phase::Hold,
    Phase::Tail,
    Phase::Idle,
];

impl Phase {
    /// The rectangle's class: what the tests read the picture by.
    fn class(self) -> &'static str {
        match self {
            Phase::Prep => "prep",
            Phase::Wait => "wait",
            Phase::Hold => "hold",
            Phase::Tail => "tail",
            Phase::Idle => "idle",
            Phase::Busy => "busy",
        }
    }

    /// Tableau colours: distinct, and still apart for the common colour blindnesses.
    fn colour(self) -> &'static str {
        match self {
            Phase::Prep => "#4e79a7",
            Phase::Wait => "#f28e2b",
            Phase::Hold | Phase::Busy => "#59a14f",
            Phase::Tail => "#b07aa1",
            Phase::Idle => "#e6e6e6",
        }
    }

    fn meaning(self) -> &'static str {
        match self {
            Phase::Prep => "CPU prep (0/1 split, staging)",
            Phase::Wait => "waiting for the GPU lock",
            Phase::Hold => "holding the lock: device section",
            Phase::Tail => "CPU tail (G2 tail, epilogue)",
            Phase::Idle => "idle (between proofs)",
            Phase::Busy => "GPU busy",
        }
    }

    /// The library's stage times that make up this phase of a proof, by their log names.
    fn stages(self, t: &ProofTimings) -> String {
        let of = |names: &[(&str, f64)]| {
            names
                .iter()
                .map(|(name, ms)| format!("{name}={ms:.1}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        match self {
            Phase::Prep => of(&[
                ("split_vectors_ms", t.split_vectors_ms),
                ("prep_msm_ms", t.prep_msm_ms),
            ]),
            Phase::Wait => of(&[("mutex_wait_ms", t.mutex_wait_ms)]),
            Phase::Hold => of(&[
                ("ntt_msm_h_ms", t.ntt_msm_h_ms),
                ("batch_add_ms", t.batch_add_ms),
                ("tail_msm_ms", t.tail_msm_ms),
                ("gpu_total_ms", t.gpu_total_ms),
            ]),
            Phase::Tail => of(&[
                ("b_g2_msm_ms", t.b_g2_msm_ms),
                ("epilogue_ms", t.epilogue_ms),
            ]),
            Phase::Idle | Phase::Busy => String::new(),
        }
    }
}

/// A stretch of one lane, in ns since the Unix epoch.
struct Segment {
    from: u64,
    to: u64,
    phase: Phase,
    /// The tooltip's words after the phase's name.
    note: String,
}

/// One panel's run, from its first start `t0` to its last end `t1` (ns since the Unix
/// epoch), and how it maps to x: every panel has the same pixels per ns.
struct Run {
    t0: u64,
    t1: u64,
    px_per_ns: f64,
}

impl Run {
    /// x of `ns`, rounded as the file writes it, so that adjacent rectangles share their
    /// edge exactly.
    fn x(&self, ns: u64) -> f64 {
        let x = LABEL_COLUMN + ns.saturating_sub(self.t0) as f64 * self.px_per_ns;
        (x * 100.0).round() / 100.0
    }

    /// Seconds from the run's start.
    fn seconds(&self, ns: u64) -> f64 {
        ns.saturating_sub(self.t0) as f64 / 1e9
    }
}

/// The run's first start and last end.
fn run_bounds(records: &[Record]) -> (u64, u64) {
    let t0 = records.iter().map(|r| r.t.start_unix_ns).min().unwrap_or(0);
    let t1 = records.iter().map(|r| r.t.end_unix_ns).max().unwrap_or(t0);
    (t0, t1.max(t0))
}

/// The SVG document: `title` and `subtitle` on top, then the legend, then one panel per config.
pub fn render(title: &str, subtitle: &str, panels: &[Panel]) -> String {
    let longest = panels
        .iter()
        .map(|p| {
            let (t0, t1) = run_bounds(&p.records);
            t1 - t0
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let px_per_ns = PLOT_WIDTH / longest as f64;
    let (legend, legend_height) = legend(LEGEND_TOP);
    let mut body = legend;
    let mut y = LEGEND_TOP + legend_height + 8.0;
    for panel in panels {
        let (svg, height) = render_panel(panel, px_per_ns, y);
        body += &svg;
        y += height + PANEL_GAP;
    }
    let height = y.ceil();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" \
         font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"16\" y=\"26\" font-size=\"17\" font-weight=\"bold\">{}</text>\n\
         <text x=\"16\" y=\"46\" font-size=\"13\" fill=\"#444\">{}</text>\n\
         {body}</svg>\n",
        escape(title),
        escape(subtitle)
    )
}

/// A swatch and its meaning per phase, wrapped into rows; returns them and their height.
fn legend(top: f64) -> (String, f64) {
    let mut out = String::from("<g class=\"legend\">\n");
    let (mut x, mut y) = (16.0, top);
    for phase in LEGEND {
        // Sans-serif at 12 px averages under 7 px a character.
        let width = 20.0 + 6.5 * phase.meaning().len() as f64;
        if x + width > WIDTH - 16.0 {
            (x, y) = (16.0, y + LEGEND_ROW);
        }
        out += &format!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"#999\" \
             stroke-width=\"0.5\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
            phase.colour(),
            x + 17.0,
            y + 10.5,
            escape(phase.meaning())
        );
        x += width + 14.0;
    }
    out += "</g>\n";
    (out, y - top + LEGEND_ROW)
}

/// One config at `top`: caption, worker lanes, GPU lanes, time axis; returns it and its height.
fn render_panel(panel: &Panel, px_per_ns: f64, top: f64) -> (String, f64) {
    let (t0, t1) = run_bounds(&panel.records);
    let run = Run { t0, t1, px_per_ns };
    let mut out = format!(
        "<g class=\"panel\">\n\
         <text x=\"16\" y=\"{}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
        top + 16.0,
        escape(&panel.caption)
    );
    let mut y = top + CAPTION_HEIGHT;
    for w in 0..panel.gw * panel.gpus {
        let gpu = w / panel.gw;
        let label = format!("worker {} (gpu {gpu})", worker_name(w));
        let segments = worker_segments(&panel.records, w, t0, t1);
        out += &lane("worker", gpu, &label, &segments, &run, y);
        y += LANE_STEP;
    }
    for gpu in 0..panel.gpus {
        let segments = gpu_segments(&panel.records, gpu, t0, t1);
        let label = format!(
            "GPU {gpu} busy {:.1}%",
            busy_share(&segments, t0, t1) * 100.0
        );
        out += &lane("gpu", gpu, &label, &segments, &run, y);
        y += LANE_STEP;
    }
    out += &axis(&run, y);
    out += "</g>\n";
    (out, y + AXIS_HEIGHT - top)
}

/// A worker's proofs, in order, with idle stretches between them, tiling `t0..t1`.
fn worker_segments(records: &[Record], worker: usize, t0: u64, t1: u64) -> Vec<Segment> {
    let mut mine: Vec<&Record> = records.iter().filter(|r| r.worker == worker).collect();
    mine.sort_by_key(|r| r.t.start_unix_ns);
    let mut segments = Vec::new();
    let mut cursor = t0;
    for (k, r) in mine.iter().enumerate() {
        let p = phases(&r.t);
        let previous_end = cursor;
        // A worker proves one proof at a time; clamping keeps stamps that disagree by a
        // rounding from overlapping or running backwards.
        let bounds = [p.start, p.requested, p.acquired, p.released, p.end].map(|ns| {
            cursor = ns.clamp(cursor, t1);
            cursor
        });
        segments.push(idle(previous_end, bounds[0]));
        for (i, phase) in PROOF_PHASES.into_iter().enumerate() {
            segments.push(Segment {
                from: bounds[i],
                to: bounds[i + 1],
                phase,
                note: format!(
                    "worker {}'s proof {}: {}",
                    worker_name(worker),
                    k + 1,
                    phase.stages(&r.t)
                ),
            });
        }
    }
    segments.push(idle(cursor, t1));
    segments.retain(|s| s.to > s.from);
    segments
}

/// A GPU's lock holds (all its workers' device sections) merged, with idle gaps, tiling
/// `t0..t1`.
fn gpu_segments(records: &[Record], gpu: usize, t0: u64, t1: u64) -> Vec<Segment> {
    let holds = records
        .iter()
        .filter(|r| r.gpu == gpu)
        .map(|r| {
            let p = phases(&r.t);
            (p.acquired.clamp(t0, t1), p.released.clamp(t0, t1))
        })
        .filter(|(a, b)| b > a)
        .collect();
    let mut segments = Vec::new();
    let mut cursor = t0;
    for (from, to) in merged(holds) {
        segments.push(idle(cursor, from));
        segments.push(Segment {
            from,
            to,
            phase: Phase::Busy,
            note: format!("GPU {gpu}"),
        });
        cursor = to;
    }
    segments.push(idle(cursor, t1));
    segments.retain(|s| s.to > s.from);
    segments
}

fn idle(from: u64, to: u64) -> Segment {
    Segment {
        from,
        to,
        phase: Phase::Idle,
        note: String::new(),
    }
}

/// The busy segments' share of `t0..t1`, as the text report's "busy %" counts it.
fn busy_share(segments: &[Segment], t0: u64, t1: u64) -> f64 {
    let busy: u64 = segments
        .iter()
        .filter(|s| s.phase == Phase::Busy)
        .map(|s| s.to - s.from)
        .sum();
    busy as f64 / t1.saturating_sub(t0).max(1) as f64
}

/// One lane: its label, a rectangle per segment (with a tooltip) and a frame over the run.
fn lane(kind: &str, gpu: usize, label: &str, segments: &[Segment], run: &Run, y: f64) -> String {
    let mut out = format!(
        "<g class=\"lane {kind}\" data-gpu=\"{gpu}\">\n<text x=\"{}\" y=\"{}\" \
         text-anchor=\"end\"{}>{}</text>\n",
        LABEL_COLUMN - 8.0,
        y + 13.0,
        if kind == "gpu" {
            " font-weight=\"bold\""
        } else {
            ""
        },
        escape(label)
    );
    for s in segments {
        let (x0, x1) = (run.x(s.from), run.x(s.to));
        let tooltip = format!(
            "{}, {:.1} ms, {:.4} s to {:.4} s; {}",
            s.phase.meaning(),
            (s.to - s.from) as f64 / 1e6,
            run.seconds(s.from),
            run.seconds(s.to),
            s.note
        );
        out += &format!(
            "<rect class=\"{}\" x=\"{x0:.2}\" y=\"{y}\" width=\"{:.2}\" height=\"{LANE_HEIGHT}\" \
             fill=\"{}\"><title>{}</title></rect>\n",
            s.phase.class(),
            x1 - x0,
            s.phase.colour(),
            escape(tooltip.trim_end_matches("; "))
        );
    }
    let (x0, x1) = (run.x(run.t0), run.x(run.t1));
    out += &format!(
        "<rect class=\"frame\" x=\"{x0:.2}\" y=\"{y}\" width=\"{:.2}\" height=\"{LANE_HEIGHT}\" \
         fill=\"none\" stroke=\"#666\" stroke-width=\"0.6\"/>\n</g>\n",
        x1 - x0
    );
    out
}

/// The time axis under a panel, in seconds from the run's start, with round ticks.
fn axis(run: &Run, y: f64) -> String {
    let run_s = run.seconds(run.t1);
    let step = tick_step(run_s);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let (x0, x1) = (run.x(run.t0), run.x(run.t1));
    let mut out = format!(
        "<g class=\"axis\" font-size=\"11\" fill=\"#333\">\n<line x1=\"{x0:.2}\" y1=\"{y}\" \
         x2=\"{x1:.2}\" y2=\"{y}\" stroke=\"#333\" stroke-width=\"0.8\"/>\n"
    );
    let ticks = (run_s / step + 1e-9).floor() as u64;
    for i in 0..=ticks {
        let s = i as f64 * step;
        let x = run.x(run.t0 + (s * 1e9).round() as u64);
        out += &format!(
            "<line x1=\"{x:.2}\" y1=\"{y}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"#333\" \
             stroke-width=\"0.8\"/><text x=\"{x:.2}\" y=\"{}\" \
             text-anchor=\"middle\">{s:.decimals$} s</text>\n",
            y + 5.0,
            y + 17.0
        );
    }
    out += "</g>\n";
    out
}

/// The round step (1, 2 or 5 times a power of ten) giving at most 10 ticks over `span_s`.
fn tick_step(span_s: f64) -> f64 {
    let rough = (span_s / 10.0).max(1e-9);
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&step| step >= rough)
        .unwrap_or(10.0 * power)
}

/// Text as XML character data or an attribute value.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plausible epoch, so that nothing relies on timestamps near 0.
    const EPOCH_NS: u64 = 1_700_000_000_000_000_000;

    /// A proof from its phase boundaries in ms from the epoch: start, lock requested,
    /// acquired, released, end.
    fn record(worker: usize, gpu: usize, ms: [f64; 5]) -> Record {
        let ns = |ms: f64| EPOCH_NS + (ms * 1e6) as u64;
        Record {
            worker,
            gpu,
            t: ProofTimings {
                start_unix_ns: ns(ms[0]),
                mutex_wait_ms: ms[2] - ms[1],
                lock_acquired_unix_ns: ns(ms[2]),
                lock_released_unix_ns: ns(ms[3]),
                end_unix_ns: ns(ms[4]),
                ..Default::default()
            },
        }
    }

    /// Two workers sharing one GPU for 200 ms, the lock held 160 ms of it (80%), with
    /// waiting, an idle gap and a worker done before the end.
    fn shared_gpu() -> Panel {
        Panel {
            caption: "2 workers per GPU".into(),
            gw: 2,
            gpus: 1,
            records: vec![
                record(0, 0, [0.0, 10.0, 10.0, 50.0, 55.0]),
                record(0, 0, [55.0, 60.0, 90.0, 130.0, 140.0]),
                record(1, 0, [0.0, 10.0, 50.0, 90.0, 95.0]),
                record(1, 0, [100.0, 105.0, 130.0, 170.0, 200.0]),
            ],
        }
    }

    /// Two GPUs with a worker each for 100 ms: GPU 0 busy 40%, GPU 1 busy 20%.
    fn two_gpus() -> Panel {
        Panel {
            caption: "1 worker per GPU & 2 GPUs".into(),
            gw: 1,
            gpus: 2,
            records: vec![
                record(0, 0, [0.0, 20.0, 20.0, 60.0, 70.0]),
                record(1, 1, [0.0, 30.0, 30.0, 50.0, 100.0]),
            ],
        }
    }

    struct Rect {
        class: String,
        x: f64,
        width: f64,
    }

    struct Lane {
        kind: String,
        gpu: usize,
        label: String,
        frame: Rect,
        /// The phase rectangles, left to right.
        rects: Vec<Rect>,
    }

    fn number(node: roxmltree::Node, name: &str) -> f64 {
        node.attribute(name).unwrap().parse().unwrap()
    }

    fn rect(node: roxmltree::Node) -> Rect {
        Rect {
            class: node.attribute("class").unwrap().to_string(),
            x: number(node, "x"),
            width: number(node, "width"),
        }
    }

    fn lane(g: roxmltree::Node) -> Lane {
        let children: Vec<_> = g.children().filter(|n| n.is_element()).collect();
        let all: Vec<Rect> = children
            .iter()
            .filter(|n| n.has_tag_name("rect"))
            .map(|&n| rect(n))
            .collect();
        let (frames, mut rects): (Vec<Rect>, Vec<Rect>) =
            all.into_iter().partition(|r| r.class == "frame");
        rects.sort_by(|a, b| a.x.total_cmp(&b.x));
        let label = children.iter().find(|n| n.has_tag_name("text")).unwrap();
        Lane {
            kind: g.attribute("class").unwrap()["lane ".len()..].to_string(),
            gpu: g.attribute("data-gpu").unwrap().parse().unwrap(),
            label: label.text().unwrap().to_string(),
            frame: frames.into_iter().next().unwrap(),
            rects,
        }
    }

    /// Each panel's lanes, read back from the SVG; fails if it is not well-formed XML.
    fn panels(svg: &str) -> Vec<Vec<Lane>> {
        let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
        let class_is = |n: &roxmltree::Node, prefix: &str| {
            n.attribute("class").is_some_and(|c| c.starts_with(prefix))
        };
        doc.descendants()
            .filter(|n| class_is(n, "panel"))
            .map(|p| {
                p.descendants()
                    .filter(|n| class_is(n, "lane "))
                    .map(lane)
                    .collect()
            })
            .collect()
    }

    /// Pixel coordinates are written with 2 decimals.
    const ROUNDING: f64 = 0.011;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    /// The rectangles tile the frame: no gaps, no overlaps, widths summing to its width.
    fn assert_tiles(lane: &Lane) {
        let mut edge = lane.frame.x;
        for r in &lane.rects {
            assert!(r.width > 0.0, "{}: empty {} rectangle", lane.label, r.class);
            assert!(
                close(r.x, edge, ROUNDING),
                "{}: {} starts at {} after an edge at {edge}",
                lane.label,
                r.class,
                r.x
            );
            edge = r.x + r.width;
        }
        let end = lane.frame.x + lane.frame.width;
        assert!(
            close(edge, end, ROUNDING),
            "{}: ends at {edge}, not {end}",
            lane.label
        );
        let sum: f64 = lane.rects.iter().map(|r| r.width).sum();
        let tolerance = ROUNDING * lane.rects.len() as f64;
        assert!(close(sum, lane.frame.width, tolerance), "{}", lane.label);
    }

    /// Merged x-intervals of a set of rectangles, as fractions of a frame.
    fn union_share(rects: &[&Rect], frame: &Rect) -> f64 {
        let mut spans: Vec<(f64, f64)> = rects.iter().map(|r| (r.x, r.x + r.width)).collect();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut covered = 0.0;
        let mut reach = f64::MIN;
        for (a, b) in spans {
            covered += (b - reach.max(a)).max(0.0);
            reach = reach.max(b);
        }
        covered / frame.width
    }

    fn printed_busy(label: &str) -> f64 {
        let percent = label.rsplit(' ').next().unwrap().trim_end_matches('%');
        percent.parse::<f64>().unwrap() / 100.0
    }

    #[test]
    fn lanes_add_up_to_the_run() {
        let svg = render("title <&>", "subtitle", &[shared_gpu(), two_gpus()]);
        let panels = panels(&svg);
        assert_eq!(panels.len(), 2);
        assert_eq!(panels[0].len(), 2 + 1, "two workers and a GPU");
        assert_eq!(panels[1].len(), 2 + 2, "two workers and two GPUs");
        for lanes in &panels {
            let frame = &lanes[0].frame;
            for lane in lanes {
                assert_tiles(lane);
                assert!(
                    close(lane.frame.x, frame.x, 0.0) && close(lane.frame.width, frame.width, 0.0)
                );
            }
        }
        // One scale: the 200 ms run fills the plot, the 100 ms run half of it.
        assert!(close(panels[0][0].frame.width, PLOT_WIDTH, ROUNDING));
        assert!(close(panels[1][0].frame.width, PLOT_WIDTH / 2.0, ROUNDING));
    }

    #[test]
    fn gpu_busy_is_the_union_of_lock_holds_over_the_run() {
        let svg = render("t", "s", &[shared_gpu(), two_gpus()]);
        let expected = [vec![0.8], vec![0.4, 0.2]];
        for (lanes, expected) in panels(&svg).iter().zip(expected) {
            let gpus: Vec<&Lane> = lanes.iter().filter(|l| l.kind == "gpu").collect();
            assert_eq!(gpus.len(), expected.len());
            for (gpu, expected) in gpus.into_iter().zip(expected) {
                let holds: Vec<&Rect> = lanes
                    .iter()
                    .filter(|l| l.kind == "worker" && l.gpu == gpu.gpu)
                    .flat_map(|l| l.rects.iter().filter(|r| r.class == "hold"))
                    .collect();
                let busy: Vec<&Rect> = gpu.rects.iter().filter(|r| r.class == "busy").collect();
                let printed = printed_busy(&gpu.label);
                assert_eq!(
                    gpu.label,
                    format!("GPU {} busy {:.1}%", gpu.gpu, expected * 100.0)
                );
                assert!(
                    close(union_share(&holds, &gpu.frame), printed, 0.001),
                    "{}",
                    gpu.label
                );
                assert!(
                    close(union_share(&busy, &gpu.frame), printed, 0.001),
                    "{}",
                    gpu.label
                );
            }
        }
    }

    #[test]
    fn a_worker_lane_shows_each_phase_of_each_proof() {
        let svg = render("t", "s", &[shared_gpu()]);
        let lanes = &panels(&svg)[0];
        let classes: Vec<&str> = lanes[1].rects.iter().map(|r| r.class.as_str()).collect();
        // Worker B: prep, wait, hold, tail; idle 95..100 ms; the same again to the end.
        let proof = ["prep", "wait", "hold", "tail"];
        assert_eq!(classes, [&proof[..], &["idle"], &proof[..]].concat());
        assert_eq!(lanes[1].label, "worker B (gpu 0)");
    }

    #[test]
    fn stamps_out_of_order_still_tile_the_lane() {
        // Released before acquired, and a second proof starting before the first ended.
        let panel = Panel {
            caption: "odd stamps".into(),
            gw: 1,
            gpus: 1,
            records: vec![
                record(0, 0, [0.0, 5.0, 30.0, 20.0, 40.0]),
                record(0, 0, [35.0, 36.0, 36.0, 60.0, 70.0]),
            ],
        };
        for lane in &panels(&render("t", "s", &[panel]))[0] {
            assert_tiles(lane);
        }
    }

    #[test]
    fn ticks_are_round_and_at_most_ten() {
        for (span, step) in [
            (0.161, 0.02),
            (1.0, 0.1),
            (4.2, 0.5),
            (95.0, 10.0),
            (0.0, 1e-9),
        ] {
            assert!(
                close(tick_step(span), step, step * 1e-9),
                "{span} s: {}",
                tick_step(span)
            );
        }
    }
}
