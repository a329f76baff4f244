//! The dependency direction of `src/lib.rs`: a module of a lower layer never names a module of
//! a higher one, neither as `crate::<higher>` (also inside a `use crate::{...}` group spread
//! over several lines), nor through an alias of the crate root (`use crate as root;`,
//! `extern crate self as root;`), nor through `super::` paths that climb to the crate root.
//! Comments, string literals and unit-test items are not checked: an item under
//! `#[cfg(test)]` (a `mod tests { ... }` block, a `use`, or a `mod fixtures;` whose file is
//! then skipped as a whole) may build a whole scenario as its fixture. Code after such an item
//! is checked again.

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

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident(s: &str) -> String {
    s.chars().take_while(|&c| is_ident_char(c)).collect()
}

/// `text` with comments and the contents of string and character literals replaced by spaces;
/// newlines are kept, so that a byte offset still gives its line.
fn blank_comments_and_literals(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(b.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        if b[i] == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if b[i] == '/' && next == Some('*') {
            let mut depth = 0;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.extend([' ', ' ']);
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.extend([' ', ' ']);
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if b[i] == 'r' && (next == Some('"') || next == Some('#')) && (i == 0 || !is_ident_char(b[i - 1])) {
            // A raw string r"..." or r#"..."#: ends at a quote followed by as many hashes.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            out.extend((i..=j).map(|_| ' '));
            i = j + 1;
            while i < b.len() {
                if b[i] == '"' && (1..=hashes).all(|k| b.get(i + k) == Some(&'#')) {
                    out.extend((0..=hashes).map(|_| ' '));
                    i += hashes + 1;
                    break;
                }
                out.push(blank(b[i]));
                i += 1;
            }
        } else if b[i] == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                let step = if b[i] == '\\' { 2 } else { 1 };
                for k in 0..step {
                    if let Some(&c) = b.get(i + k) {
                        out.push(blank(c));
                    }
                }
                i += step;
            }
            out.push(' ');
            i += 1;
        } else if b[i] == '\'' && (next == Some('\\') || b.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '\'' {
                let step = if b[i] == '\\' { 2 } else { 1 };
                out.extend((0..step).map(|_| ' '));
                i += step;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out.truncate(b.len());
    out.into_iter().collect()
}

/// The end (exclusive) of the item that starts at or after `from` in `code`: its first `;` at
/// brace depth 0, or the brace that closes its first `{`.
fn item_end(code: &[char], from: usize) -> usize {
    let mut depth = 0usize;
    for (i, &c) in code.iter().enumerate().skip(from) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            ';' if depth == 0 => return i + 1,
            _ => {}
        }
    }
    code.len()
}

/// Code (comments and literals blanked) with every item under `#[cfg(test)]` blanked too, and
/// the names of the modules declared there without a body (`#[cfg(test)] mod fixtures;`),
/// whose files are unit tests as a whole.
fn without_test_items(code: &str) -> (String, Vec<String>) {
    let mut chars: Vec<char> = code.chars().collect();
    let mut test_files = Vec::new();
    let attr: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + attr.len() <= chars.len() {
        if chars[i..i + attr.len()] != attr[..] {
            i += 1;
            continue;
        }
        let end = item_end(&chars, i + attr.len());
        let item: String = chars[i + attr.len()..end].iter().collect();
        let words: Vec<&str> = item.split(|c: char| !is_ident_char(c)).filter(|w| !w.is_empty()).collect();
        if item.trim_end().ends_with(';') {
            if let Some(k) = words.iter().position(|w| *w == "mod") {
                test_files.extend(words.get(k + 1).map(|s| s.to_string()));
            }
        }
        for c in &mut chars[i..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    (chars.into_iter().collect(), test_files)
}

/// The names by which `code` refers to the crate root: `crate`, and the aliases of
/// `use crate as x;`, `use crate::{self as x};` and `extern crate self as x;`.
fn root_names(code: &str) -> Vec<String> {
    let mut names = vec!["crate".to_string()];
    let words: Vec<&str> = code.split(|c: char| !is_ident_char(c)).filter(|w| !w.is_empty()).collect();
    for i in 0..words.len() {
        let alias = match &words[i..] {
            ["use", "crate", "as", x, ..] => Some(x),
            ["crate", "self", "as", x, ..] if i == 0 || words[i - 1] != "extern" => Some(x),
            ["extern", "crate", "self", "as", x, ..] => Some(x),
            _ => None,
        };
        if let Some(x) = alias.filter(|x| **x != "_") {
            names.push(x.to_string());
        }
    }
    names
}

/// The identifiers at the top level of the `{...}` group that starts at `rest` (after `{`).
fn group_roots(rest: &str) -> Vec<String> {
    let mut roots = Vec::new();
    let mut depth = 0;
    let mut at_start = true;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            c if c.is_whitespace() => {}
            _ if at_start && depth == 0 => {
                at_start = false;
                let name = ident(&rest[i..]);
                if !name.is_empty() && name != "self" {
                    roots.push(name);
                }
            }
            _ => {}
        }
    }
    roots
}

