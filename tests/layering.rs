//! The library's modules form layers, and this test keeps them so: it reads every file under
//! `src/`, collects the `crate::…` and `super::…` paths each module names, and checks that
//! (a) no modules depend on each other in a cycle, and (b) each module only names modules of
//! its own layer or of the layers below it, as [`LAYERS`] lists them.
//!
//! A node is a top-level module of `src/lib.rs`; the backend's submodules (`backend::cpu`,
//! `backend::cuda`, …) are nodes of their own, so that a cycle through one of them shows up.
//! Cycles among the backend's own parts (its trait and its implementations) are allowed. The
//! crate root (`src/lib.rs`, the API's front) is the node `crate`; a path to an item the root
//! re-exports (`crate::Error`) counts as a path to the module it comes from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first: each module with its layer and what it is. A module may name
/// modules of its layer and of lower layers (comments, doc links and strings do not count).
#[rustfmt::skip]
const LAYERS: &[(&str, usize, &str)] = &[
    // 0: leaves that name no other module but `error`.
    ("error",                 0, "the error type and the C ABI's error codes"),
    ("curve",                 0, "conversions between blstrs and blst types"),
    ("fault",                 0, "test-only fault injection"),
    ("host_hooks",            0, "the host's optional C hooks (memory-bandwidth throttle)"),
    ("host_memory",           0, "the host memory budget"),
    ("large_buf",             0, "large zeroed buffers"),
    ("settings",              0, "process-wide settings and the prover's thread pool"),
    ("telemetry",             0, "stage timings, counters, the timings callback"),
    // 1: the data a proof is made of.
    ("assignment",            1, "a circuit's witness: the host's Assignment, its checked view"),
    ("page_locked",           1, "host allocations, page-locked by a backend passed in"),
    ("proof",                 1, "the proof"),
    ("split",                 1, "a witness split into its 0/1 parts and tails"),
    ("witness",               1, "the witness recorder for bellpepper circuits"),
    // 2: the SRS and what needs only the SRS.
    ("srs",                   2, "the SRS: its data, the params-file parser, the cache"),
    ("verify",                2, "proof verification"),
    // 3: the backends and the page-locked memory they own.
    ("backend",               3, "the Backend trait, the process's backend"),
    ("backend::cpu",          3, "the CPU backend"),
    ("backend::cuda",         3, "the CUDA backend"),
    ("backend::kernel_sizes", 3, "the CUDA kernels' workspace sizes"),
    ("backend::memory_plan",  3, "device memory plans"),
    ("backend::streaming",    3, "streaming the SRS through device memory"),
    ("pinned",                3, "page-locked host memory for hosts, from the backend"),
    // 4: the prover, over the backends.
    ("lock",                  4, "the GPU lock"),
    ("prover",                4, "the prover: checks, pipeline, epilogue"),
    ("srs_load",              4, "Srs::new, load, load_profiled: the parser, the backend's decoder"),
    // 5: the Rust API and what is built on it.
    ("crate",                 5, "the crate root: the Rust API's front"),
    ("handles",               5, "SRS references, pending tickets, GPU locks and batches as supraseal-c2 hands them out"),
    // 6: supraseal-c2's Rust API, over the Rust API and the handles (not the C ABI).
    ("supraseal",             6, "supraseal-c2's Rust API for the compat crates"),
    // 7: the C ABI over the same, and what tests through it.
    ("ffi",                   7, "the C ABI"),
    ("testing",               7, "internals for the crate's own tests and examples"),
];

/// Nodes whose cycles among themselves are allowed (the backend's parts).
fn in_backend(node: &str) -> bool {
    node == "backend" || node.starts_with("backend::")
}

#[test]
fn modules_form_the_documented_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = dependency_graph(&src);

    let level: BTreeMap<&str, usize> = LAYERS.iter().map(|&(m, l, _)| (m, l)).collect();
    let mut problems = Vec::new();
    for node in graph.keys() {
        if !level.contains_key(node.as_str()) {
            problems.push(format!("module `{node}` is not in LAYERS: give it a layer"));
        }
    }
    for &(m, _, _) in LAYERS {
        if !graph.contains_key(m) {
            problems.push(format!("LAYERS lists `{m}`, which src/ does not have"));
        }
    }
    for (from, edges) in &graph {
        let Some(&lf) = level.get(from.as_str()) else {
            continue;
        };
        for (to, at) in edges {
            match level.get(to.as_str()) {
                Some(&lt) if lt > lf => problems.push(format!(
                    "`{from}` (layer {lf}) names `{to}` (layer {lt}), a higher layer, at {at}"
                )),
                None => problems.push(format!("`{from}` names `{to}`, not in LAYERS, at {at}")),
                _ => {}
            }
        }
    }
    for cycle in cycles(&graph) {
        if cycle.iter().all(|n| in_backend(n)) {
            continue;
        }
        let why: Vec<String> = cycle
            .iter()
            .flat_map(|from| {
                graph[from]
                    .iter()
                    .filter(|(to, _)| cycle.contains(to))
                    .map(move |(to, at)| format!("    {from} -> {to} ({at})"))
            })
            .collect();
        problems.push(format!(
            "modules depend on each other in a cycle: {}\n{}",
            cycle.join(", "),
            why.join("\n")
        ));
    }
    assert!(
        problems.is_empty(),
        "the module layering is broken:\n{}",
        problems.join("\n")
    );
}

