//! The import rules of docs/ARCHITECTURE.md, enforced: each top-level module of `src/` may name only the modules its row allows.
//!
//! Every `crate::NAME` path outside test code counts (`use` lines and paths
//! written inline alike). Root macros, called or imported, count as their
//! home module: `say` as `console`, `usage` and `for_each_parameter` as `plan`. Test code — an inline
//! `#[cfg(test)] mod … { … }` and files declared as `#[cfg(test)] mod …;` —
//! may reach anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module → the modules it may name. `*` allows all (the top: `app`, and
/// the crate root files).
const RULES: &[(&str, &[&str])] = &[
    // Utilities at the bottom: they name nothing of the crate but probe.
    ("cache", &[]),
    ("clock", &[]),
    ("console", &[]),
    ("input", &[]),
    // Owner tags ask /proc through probe (the boot, the pid namespace, a
    // process's start time).
    ("owner", &["probe"]),
    // The engines and what each can do; what to measure; the file format.
    ("engine", &[]),
    ("plan", &["engine"]),
    ("record", &["plan", "input", "owner"]),
    ("probe", &["plan", "clock", "input"]),
    // Figures and judgements over records.
    ("stats", &["plan", "record"]),
    ("check", &["plan", "record"]),
    ("compare", &["plan", "record", "stats"]),
    // Measuring, and turning measurements into records; a trace job reads
    // its trace as it replays it.
    (
        "run",
        &[
            "plan", "record", "engine", "probe", "clock", "input", "owner", "console", "trace",
        ],
    ),
    // The network protocols iolab's own clients speak, over the runner.
    (
        "net",
        &[
            "plan", "record", "engine", "probe", "run", "clock", "console", "owner", "input",
        ],
    ),
    // `measure`'s command, started through its own small process.
    ("command", &["record", "probe", "run", "clock"]),
    (
        "gather",
        &["plan", "record", "probe", "run", "stats", "command"],
    ),
    // Guest machines: QEMU, the kernel, the agent's channel; the control
    // socket asks probe who holds it, and the cache who is gone.
    (
        "guest",
        &[
            "plan", "record", "engine", "owner", "console", "cache", "probe",
        ],
    ),
    (
        "cluster",
        &[
            "plan", "record", "run", "probe", "gather", "clock", "console",
        ],
    ),
    // Reading other tools' results, presenting results.
    (
        "import",
        &["plan", "record", "stats", "check", "gather", "input"],
    ),
    // Every format over records; text is wrapped as stderr's lines are
    // (`console::wrap`), and nothing is written from here.
    (
        "report",
        &["plan", "record", "stats", "compare", "check", "console"],
    ),
    // Traces read, and replayed through the engines onto a target the runner's safety makes.
    // Traces are opened as every file iolab reads is.
    ("trace", &["plan", "input"]),
    (
        "replay",
        &["trace", "run", "engine", "clock", "plan", "record"],
    ),
    // The command line and the commands.
    ("preset", &["plan"]),
    ("cli", &["plan", "preset", "compare", "trace"]),
    ("app", &["*"]),
    ("lib", &["*"]),
    ("main", &["*"]),
    ("bin", &["*"]),
];

/// Root macros, named as `crate::NAME!`, and the module that owns each.
const MACRO_HOMES: &[(&str, &str)] = &[
    ("say", "console"),
    ("note", "console"),
    ("usage", "plan"),
    ("for_each_parameter", "plan"),
];

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Whether `line` opens a module: `mod NAME {` or `mod NAME;` (any visibility).
fn module_declaration(line: &str) -> Option<(&str, bool)> {
    let rest = line.trim_start();
    let rest = rest
        .strip_prefix("pub(crate) ")
        .or_else(|| rest.strip_prefix("pub(super) "))
        .or_else(|| rest.strip_prefix("pub "))
        .unwrap_or(rest);
    let rest = rest.strip_prefix("mod ")?;
    let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let (name, after) = rest.split_at(name_end);
    match after.trim() {
        ";" => Some((name, false)),
        "{" => Some((name, true)),
        _ => None,
    }
}