/// The crate-root modules `code` names, with the byte offset of each: after the crate root
/// (`crate::` or an alias of it), and after as many `super::` as it takes to climb above the
/// file's top-level module (`depth`, the length of its module path).
fn named_roots(code: &str, depth: usize) -> Vec<(usize, String)> {
    let mut roots = Vec::new();
    for name in root_names(code) {
        let prefix = format!("{name}::");
        for (i, _) in code.match_indices(&prefix) {
            let boundary = code[..i].chars().last().is_none_or(|c| !is_ident_char(c));
            if !boundary {
                continue;
            }
            let rest = code[i + prefix.len()..].trim_start();
            match rest.strip_prefix('{') {
                Some(group) => roots.extend(group_roots(group).into_iter().map(|r| (i, r))),
                None => roots.push((i, ident(rest))),
            }
        }
    }
    let mut pos = 0;
    while let Some(found) = code[pos..].find("super::") {
        let start = pos + found;
        let mut tail = &code[start..];
        let mut supers = 0;
        while let Some(t) = tail.strip_prefix("super::") {
            supers += 1;
            tail = t.trim_start();
        }
        if supers >= depth {
            match tail.strip_prefix('{') {
                Some(group) => roots.extend(group_roots(group).into_iter().map(|r| (start, r))),
                None => roots.push((start, ident(tail))),
            }
        }
        pos = code.len() - tail.len();
    }
    roots
}

/// The layer violations in the file at `rel` (a path under `src/`) with text `text`, one line
/// each, and the test-only module files it declares (paths under `src/`).
fn check_file(rel: &Path, text: &str) -> (Vec<String>, Vec<PathBuf>) {
    let path = module_path(rel);
    let mine = rank(&path[0]).unwrap_or_else(|| panic!("{}: top-level module not in LAYERS", rel.display()));
    if text.contains("#![cfg(test)]") {
        return (Vec::new(), Vec::new());
    }
    let (code, test_mods) = without_test_items(&blank_comments_and_literals(text));
    let mut bad = Vec::new();
    for (offset, root) in named_roots(&code, path.len()) {
        if let Some(theirs) = rank(&root).filter(|&r| r > mine) {
            let n = code[..offset].matches('\n').count();
            let line = text.lines().nth(n).unwrap_or("").trim();
            bad.push(format!("{}:{}: {} names {} ({line})", rel.display(), n + 1, path[0], LAYERS[theirs]));
        }
    }
    // A module declared in `a/mod.rs` (or `lib.rs`) lives in `a/`; one declared in `a/b.rs`, in `a/b/`.
    let dir = match rel.file_name().and_then(|f| f.to_str()) {
        Some("mod.rs" | "lib.rs") => rel.parent().map(Path::to_path_buf).unwrap_or_default(),
        _ => rel.with_extension(""),
    };
    let test_files = test_mods.iter().flat_map(|m| [dir.join(format!("{m}.rs")), dir.join(m).join("mod.rs")]).collect();
    (bad, test_files)
}

#[test]
fn no_module_names_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found the sources");
    let mut bad = Vec::new();
    let mut test_only = Vec::new();
    let mut checked = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src").to_path_buf();
        let text = std::fs::read_to_string(file).expect("readable file");
        let (b, t) = check_file(&rel, &text);
        test_only.extend(t);
        checked.push((rel, b));
    }
    for (rel, b) in checked {
        if !test_only.contains(&rel) {
            bad.extend(b);
        }
    }
    assert!(bad.is_empty(), "lower layers name higher ones:\n{}", bad.join("\n"));
}

