//! Records how the binary was built: the git commit (when the source is a git
//! checkout), the target triple and the compiler version.
use std::process::Command;

fn output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/index");
    // Only this source's own checkout names the commit: a copy extracted
    // inside another checkout (bench/vs-commit builds an earlier commit
    // under target/) would otherwise take the enclosing one's HEAD.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let toplevel = output("git", &["rev-parse", "--show-toplevel"]);
    let own_checkout = !toplevel.is_empty()
        && std::fs::canonicalize(&toplevel).ok() == std::fs::canonicalize(&manifest_dir).ok();
    let commit = if own_checkout {
        output("git", &["rev-parse", "HEAD"])
    } else {
        String::new()
    };
    println!("cargo:rustc-env=IOLAB_GIT_COMMIT={commit}");
    let short = if commit.len() >= 12 {
        &commit[..12]
    } else {
        "unknown"
    };
    println!("cargo:rustc-env=IOLAB_GIT_SHORT={short}");
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=IOLAB_TARGET={target}");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = output(&rustc, &["--version"]);
    // "rustc 1.95.0 (59807616e 2026-04-14)" → "rustc 1.95.0"
    let short: Vec<&str> = version.split_whitespace().take(2).collect();
    println!("cargo:rustc-env=IOLAB_RUSTC_VERSION={}", short.join(" "));
}
