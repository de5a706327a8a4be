//! Distributed runs (`--mpi`): the ranks of an MPI job measure together, and
//! rank 0 records them all in one result file.
//!
//! [`join`] starts MPI (feature `mpi`), checks that every rank runs the same
//! iolab with the same arguments, learns which ranks share a host, and
//! returns a [`Cluster`], which is the runner's [`Peers`]. The transport is a
//! trait so that this logic does not depend on the MPI library; the only
//! implementation is `mpi_transport` over rsmpi.

mod peers;
pub mod wire;

#[cfg(feature = "mpi")]
mod mpi_transport;

use crate::clock;
use crate::plan::UsageError;
use crate::record::distributed::ClockComparison;
use crate::run::peers::{Peers, Spread};

use crate::usage;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wire::HostIdentity;

/// Collective operations among the ranks, as bytes.
pub trait Transport {
    /// This process's rank.
    fn rank(&self) -> u32;
    /// The number of ranks.
    fn size(&self) -> u32;
    /// Waits for every rank.
    fn barrier(&self);
    /// Every rank's `bytes`, in rank order, on every rank.
    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>>;
    /// Every rank's `bytes` on rank 0 (`None` elsewhere).
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>>;
    /// Rank 0's `bytes` on every rank.
    fn broadcast(&self, bytes: &[u8]) -> Vec<u8>;
    /// Ends every rank of the job with `code`.
    fn abort(&self, code: i32) -> !;
    /// Tells every other rank that signal `signal` stopped this one
    /// (point to point: no rank waits for it).
    fn send_stop(&self, signal: i32);
    /// The signal another rank told this one of, if any came (every such
    /// message taken).
    fn take_stop(&self) -> Option<i32>;
    /// Every rank's `bytes` on rank 0 (`None` elsewhere), each rank's as it
    /// comes; rank 0 stops waiting when `give_up` says so, and a rank that
    /// has not reported by then is `None`.
    fn gather_until(
        &self,
        bytes: &[u8],
        give_up: &dyn Fn() -> bool,
    ) -> Option<Vec<Option<Vec<u8>>>>;
}

/// The options of a distributed run, from the command line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `--shared-file`.
    pub shared_file: bool,
    /// `--reorder`.
    pub reorder: bool,
    /// `--stonewall`.
    pub stonewall: bool,
}

/// One host of the run and its ranks.
#[derive(Clone, Debug)]
pub struct Host {
    /// Its name and boot id.
    pub identity: HostIdentity,
    /// Its ranks, ascending.
    pub ranks: Vec<u32>,
    /// On another boot than rank 0's: its clock against rank 0's, from its
    /// lowest rank.
    pub clock: Option<ClockComparison>,
}

/// Barrier exits over which the clocks of other boots are compared.
const CLOCK_ROUNDS: usize = 9;

/// This process's place in a distributed run.
pub struct Cluster {
    transport: Box<dyn Transport>,
    /// Every rank's host, in rank order.
    rank_hosts: Vec<HostIdentity>,
    hosts: Vec<Host>,
    spread: Spread,
    options: Options,
    run_id: String,
    launcher: String,
    /// When this rank left the last common start (its clock, ns).
    released_at: Cell<u64>,
    /// Whether the current repetition passed its common start.
    started: Cell<bool>,
    /// Whether this rank told the others of its signal.
    told_stop: Cell<bool>,
    /// Whether this rank's signal is one another rank relayed.
    stop_relayed: Cell<bool>,
    /// The ranks that did not report a repetition before rank 0 gave up
    /// on them (rank 0 only): from then on no collective waits for them,
    /// and the run ends with what it has.
    lost: RefCell<Vec<u32>>,
}

thread_local! {
    /// The run this process is a rank of. MPI is one per process and used
    /// from the main thread only (MPI_THREAD_FUNNELED).
    static CURRENT: RefCell<Option<Rc<Cluster>>> = const { RefCell::new(None) };
}