/// The `crate::NAME` paths `text` names outside test code, with line numbers,
/// and the files it declares as test-only modules.
fn named_modules(text: &str) -> (Vec<(usize, String)>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut named = Vec::new();
    let mut test_files = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        if line.trim() == "#[cfg(test)]" {
            if let Some((name, inline)) = lines.get(index + 1).and_then(|l| module_declaration(l)) {
                if !inline {
                    test_files.push(name.to_string());
                    index += 2;
                    continue;
                }
                // Skip the inline module to its closing brace.
                let mut depth = 0i64;
                index += 1;
                while index < lines.len() {
                    depth += lines[index].matches('{').count() as i64;
                    depth -= lines[index].matches('}').count() as i64;
                    index += 1;
                    if depth <= 0 {
                        break;
                    }
                }
                continue;
            }
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let name = &after[..end];
            let macro_home = MACRO_HOMES
                .iter()
                .find(|(m, _)| *m == name)
                .map(|(_, home)| *home);
            named.push((index + 1, macro_home.unwrap_or(name).to_string()));
            rest = &after[end..];
        }
        index += 1;
    }
    (named, test_files)
}

#[test]
fn each_module_names_only_what_its_row_allows() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let rules: BTreeMap<&str, BTreeSet<&str>> = RULES
        .iter()
        .map(|(module, allowed)| (*module, allowed.iter().copied().collect()))
        .collect();
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    let mut scanned = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let (named, test_files) = named_modules(&text);
        let dir = if path
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        test_only.extend(test_files.iter().map(|name| dir.join(format!("{name}.rs"))));
        scanned.push((path.clone(), named));
    }
    let mut broken = Vec::new();
    for (path, named) in scanned {
        if test_only.contains(&path) {
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        let first = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let module = first.strip_suffix(".rs").unwrap_or(first);
        let allowed = rules
            .get(module)
            .unwrap_or_else(|| panic!("src/{module} has no row in the rules (tests/layering.rs)"));
        for (line, name) in named {
            if name != module && !allowed.contains("*") && !allowed.contains(name.as_str()) {
                broken.push(format!(
                    "src/{}:{line}: {module} names {name}",
                    relative.display()
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports against the rules of docs/ARCHITECTURE.md:\n{}",
        broken.join("\n")
    );
}

#[test]
fn a_forbidden_path_is_found_and_test_code_is_not() {
    let text = "use crate::plan::Workload;\nfn f() { crate::run::go(); crate::say!(\"x\"); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::app::x;\n    fn g() { let s = \"{}\"; }\n}\n\
                #[cfg(test)]\npub mod hostile;\n";
    let (named, test_files) = named_modules(text);
    let names: Vec<&str> = named.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["plan", "run", "console"]);
    assert_eq!(test_files, ["hostile"]);
}

#[test]
fn only_engine_compares_engines() {
    // Outside `engine/`, code asks for a capability
    // (`engine.capabilities().queued`), never whether an engine is a given one.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for path in files.iter().filter(|p| !p.starts_with(src.join("engine"))) {
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("\n#[cfg(test)]\nmod tests {").next().unwrap();
        for (index, line) in code.lines().enumerate() {
            let compares = line.contains("== EngineKind::")
                || line.contains("!= EngineKind::")
                || (line.contains("matches!(") && line.contains("EngineKind::"));
            if compares && !line.trim_start().starts_with("//") {
                found.push(format!("{}:{}: {}", path.display(), index + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "engines compared outside engine/:\n{}",
        found.join("\n")
    );
}

/// Where a network protocol may be named: its binding (`engine/<protocol>/`),
/// the engine registry (`engine/kind.rs`), its module (`net/<protocol>/`)
/// and the protocol registry (`net/mod.rs`); and the guest's kernel stack,
/// which sets up the kernel's own client from the same URL
/// (`plan/guest.rs` parses `--guest mount=`, its tests in `plan/guest/`, `guest/stack.rs` mounts it).
const PROTOCOL_HOMES: &[&str] = &[
    "engine/",
    "net/",
    "plan/guest.rs",
    "plan/guest/",
    "guest/stack.rs",
];

/// The ways code names a protocol of iolab's own clients: its modules, its
/// engine (in the one table, or in a second engine enum), its URL types.
const PROTOCOL_NAMES: &[&str] = &[
    "engine::nfs",
    "engine::iscsi",
    "net::nfs",
    "net::iscsi",
    "EngineKind::Nfs",
    "EngineKind::Iscsi",
    "Engine::Nfs",
    "Engine::Iscsi",
    "GuestMount::Nfs",
    "GuestMount::Iscsi",
    "NfsUrl",
    "IscsiUrl",
];

#[test]
fn no_file_keeps_a_copy_of_the_engine_table() {
    // An engine's name, capabilities and constructor live in
    // engine/kind.rs: a line outside engine/ that lists two engine names
    // as strings (a clap value list, a second enum's names) is a copy.
    let names = [
        "\"sync\"",
        "\"psync\"",
        "\"stdio\"",
        "\"mmap\"",
        "\"uring\"",
        "\"libaio\"",
        "\"nfs\"",
        "\"iscsi\"",
        "\"null\"",
    ];
    let found: Vec<String> = code_lines_outside("engine")
        .into_iter()
        .filter(|(_, code)| names.iter().filter(|n| code.contains(*n)).count() >= 2)
        .map(|(at, code)| format!("{at}: {}", code.trim()))
        .collect();
    assert!(
        found.is_empty(),
        "engine names listed outside engine/kind.rs:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_protocol_is_named_only_in_its_module_and_the_registries() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&src).unwrap().to_str().unwrap();
        if PROTOCOL_HOMES.iter().any(|home| relative.starts_with(home)) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("\n#[cfg(test)]\nmod tests {").next().unwrap();
        for (index, line) in code.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if let Some(name) = PROTOCOL_NAMES.iter().find(|n| code.contains(*n)) {
                found.push(format!("src/{relative}:{}: names {name}", index + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a protocol named outside its module (add to net/ instead):\n{}",
        found.join("\n")
    );
}

/// The module a source file is (`src/run/timing.rs` → `run::timing`,
/// `src/net/nfs/mod.rs` → `net::nfs`).
fn module_of(src: &Path, path: &Path) -> Vec<String> {
    let relative = path.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_str().unwrap().to_string())
        .collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    parts
}

/// The modules `code` names by `crate::…` or `super::…` paths, resolved
/// from `module`; a grouped import (`use super::{a, b::{C, D}}`, over
/// several lines too) names each of its paths.
fn modules_named(
    code: &str,
    module: &[String],
    known: &BTreeSet<Vec<String>>,
) -> BTreeSet<Vec<String>> {
    let code: String = code
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find(['c', 's']) {
        let tail = &rest[at..];
        let preceded = at > 0 && {
            let before = rest[..at].chars().last().unwrap();
            before.is_alphanumeric() || before == '_' || before == ':'
        };
        let (mut base, mut path) = if !preceded && tail.starts_with("crate::") {
            (Vec::new(), &tail["crate::".len()..])
        } else if !preceded && tail.starts_with("super::") {
            // `super` of `a/b.rs` and of `a/b/mod.rs` (both module `a::b`) is `a`.
            let base = module[..module.len().saturating_sub(1)].to_vec();
            (base, &tail["super::".len()..])
        } else {
            rest = &rest[at + 1..];
            continue;
        };
        while let Some(further) = path.strip_prefix("super::") {
            base.pop();
            path = further;
        }
        for segments in import_paths(path) {
            let mut full = base.clone();
            full.extend(segments);
            while !full.is_empty() && !known.contains(&full) {
                full.pop();
            }
            if !full.is_empty() {
                named.insert(full);
            }
        }
        rest = &rest[at + 1..];
    }
    named
}

/// The paths `text` begins with: `a::b::C` is one, `a::{b, c::{D, E}}`
/// three (`a::b`, `a::c::D`, `a::c::E`).
fn import_paths(text: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = text;
    loop {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            break;
        }
        rest = &rest[word.len()..];
        prefix.push(word);
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => return vec![prefix],
        }
    }
    let Some(group) = rest.trim_start().strip_prefix('{') else {
        return if prefix.is_empty() {
            Vec::new()
        } else {
            vec![prefix]
        };
    };
    // The group's items, split at its own commas (not those of groups inside).
    let mut items = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[from..at]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[from..at]);
                from = at + 1;
            }
            _ => {}
        }
    }
    let mut paths = Vec::new();
    for item in items {
        for path in import_paths(item.trim_start()) {
            let mut full = prefix.clone();
            full.extend(path);
            paths.push(full);
        }
    }
    if paths.is_empty() && !prefix.is_empty() {
        paths.push(prefix);
    }
    paths
}

#[test]
fn grouped_imports_name_each_of_their_modules() {
    let known: BTreeSet<Vec<String>> = [
        vec!["a"],
        vec!["a", "b"],
        vec!["a", "c"],
        vec!["a", "c", "d"],
        vec!["e"],
    ]
    .iter()
    .map(|m| m.iter().map(|s| s.to_string()).collect())
    .collect();
    let module: Vec<String> = vec!["a".into(), "x".into()];
    let code = "use super::{b::Thing, c::{d::{self, Other}, More}};\nuse crate::{\n    e::f, // a comment\n};\n";
    let named: Vec<String> = modules_named(code, &module, &known)
        .into_iter()
        .map(|m| m.join("::"))
        .collect();
    assert_eq!(named, ["a::b", "a::c", "a::c::d", "e"]);
}

#[test]
fn no_files_of_one_folder_import_each_other_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let known: BTreeSet<Vec<String>> = files.iter().map(|p| module_of(&src, p)).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for path in &files {
        let module = module_of(&src, path);
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("\n#[cfg(test)]\nmod tests {").next().unwrap();
        let named = modules_named(code, &module, &known);
        let same_folder = named
            .into_iter()
            .filter(|m| m != &module && m.first() == module.first() && module.len() > 1)
            .collect();
        edges.insert(module, same_folder);
    }
    // A circle: a module that reaches itself again.
    let mut circles = Vec::new();
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<Vec<String>> = edges[start].iter().cloned().collect();
        while let Some(next) = stack.pop() {
            if &next == start {
                circles.push(start.join("::"));
                break;
            }
            if seen.insert(next.clone()) {
                stack.extend(edges.get(&next).into_iter().flatten().cloned());
            }
        }
    }
    assert!(
        circles.is_empty(),
        "files that import each other, in a circle (put what both need in a leaf):\n{}",
        circles.join("\n")
    );
}