fn flagged(rel: &str, text: &str) -> Vec<String> {
    check_file(Path::new(rel), text).0
}

#[test]
fn super_paths_that_climb_to_the_root_are_resolved() {
    let roots = |code: &str, depth| named_roots(code, depth).into_iter().map(|(_, r)| r).collect::<Vec<_>>();
    // mobility/fcp/template.rs has depth 3: three `super::` reach the crate root.
    assert_eq!(roots("use super::super::super::scenario::x;", 3), vec!["scenario"]);
    assert!(roots("use super::super::sim::x;", 3).is_empty(), "still inside mobility");
    assert_eq!(roots("use crate::{net, scenario};", 1), vec!["net", "scenario"]);
    assert!(roots("let x = my_crate::scenario;", 1).is_empty());
}

#[test]
fn a_path_after_a_test_module_declaration_is_flagged() {
    let text = "use crate::engine::time::SimTime;\n\
                #[cfg(test)]\n\
                mod fixtures;\n\
                pub use crate::scenario::Scenario;\n";
    let bad = flagged("net/link.rs", text);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("net/link.rs:4: net names scenario"), "{bad:?}");
}

#[test]
fn a_path_after_a_test_block_is_flagged_and_one_inside_it_is_not() {
    let text = "fn f() {}\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::scenario::load;\n    fn g() { let _ = { 1 }; }\n}\n\
                fn h() -> crate::sim::World { todo!() }\n";
    let bad = flagged("tcp/rto.rs", text);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("tcp/rto.rs:7: tcp names sim"), "{bad:?}");
}

#[test]
fn an_alias_of_the_crate_root_is_followed() {
    let bad = flagged("engine/rng.rs", "use crate as root;\nfn f(_: root::sim::Sim) {}\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("engine/rng.rs:2: engine names sim"), "{bad:?}");
    let bad = flagged("net/mod.rs", "extern crate self as me;\nuse me::{engine, observe};\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("net names observe"), "{bad:?}");
    let bad = flagged("app/mod.rs", "use crate::{self as c};\nuse c::mobility::fcp;\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
    // A module's own `self` alias is not the crate root.
    assert!(flagged("sim/mod.rs", "use super::world::{self as scenario};\nuse scenario::x;\n").is_empty());
}

#[test]
fn a_group_spread_over_lines_is_read_whole() {
    let text = "use crate::{\n    engine::time::SimTime,\n    metrics::{summary, x},\n};\n";
    let bad = flagged("sim/world.rs", text);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("sim/world.rs:1: sim names metrics"), "{bad:?}");
    let text = "use super::super::{\n  engine,\n  mobility,\n};\n";
    assert_eq!(flagged("net/link.rs", text).len(), 1, "super:: groups too");
    assert!(flagged("net/qdisc/red.rs", text).is_empty(), "two `super::` stay in net");
}

#[test]
fn comments_and_strings_are_not_code() {
    let text = "// crate::scenario is above\n/* crate::mobility\n */\nconst S: &str = \"crate::sim::x\";\n\
                const R: &str = r#\"crate::sim \"# ;\nconst C: char = '\"';\nfn f<'a>(_: &'a str) {}\n";
    assert!(flagged("net/link.rs", text).is_empty(), "{:?}", flagged("net/link.rs", text));
    // Code after them still counts.
    let text = "const C: char = '\"'; // \"\nuse crate::app::App;\n";
    assert_eq!(flagged("net/link.rs", text).len(), 1);
}

#[test]
fn a_test_only_module_file_is_skipped_as_a_whole() {
    let (bad, files) = check_file(Path::new("tcp/mod.rs"), "#[cfg(test)]\nmod fixtures;\n");
    assert!(bad.is_empty());
    assert!(files.contains(&PathBuf::from("tcp/fixtures.rs")), "{files:?}");
    let (_, files) = check_file(Path::new("tcp/sender.rs"), "#[cfg(test)]\nmod persist_tests;\n");
    assert!(files.contains(&PathBuf::from("tcp/sender/persist_tests.rs")), "{files:?}");
}