/// What every rank tells the others at the start.
#[derive(serde::Serialize, serde::Deserialize)]
struct Introduction {
    version: String,
    commit: Option<String>,
    /// The binary's GNU build id: a rebuild of other code at one version
    /// and commit differs in it.
    #[serde(default)]
    build_id: Option<String>,
    arguments: Vec<String>,
    host: HostIdentity,
    /// The rank's network namespace ([`crate::probe::process::net_namespace`]).
    #[serde(default)]
    net_namespace: u64,
    run_id: String,
}

/// The launcher recorded when none was found.
const NO_LAUNCHER: &str = "none (one rank)";

/// Environment variables by which MPI launchers tell a process its place.
const LAUNCHER_VARIABLES: [(&str, &str); 4] = [
    ("OMPI_COMM_WORLD_SIZE", "Open MPI mpirun"),
    ("PMIX_RANK", "a PMIx launcher (srun, prterun)"),
    ("PMI_SIZE", "a PMI launcher (MPICH mpiexec, srun)"),
    ("SLURM_STEP_NUM_TASKS", "Slurm srun"),
];

/// This process's rank as its MPI launcher set it in the environment
/// (`OMPI_COMM_WORLD_RANK`, `PMIX_RANK`, `PMI_RANK`, `SLURM_PROCID`), before
/// MPI is joined; `None` outside a launcher. An argument error happens
/// before any rank joins: rank 0 alone says it, and the others exit with
/// the same status, which the launcher reports by rank.
pub fn launcher_rank() -> Option<u32> {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMIX_RANK",
        "PMI_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|name| std::env::var(name).ok()?.trim().parse().ok())
}

/// Joins the MPI job this process was started in, when `--mpi` was given:
/// every rank must run the same iolab with the same `arguments`, which is
/// checked here (refused with the differing ranks named). `run_id` is this
/// process's; rank 0's becomes everyone's.
pub fn join(
    mpi: bool,
    options: Options,
    arguments: &[String],
    run_id: &str,
) -> Result<Option<Rc<Cluster>>, UsageError> {
    if !mpi {
        return Ok(None);
    }
    let launcher = LAUNCHER_VARIABLES
        .iter()
        .find(|(name, _)| std::env::var_os(name).is_some())
        .map(|(_, launcher)| launcher.to_string());
    let transport = start_transport()?;
    let launcher = launcher.unwrap_or_else(|| NO_LAUNCHER.to_string());
    let tool = crate::gather::build::tool();
    let introduction = Introduction {
        version: tool.version,
        commit: tool.git_commit,
        build_id: crate::probe::process::own_build_id(),
        // argv[0] may differ (a path per host); the rest must not.
        arguments: arguments.iter().skip(1).cloned().collect(),
        host: HostIdentity {
            name: crate::probe::host::HostIdentity::read().hostname,
            boot_id: crate::probe::process::boot_id(),
            monotonic_offset_ns: crate::probe::process::monotonic_offset_ns(),
        },
        net_namespace: crate::probe::process::net_namespace(),
        run_id: run_id.to_string(),
    };
    let bytes = serde_json::to_vec(&introduction).expect("an introduction serializes");
    let everyone: Vec<Introduction> = transport
        .all_gather(&bytes)
        .iter()
        .map(|b| serde_json::from_slice(b))
        .collect::<Result<_, _>>()
        .map_err(|e| usage!("--mpi: a rank sent an unreadable introduction: {e}"))?;
    let mut differing = differing_ranks(&everyone);
    if differing.is_empty() {
        differing = same_named_hosts(&everyone);
    }
    PLACE.with(|p| p.set((transport.rank(), false)));
    if transport.rank() != 0 {
        crate::console::speak_as(format!(
            "rank {} on {}",
            transport.rank(),
            everyone[transport.rank() as usize].host.name
        ));
    }
    let rank_hosts: Vec<HostIdentity> = everyone.iter().map(|i| i.host.clone()).collect();
    let mut hosts = group_hosts(&rank_hosts);
    // Every rank knows every boot: all take part, or none.
    if differing.is_empty() {
        let clocks = compare_clocks(transport.as_ref(), &rank_hosts);
        for host in &mut hosts {
            host.clock = clocks[host.ranks[0] as usize];
        }
    }
    let size = transport.size();
    let most_per_host = hosts.iter().map(|h| h.ranks.len()).max().unwrap_or(1) as u32;
    let spread = Spread {
        shared_file: options.shared_file,
        // IOR's -C: shift by the ranks of a host, so a rank reads what a rank
        // on another host wrote; on one host, the next rank.
        reorder_shift: match (options.reorder, hosts.len()) {
            (false, _) => 0,
            (true, 1) => 1 % size,
            (true, _) => most_per_host % size,
        },
    };
    if options.reorder && spread.reorder_shift == 0 && transport.rank() == 0 && differing.is_empty()
    {
        crate::say!("iolab: --reorder with one rank: there is no other rank's file to read");
    }
    let cluster = Rc::new(Cluster {
        run_id: everyone[0].run_id.clone(),
        transport,
        rank_hosts,
        hosts,
        spread,
        options,
        launcher,
        released_at: Cell::new(0),
        started: Cell::new(false),
        told_stop: Cell::new(false),
        stop_relayed: Cell::new(false),
        lost: RefCell::new(Vec::new()),
    });
    // Kept even when refused below: `finish` ends every rank together, rank
    // 0 only after it has said why.
    CURRENT.with(|c| *c.borrow_mut() = Some(cluster.clone()));
    if !differing.is_empty() {
        // Every rank found the same difference: they all stop with it.
        PLACE.with(|p| p.set((cluster.rank(), true)));
        return Err(usage!("--mpi: {differing}"));
    }
    Ok(Some(cluster))
}