/// The parser on small inputs: paths in `use` trees, `super`, inline modules, and what is not
/// code (comments, strings, char literals next to lifetimes).
#[test]
fn the_parser_finds_paths_and_skips_what_is_not_code() {
    let code = r##"
        //! A doc link to [`crate::ffi`] does not count.
        use crate::{assignment::Witness, backend::{cuda::runtime, Backend}};
        use super::split::CircuitSplit;
        fn f<'a>(x: &'a str) -> char { let _ = "crate::prover"; let _ = r#"crate::verify"#; 'c' }
        /* crate::pinned /* nested */ crate::lock */
        mod tests { use super::*; use crate::Error; }
    "##;
    let files = vec![SourceFile {
        module: vec!["backend".into(), "cpu".into()],
        path: "backend/cpu/mod.rs".into(),
        text: code.into(),
    }];
    let reexports = BTreeMap::from([("Error".to_string(), "error".to_string())]);
    let top = ["assignment".into(), "backend".into()];
    let graph = graph_of(&files, &top, &["cpu".into(), "cuda".into()], &reexports);
    let names: BTreeSet<&str> = graph["backend::cpu"].keys().map(String::as_str).collect();
    assert_eq!(
        names,
        BTreeSet::from(["assignment", "backend", "backend::cuda", "error"]),
        "{graph:?}"
    );
}

type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// Node → the nodes it names, each with one place that names it.
fn dependency_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    collect(src, src, &mut files);
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs is readable");
    let top = declared_modules(&lib);
    let backend = std::fs::read_to_string(src.join("backend/mod.rs"))
        .expect("src/backend/mod.rs is readable");
    let backend_subs = declared_modules(&backend);
    let reexports = root_reexports(&lib, &top);
    graph_of(&files, &top, &backend_subs, &reexports)
}

/// One file of `src/`: its module path (`src/a/b.rs` and `src/a/b/mod.rs`: `a::b`), its path
/// under `src/`, its text.
struct SourceFile {
    module: Vec<String>,
    path: String,
    text: String,
}

fn graph_of(
    files: &[SourceFile],
    top: &[String],
    backend_subs: &[String],
    reexports: &BTreeMap<String, String>,
) -> Graph {
    let node_of = |path: &[String]| -> String {
        match path {
            [] => "crate".into(),
            [first, ..] if !top.contains(first) => match reexports.get(first) {
                Some(m) => m.clone(),
                None => "crate".into(),
            },
            [b, sub, ..] if b == "backend" && backend_subs.contains(sub) => {
                format!("backend::{sub}")
            }
            [first, ..] => first.clone(),
        }
    };
    let mut graph = Graph::new();
    for file in files {
        let from = node_of(&file.module);
        let edges = graph.entry(from.clone()).or_default();
        for (path, line) in paths_in(&file.module, &file.text) {
            let to = node_of(&path);
            if to != from {
                let at = format!("src/{}:{line}", file.path);
                edges.entry(to).or_insert(at);
            }
        }
    }
    graph
}

/// Every `.rs` file under `dir`.
fn collect(root: &Path, dir: &Path, out: &mut Vec<SourceFile>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("src/ is readable").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap();
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            out.push(SourceFile {
                module,
                path: rel.to_string_lossy().into_owned(),
                text: std::fs::read_to_string(&path).unwrap(),
            });
        }
    }
}

/// The modules a file declares (`mod x;`, `pub(crate) mod x;`), not inline ones.
fn declared_modules(text: &str) -> Vec<String> {
    let tokens = tokens(text);
    let mut mods = Vec::new();
    for w in tokens.windows(3) {
        if w[0].text == "mod" && w[2].text == ";" {
            mods.push(w[1].text.clone());
        }
    }
    mods
}