#[test]
fn app_mod_only_declares_and_names_the_commands() {
    // Nothing inside app/ names anything back up in app/mod.rs: it holds
    // no item of its own, only the modules and the commands `main` calls.
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app/mod.rs"))
            .unwrap();
    for line in text.lines() {
        let line = line.trim();
        let allowed = line.is_empty()
            || line.starts_with("//")
            || module_declaration(line).is_some()
            || line.starts_with("pub use ");
        assert!(
            allowed,
            "src/app/mod.rs holds more than declarations: {line}"
        );
    }
}

#[test]
fn only_probe_reads_proc() {
    // /proc is read in probe/ alone, so every counter and fact iolab takes
    // from it has one home, parsed from text its tests can feed. A path
    // built to reopen a descriptor (/proc/self/fd/N) is not a read of /proc.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for path in files.iter().filter(|p| !p.starts_with(src.join("probe"))) {
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("\n#[cfg(test)]\nmod tests {").next().unwrap();
        for (index, line) in code.lines().enumerate() {
            let reads = [
                "fs::read_to_string(",
                "fs::read_link(",
                "File::open(",
                "fs::read_dir(",
                "fs::read(",
            ]
            .iter()
            .any(|call| line.contains(call));
            if reads && line.contains("\"/proc/") && !line.trim_start().starts_with("//") {
                found.push(format!("{}:{}: {}", path.display(), index + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "/proc read outside probe/:\n{}",
        found.join("\n")
    );
}

/// docs/ARCHITECTURE.md's text, and its section titled `title` (to the next `## `).
fn architecture_section(title: &str) -> String {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md"))
            .expect("docs/ARCHITECTURE.md");
    let start = text
        .find(title)
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no section {title}"));
    let rest = &text[start + title.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The names between backticks in `cell`.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// `src/`'s top-level modules as the docs write them: `name/` for a
/// folder, `name.rs` for a file.
fn source_modules() -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    std::fs::read_dir(&src)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect()
}

/// The module table of docs/ARCHITECTURE.md lists exactly `src/`'s
/// top-level modules, and its pipeline diagram names each of them.
#[test]
fn the_architecture_lists_exactly_the_modules_of_src() {
    let section = architecture_section("## Modules");
    let listed: BTreeSet<String> = section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .flat_map(|line| backticked(line.split('|').nth(1).unwrap_or("")))
        .collect();
    let actual = source_modules();
    assert_eq!(
        listed, actual,
        "docs/ARCHITECTURE.md's module table against src/ (left: listed)"
    );
    let diagram = architecture_section("## One pipeline, one direction");
    let diagram = diagram.split("```").nth(1).expect("the diagram");
    for module in &actual {
        let name = module.trim_end_matches('/').trim_end_matches(".rs");
        if ["main", "lib", "bin"].contains(&name) {
            continue;
        }
        assert!(
            diagram
                .split(|c: char| !c.is_alphanumeric())
                .any(|word| word == name),
            "the pipeline diagram does not name {name}"
        );
    }
}

/// The rules table of docs/ARCHITECTURE.md is the one the import test
/// enforces ([`RULES`]), row for row.
#[test]
fn the_architectures_rules_are_the_enforced_ones() {
    let section = architecture_section("## One pipeline, one direction");
    let mut documented: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').collect();
        let (modules, allowed) = (cells[1], cells[2]);
        let allowed: BTreeSet<String> = if allowed.contains("anything") {
            ["*".to_string()].into()
        } else {
            backticked(allowed).into_iter().collect()
        };
        for module in backticked(modules) {
            let module = module
                .trim_end_matches('/')
                .trim_end_matches(".rs")
                .to_string();
            documented.insert(module, allowed.clone());
        }
    }
    let enforced: BTreeMap<String, BTreeSet<String>> = RULES
        .iter()
        .map(|(module, allowed)| {
            (
                module.to_string(),
                allowed.iter().map(|a| a.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(
        documented, enforced,
        "docs/ARCHITECTURE.md's rules (left) against RULES"
    );
}

/// No source file holds more than 800 lines: a file that grows past them
/// is split where its code divides (issue "One shape of point").
#[test]
fn no_source_file_is_over_800_lines() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            (lines > 800).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "split where the code divides: {long:?}");
}

#[test]
fn what_a_workload_works_on_is_asked_of_work_outside_plan() {
    // `Workload::work()` says whether jobs work on files, a tree or a
    // trace; outside `plan/` no code asks the shape of the fields behind it.
    let shapes = [
        ".items.is_some()",
        ".items.is_none()",
        ".trace.is_some()",
        ".trace.is_none()",
    ];
    let found: Vec<String> = code_lines_outside("plan")
        .into_iter()
        .filter(|(_, code)| shapes.iter().any(|shape| code.contains(shape)))
        .map(|(at, code)| format!("{at}: {}", code.trim()))
        .collect();
    assert!(
        found.is_empty(),
        "the shape of a workload asked outside plan/ (ask `work()`):\n{}",
        found.join("\n")
    );
}

/// Each line of code outside `src/FOLDER/` and outside test modules, with
/// its comment cut: `(path:line, code)`.
fn code_lines_outside(folder: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut lines = Vec::new();
    for path in files.iter().filter(|p| !p.starts_with(src.join(folder))) {
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("\n#[cfg(test)]\nmod tests {").next().unwrap();
        for (index, line) in code.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("").to_string();
            lines.push((format!("{}:{}", path.display(), index + 1), code));
        }
    }
    lines
}