thread_local! {
    /// This process's rank, and whether its last agreement with the other
    /// ranks failed (so every rank stops with the same error).
    static PLACE: Cell<(u32, bool)> = const { Cell::new((0, false)) };
}

/// Whether this process is a rank of a distributed run whose reads go to
/// files another host wrote (`--reorder` over several hosts): no rank's
/// page cache holds what it reads, whatever the cache mode.
pub fn reads_across_hosts() -> bool {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|cluster| cluster.hosts.len() > 1 && cluster.spread.reorder_shift > 0)
    })
}

/// Whether this process is a rank other than 0 of a distributed run, which
/// prints nothing but its own failures: rank 0 speaks for the run.
pub fn is_secondary() -> bool {
    PLACE.with(Cell::get).0 != 0
}

/// Whether the last agreement among the ranks failed, so that every rank
/// stops with the same error (false outside a distributed run).
pub fn failure_is_shared() -> bool {
    PLACE.with(Cell::get).1
}

/// This process's rank (0 outside a distributed run).
pub fn own_rank() -> u32 {
    PLACE.with(Cell::get).0
}

/// Ends this process's part in a distributed run with exit status `code`
/// and returns the status to exit with. `failed_alone` is true when this
/// rank stopped on an error the others did not agree on: then the whole job
/// is aborted (no rank waits for it forever). Otherwise every rank got here
/// the same way: rank 0 exits with its status once it has reported, and the
/// other ranks with 0.
pub fn finish(code: u8, failed_alone: bool) -> u8 {
    let Some(cluster) = CURRENT.with(|c| c.borrow_mut().take()) else {
        return code;
    };
    if !cluster.lost.borrow().is_empty() {
        // A lost rank answers no collective, and MPI_Finalize would wait
        // for it: rank 0 has written what it kept and leaves, and the
        // launcher ends the rest.
        std::mem::forget(cluster);
        return code;
    }
    if failed_alone && !failure_is_shared() {
        cluster.transport.abort(i32::from(code));
    }
    // Rank 0 has printed everything by now; this waits for it. Its status
    // is the run's, unless it succeeded where another rank did not (a
    // file of its own replaced under it, say): then that rank's.
    let codes: Vec<u8> = cluster
        .transport
        .all_gather(&[code])
        .iter()
        .map(|b| b.first().copied().unwrap_or(1))
        .collect();
    let first = codes.first().copied().unwrap_or(code);
    let status = match first {
        0 | 3 => codes
            .iter()
            .copied()
            .find(|c| !matches!(c, 0 | 3))
            .map_or(vec![first], |worse| vec![worse]),
        _ => vec![first],
    };
    let root = cluster.is_root();
    // Dropping the last reference finalizes MPI.
    drop(cluster);
    // Only rank 0 exits with the run's status. mpirun aborts the whole job
    // when any rank exits non-zero, which could kill rank 0 before its
    // message is forwarded; a rank exiting 0 never does. mpirun and srun exit
    // with rank 0's status, so the user sees the run's status and its reason.
    if root {
        status.first().copied().unwrap_or(code)
    } else {
        0
    }
}