/// Names the crate root re-exports from a module: `pub use error::{Error, Result}` maps `Error`
/// and `Result` to `error`.
fn root_reexports(lib: &str, top: &[String]) -> BTreeMap<String, String> {
    let tokens = tokens(lib);
    let mut map = BTreeMap::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].text == "use" {
            let mut leaves = Vec::new();
            let end = use_tree(&tokens, i + 1, &mut Vec::new(), &mut leaves);
            for path in leaves {
                if let (Some(first), Some(last)) = (path.first(), path.last()) {
                    let first = if first == "crate" {
                        path.get(1)
                    } else {
                        Some(first)
                    };
                    if let Some(m) = first.filter(|m| top.contains(m)) {
                        map.insert(last.clone(), m.clone());
                    }
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    map
}

#[derive(Clone, Debug)]
struct Token {
    text: String,
    line: usize,
}

/// Identifiers, `::` and single punctuation; comments, string, char and number literals gone.
fn tokens(text: &str) -> Vec<Token> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if (ch == 'r' || ch == 'b') && raw_string_start(&c, i).is_some() {
            let (hashes, body) = raw_string_start(&c, i).unwrap();
            i = body;
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '"' && (0..hashes).all(|k| at(i + 1 + k) == '#') {
                    i += 1 + hashes;
                    break;
                }
                line += usize::from(c[i] == '\n');
                i += 1;
            }
        } else if ch == '"' || (ch == 'b' && at(i + 1) == '"') {
            i += if ch == 'b' { 2 } else { 1 };
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 1;
        } else if ch == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): a literal closes with a
            // quote right after its one (possibly escaped) character.
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let text: String = c[start..i].iter().collect();
            out.push(Token { text, line });
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || c[i] == '.') {
                if c[i] == '.' && !at(i + 1).is_ascii_digit() {
                    break;
                }
                i += 1;
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: ch.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

/// At `r"`, `r#"`, `br"`, …: the number of `#` and where the string's body starts.
fn raw_string_start(c: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if c.get(j) == Some(&'b') {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    // Not the end of an identifier such as `for` or `bar`.
    if i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (c.get(j) == Some(&'"')).then_some((hashes, j + 1))
}

/// Parses a use tree or path from `tokens[i]` (after `use` or at a path's first segment),
/// appending every full path it names to `leaves`. Returns the index after it.
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    prefix: &mut Vec<String>,
    leaves: &mut Vec<Vec<String>>,
) -> usize {
    let depth = prefix.len();
    loop {
        match tokens.get(i).map(|t| t.text.as_str()) {
            Some("{") => {
                i += 1;
                loop {
                    match tokens.get(i).map(|t| t.text.as_str()) {
                        Some("}") => {
                            i += 1;
                            break;
                        }
                        Some(",") => i += 1,
                        None => break,
                        _ => i = use_tree(tokens, i, prefix, leaves),
                    }
                }
                prefix.truncate(depth);
                return i;
            }
            Some("*") => {
                leaves.push(prefix.clone());
                prefix.truncate(depth);
                return i + 1;
            }
            Some(t) if is_ident(t) => {
                prefix.push(t.to_string());
                i += 1;
                if tokens.get(i).map(|t| t.text.as_str()) == Some("::") {
                    i += 1;
                    continue;
                }
                if tokens.get(i).map(|t| t.text.as_str()) == Some("as") {
                    i += 2;
                }
                leaves.push(prefix.clone());
                prefix.truncate(depth);
                return i;
            }
            _ => {
                // A path followed by something else (`::<T>`): it names what it has so far.
                if prefix.len() > depth {
                    leaves.push(prefix.clone());
                }
                prefix.truncate(depth);
                return i;
            }
        }
    }
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The absolute module paths a file names through `crate::`, `super::`, `self::` and the
/// modules it declares, each with its line.
fn paths_in(module: &[String], text: &str) -> Vec<(Vec<String>, usize)> {
    let tokens = tokens(text);
    let children = declared_modules(text);
    let mut found = Vec::new();
    // The module path where each token sits: the file's module plus inline `mod x { … }`.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].text.as_str();
        let after_path_sep = i > 0 && tokens[i - 1].text == "::";
        match t {
            "{" => {
                depth += 1;
                i += 1;
            }
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                i += 1;
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.text == "{") => {
                inline.push((tokens[i + 1].text.clone(), depth));
                depth += 1;
                i += 3;
            }
            "crate" | "super" | "self"
                if !after_path_sep && tokens.get(i + 1).is_some_and(|t| t.text == "::") =>
            {
                let mut here: Vec<String> = module.to_vec();
                here.extend(inline.iter().map(|(m, _)| m.clone()));
                let line = tokens[i].line;
                let mut leaves = Vec::new();
                let end = use_tree(&tokens, i, &mut Vec::new(), &mut leaves);
                for path in leaves {
                    if let Some(abs) = absolute(&here, &path) {
                        found.push((abs, line));
                    }
                }
                i = end.max(i + 1);
            }
            _ if !after_path_sep
                && children.iter().any(|m| m == t)
                && tokens.get(i + 1).is_some_and(|t| t.text == "::") =>
            {
                // A path through a module this file declares (`cuda::available()`).
                let line = tokens[i].line;
                let mut leaves = Vec::new();
                let end = use_tree(&tokens, i, &mut Vec::new(), &mut leaves);
                let mut here: Vec<String> = module.to_vec();
                here.extend(inline.iter().map(|(m, _)| m.clone()));
                found.extend(leaves.into_iter().map(|p| {
                    let mut abs = here.clone();
                    abs.extend(p);
                    (abs, line)
                }));
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    found
}

/// `crate::a::b`, `super::super::c`, `self::d` from module `here`, as a path from the root.
fn absolute(here: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = here.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("super") | Some("self") => {
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        base.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !graph.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}
