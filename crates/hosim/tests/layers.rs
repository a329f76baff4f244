//! The dependency direction of `src/lib.rs`: a module of a lower layer never names a module of
//! a higher one, neither as `crate::<higher>` nor through `super::` paths that climb to the
//! crate root. Comments and unit-test modules (`#[cfg(test)]` and below) are not checked:
//! a unit test may build a whole scenario as its fixture.

use std::path::{Path, PathBuf};

/// Top-level modules, lowest layer first (as documented at the top of `src/lib.rs`).
const LAYERS: &[&str] =
    &["engine", "net", "tcp", "app", "observe", "sim", "metrics", "spec", "mobility", "scenario", "lib"];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|m| *m == module)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable src dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/`: `sim/world.rs` -> [sim, world], `sim/mod.rs` -> [sim].
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let file = parts.pop().expect("a file name");
    match file.as_str() {
        "mod.rs" => {}
        "lib.rs" if parts.is_empty() => parts.push("lib".into()),
        f => parts.push(f.trim_end_matches(".rs").to_string()),
    }
    parts
}

/// The crate-root modules a line of code names: after `crate::`, and after as many `super::`
/// as it takes to climb above the file's top-level module.
fn named_roots(line: &str, depth: usize) -> Vec<String> {
    let mut roots = Vec::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (i, _) in line.match_indices("crate::") {
        let boundary = line[..i].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if !boundary {
            continue;
        }
        let rest = &line[i + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => roots.extend(group.split(',').map(|s| ident(s.trim())).filter(|s| !s.is_empty())),
            None => roots.push(ident(rest)),
        }
    }
    let mut rest = line;
    while let Some(i) = rest.find("super::") {
        let mut tail = &rest[i..];
        let mut supers = 0;
        while let Some(t) = tail.strip_prefix("super::") {
            supers += 1;
            tail = t;
        }
        if supers >= depth {
            roots.push(ident(tail));
        }
        rest = tail;
    }
    roots
}

#[test]
fn no_module_names_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found the sources");
    let mut bad = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src");
        let path = module_path(rel);
        let mine = rank(&path[0]).unwrap_or_else(|| panic!("{}: top-level module not in LAYERS", rel.display()));
        let text = std::fs::read_to_string(&file).expect("readable file");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("#[cfg(test)]") {
                break;
            }
            if code.starts_with("//") {
                continue;
            }
            for root in named_roots(code, path.len()) {
                if let Some(theirs) = rank(&root).filter(|&r| r > mine) {
                    bad.push(format!("{}:{}: {} names {} ({})", rel.display(), n + 1, path[0], LAYERS[theirs], code));
                }
            }
        }
    }
    assert!(bad.is_empty(), "lower layers name higher ones:\n{}", bad.join("\n"));
}

#[test]
fn super_paths_that_climb_to_the_root_are_resolved() {
    // mobility/fcp/template.rs has depth 3: three `super::` reach the crate root.
    assert_eq!(named_roots("use super::super::super::scenario::x;", 3), vec!["scenario"]);
    assert!(named_roots("use super::super::sim::x;", 3).is_empty(), "still inside mobility");
    assert_eq!(named_roots("use crate::{net, scenario};", 1), vec!["net", "scenario"]);
    assert!(named_roots("let x = my_crate::scenario;", 1).is_empty());
}