/// The introductions that differ from rank 0's, described; empty when none do.
/// The seconds of TCP keepalive idle time above which a lost host is
/// noticed too late: a repetition should fail within about ten seconds.
const KEEPALIVE_NOTICED_S: u64 = 5;

/// What to tell an Open MPI run over several hosts whose daemons would take
/// hours to notice a host gone (Open MPI's out-of-band TCP keepalive idles
/// for hours by default): the flags that make mpirun end the job within
/// seconds, naming the host (measured with scripts/hostlab: 5.8 s after a
/// link went down).
fn lost_host_note(launcher: &str, hosts: usize, keepalive_s: Option<&str>) -> Option<String> {
    let quick = keepalive_s
        .and_then(|s| s.trim().parse::<u64>().ok())
        .is_some_and(|s| s <= KEEPALIVE_NOTICED_S);
    (launcher == "Open MPI mpirun" && hosts > 1 && !quick).then(|| {
        "a host lost mid-run (its link or its power) stops this job only when Open MPI's TCP keepalive \
         gives up, hours by default; give mpirun --mca oob_tcp_keepalive_time 2 --mca oob_tcp_keepalive_intvl 1 \
         --mca oob_tcp_keepalive_probes 3 to end it within seconds, naming the host"
            .to_string()
    })
}

fn differing_ranks(everyone: &[Introduction]) -> String {
    let Some(first) = everyone.first() else {
        return String::new();
    };
    let describe = |i: &Introduction| {
        format!(
            "iolab {}{}{} with arguments '{}'",
            i.version,
            i.commit
                .as_ref()
                .map_or_else(String::new, |c| format!(" (commit {c})")),
            i.build_id.as_ref().map_or_else(String::new, |id| format!(
                " (build {})",
                &id[..id.len().min(12)]
            )),
            i.arguments.join(" ")
        )
    };
    let differing: Vec<String> = everyone
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, i)| {
            (&i.version, &i.commit, &i.build_id, &i.arguments)
                != (
                    &first.version,
                    &first.commit,
                    &first.build_id,
                    &first.arguments,
                )
        })
        .map(|(rank, i)| format!("rank {rank} on {} runs {}", i.host.name, describe(i)))
        .collect();
    if differing.is_empty() {
        return String::new();
    }
    format!(
        "{}, but rank 0 on {} runs {}; every rank must run the same iolab with the same arguments",
        differing.join("; "),
        first.host.name,
        describe(first)
    )
}

/// Two places that answer to one host name — other boots (cloned machines),
/// or other network namespaces of one boot (containers given one name) —
/// described; empty when every name is one host's. Their per-host figures
/// (and which rank samples a host's devices and network) could not be told
/// apart.
fn same_named_hosts(everyone: &[Introduction]) -> String {
    // Host name → the places (boot id, network namespace) and their ranks.
    type Places<'a> = Vec<((&'a str, u64), Vec<usize>)>;
    let mut places: Vec<(&str, Places<'_>)> = Vec::new();
    for (rank, introduction) in everyone.iter().enumerate() {
        let name = introduction.host.name.as_str();
        let place = (
            introduction.host.boot_id.as_str(),
            introduction.net_namespace,
        );
        let index = match places.iter().position(|(n, _)| *n == name) {
            Some(index) => index,
            None => {
                places.push((name, Vec::new()));
                places.len() - 1
            }
        };
        let seen = &mut places[index].1;
        match seen.iter_mut().find(|(p, _)| *p == place) {
            Some((_, ranks)) => ranks.push(rank),
            None => seen.push((place, vec![rank])),
        }
    }
    let Some((name, seen)) = places.into_iter().find(|(_, seen)| seen.len() > 1) else {
        return String::new();
    };
    let listed: Vec<String> = seen
        .iter()
        .map(|(_, ranks)| {
            let listed: Vec<String> = ranks.iter().map(usize::to_string).collect();
            match ranks.len() {
                1 => format!("rank {}", listed[0]),
                _ => format!("ranks {}", listed.join(",")),
            }
        })
        .collect();
    format!(
        "{} hosts are named {name} ({}: other boots or network namespaces); their figures could not be told apart: give each host its own name",
        seen.len(),
        listed.join(" and ")
    )
}

