//! `iolab guest`'s arguments: check, fetch, up, exec and down.

use super::size;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `iolab guest …`.
#[derive(Debug, Subcommand)]
pub enum GuestCommand {
    /// Boot a guest as `--guest` would and say what works here: QEMU, the
    /// accelerator and why, the kernel, the host's root over 9p, the
    /// agent's channel, boot-to-agent and round-trip times. Exits 1 when a
    /// guest cannot run.
    Check(GuestCheckArgs),
    /// Fetch the guest's kernel and busybox into iolab's cache and prepare
    /// them, booting nothing: done once with the network, so that guests
    /// boot where there is none (inside scripts/netlab's namespace).
    Fetch(GuestFetchArgs),
    /// Boot a guest that serves as a host until stopped: on a tap (`--guest
    /// tap=…`), with its own kernel, page cache, boot id, clock and disk (the
    /// disk also mounted at `--dir`'s path in the guest), reached by `iolab
    /// guest exec`; an MPI launcher's remote agent (docs/distributed.md).
    Up(GuestUpArgs),
    /// Run a command line in a guest `iolab guest up` started, as ssh runs
    /// one: `iolab guest exec ADDRESS WORDS…` joins the words, runs them
    /// with `sh -c` in the guest, prints the output and exits with its status.
    Exec(GuestExecArgs),
    /// Stop a guest `iolab guest up` started (its files removed, its disk
    /// unmounted), returning once it is stopped.
    Down(GuestDownArgs),
    /// The agent inside a guest iolab booted (started by the guest's init).
    #[command(hide = true)]
    Agent,
}

/// Arguments of `iolab guest up`.
#[derive(Debug, Args)]
pub struct GuestUpArgs {
    /// The guest, as KEY=VALUE,… as `--guest` of `run`; `tap=` is required
    /// (a host is reached over a network).
    #[arg(long, value_name = "KEY=VALUE,…")]
    pub guest: String,
    /// The directory whose path the guest's disk is mounted at in the guest
    /// (its image, an iolab scratch file, is made here).
    #[arg(long, default_value = ".", value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: PathBuf,
    /// The guest's disk size.
    #[arg(long, default_value = "1g", value_parser = size, value_name = "SIZE")]
    pub size: u64,
    /// The guest's host name.
    #[arg(long, default_value = "iolab-guest", value_name = "NAME")]
    pub hostname: String,
}

/// Arguments of `iolab guest exec`.
#[derive(Debug, Args)]
pub struct GuestExecArgs {
    /// The guest's address on its tap's link (as `iolab guest up` said it).
    #[arg(value_name = "ADDRESS")]
    pub address: String,
    /// The command line's words, joined by spaces and run with `sh -c`.
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true, value_name = "WORDS")]
    pub words: Vec<String>,
}

/// Arguments of `iolab guest down`.
#[derive(Debug, Args)]
pub struct GuestDownArgs {
    /// The guest's address on its tap's link.
    #[arg(value_name = "ADDRESS")]
    pub address: String,
}

/// Arguments of `iolab guest check`.
#[derive(Debug, Args)]
pub struct GuestCheckArgs {
    /// The guest, as KEY=VALUE,… (kernel, memory, cpus, accel, bus, cache,
    /// aio, format, tap, mount=nfs://…, fs, nfs, lvm); see `--guest` of `run`.
    #[arg(long, default_value = "", value_name = "KEY=VALUE,…")]
    pub guest: String,
    /// Where the guest's small test image goes.
    #[arg(long, default_value = ".", value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: PathBuf,
}

/// Arguments of `iolab guest fetch`.
#[derive(Debug, Args)]
pub struct GuestFetchArgs {
    /// The kernel: `debian` (the one Debian's linux-image-amd64 depends on
    /// now) or the path of a linux-image .deb; as `--guest kernel=`.
    #[arg(long, default_value = "debian", value_name = "debian|FILE.deb")]
    pub kernel: String,
}