/// For each rank on another boot than rank 0's, its CLOCK_MONOTONIC against
/// rank 0's over [`CLOCK_ROUNDS`] barrier exits; `None` for the ranks of
/// rank 0's boot (one kernel, one clock; a time namespace's offset is read,
/// not measured). Collective: every rank calls it, and only when another
/// boot is in the run does it exchange anything.
fn compare_clocks(
    transport: &dyn Transport,
    rank_hosts: &[HostIdentity],
) -> Vec<Option<ClockComparison>> {
    let root_boot = &rank_hosts[0].boot_id;
    let mut compared = vec![None; rank_hosts.len()];
    if rank_hosts.iter().all(|h| &h.boot_id == root_boot) {
        return compared;
    }
    let mut differences: Vec<Vec<i128>> = vec![Vec::with_capacity(CLOCK_ROUNDS); rank_hosts.len()];
    for _ in 0..CLOCK_ROUNDS {
        transport.barrier();
        let now = clock::now_ns();
        let readings: Vec<u64> = transport
            .all_gather(&now.to_le_bytes())
            .iter()
            .map(|b| b.as_slice().try_into().map_or(0, u64::from_le_bytes))
            .collect();
        for (rank, reading) in readings.iter().enumerate() {
            differences[rank].push(i128::from(*reading) - i128::from(readings[0]));
        }
    }
    for (rank, host) in rank_hosts.iter().enumerate() {
        if &host.boot_id == root_boot {
            continue;
        }
        let mut rounds = std::mem::take(&mut differences[rank]);
        rounds.sort_unstable();
        let (Some(&least), Some(&most)) = (rounds.first(), rounds.last()) else {
            continue;
        };
        compared[rank] = Some(ClockComparison {
            offset_ns: rounds[rounds.len() / 2].clamp(i128::from(i64::MIN), i128::from(i64::MAX))
                as i64,
            spread_ns: (most - least).clamp(0, i128::from(u64::MAX)) as u64,
            rounds: rounds.len() as u32,
        });
    }
    compared
}

/// The distinct hosts, in the order of their first rank.
fn group_hosts(rank_hosts: &[HostIdentity]) -> Vec<Host> {
    let mut hosts: Vec<Host> = Vec::new();
    for (rank, identity) in rank_hosts.iter().enumerate() {
        match hosts.iter_mut().find(|h| &h.identity == identity) {
            Some(host) => host.ranks.push(rank as u32),
            None => hosts.push(Host {
                identity: identity.clone(),
                ranks: vec![rank as u32],
                clock: None,
            }),
        }
    }
    hosts
}

#[cfg(feature = "mpi")]
fn start_transport() -> Result<Box<dyn Transport>, UsageError> {
    mpi_transport::start().map(|t| Box::new(t) as Box<dyn Transport>)
}

#[cfg(not(feature = "mpi"))]
fn start_transport() -> Result<Box<dyn Transport>, UsageError> {
    Err(usage!(
        "--mpi: this iolab was built without MPI; build it with `cargo build --release --features mpi` \
         (Debian: apt install libopenmpi-dev libclang-dev pkg-config; see docs/distributed.md)"
    ))
}

impl Cluster {
    /// This process's rank.
    pub fn rank(&self) -> u32 {
        self.transport.rank()
    }

    /// Whether this is rank 0, which writes the result and prints.
    pub fn is_root(&self) -> bool {
        self.rank() == 0
    }

    /// The run id every rank names its files with (rank 0's).
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The hosts of the run.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// Says, once the run's input is accepted, that it runs as one rank
    /// when no launcher started it; and, on rank 0 of an Open MPI run over
    /// several hosts, when a host lost mid-run would go unnoticed for hours.
    pub fn announce(&self) {
        if self.launcher == NO_LAUNCHER {
            crate::say!(
                "iolab: --mpi outside an MPI launcher (no OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE \
                 or SLURM_STEP_NUM_TASKS): running as one rank; start it with mpirun -np N or srun"
            );
        }
        let keepalive = std::env::var("OMPI_MCA_oob_tcp_keepalive_time").ok();
        if let Some(note) = lost_host_note(&self.launcher, self.hosts.len(), keepalive.as_deref())
            .filter(|_| self.is_root())
        {
            crate::note!("iolab: note: {note}");
        }
    }

    /// The launcher found, for the record.
    pub fn launcher(&self) -> &str {
        &self.launcher
    }

    /// The command-line options.
    pub fn options(&self) -> Options {
        self.options
    }

    /// The reorder shift in use (0 without `--reorder`).
    pub fn reorder_shift(&self) -> u32 {
        self.spread.reorder_shift
    }

    /// Rank 0's list of point indices, on every rank (a resumed grid's
    /// points still to run).
    pub fn share_indices(&self, indices: &[usize]) -> Vec<usize> {
        let bytes = serde_json::to_vec(indices).expect("indices serialize");
        let shared = self.transport.broadcast(&bytes);
        serde_json::from_slice(&shared).unwrap_or_default()
    }

    /// Each host's environment, collected from the lowest rank on it (rank 0 gets them; others get nothing).
    pub fn host_environments(
        &self,
        dir: &std::path::Path,
    ) -> Option<Vec<crate::record::environment::Environment>> {
        let mine = self
            .samples_host()
            .then(|| crate::gather::environment::environment(Some(dir)));
        let bytes = serde_json::to_vec(&mine).expect("an environment serializes");
        let gathered = self.transport.gather(&bytes)?;
        Some(
            gathered
                .iter()
                .filter_map(|b| serde_json::from_slice::<Option<_>>(b).ok().flatten())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_over_hosts_without_a_short_keepalive_is_told_how_to_notice_a_lost_host() {
        let note = lost_host_note("Open MPI mpirun", 3, None).unwrap();
        assert!(note.contains("--mca oob_tcp_keepalive_time 2"), "{note}");
        assert!(lost_host_note("Open MPI mpirun", 3, Some("7200")).is_some());
        assert!(lost_host_note("Open MPI mpirun", 3, Some("2")).is_none());
        assert!(
            lost_host_note("Open MPI mpirun", 1, None).is_none(),
            "one host"
        );
        assert!(lost_host_note("Slurm srun", 3, None).is_none());
    }

    #[test]
    fn two_places_answering_to_one_host_name_are_refused() {
        let rank = |name: &str, boot: &str, net: u64| Introduction {
            version: String::new(),
            commit: None,
            build_id: None,
            arguments: Vec::new(),
            host: HostIdentity {
                name: name.to_string(),
                boot_id: boot.to_string(),
                monotonic_offset_ns: 0,
            },
            net_namespace: net,
            run_id: String::new(),
        };
        // Two ranks of one host, and a host of its own name: fine.
        let fine = [rank("a", "b1", 7), rank("a", "b1", 7), rank("c", "b1", 8)];
        assert_eq!(same_named_hosts(&fine), "");
        // Containers of one boot given one name.
        let namespaces = [rank("a", "b1", 7), rank("a", "b1", 9), rank("a", "b1", 7)];
        assert_eq!(
            same_named_hosts(&namespaces),
            "2 hosts are named a (ranks 0,2 and rank 1: other boots or network namespaces); \
             their figures could not be told apart: give each host its own name"
        );
        // Cloned machines: one name, two boots.
        let clones = [rank("a", "b1", 7), rank("a", "b2", 7)];
        assert!(same_named_hosts(&clones).starts_with("2 hosts are named a"));
    }
}
