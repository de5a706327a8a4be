//! The translation of whole job files: phases, groups, notes and every refusal by file, line and key.

use super::*;
use crate::plan::{Op, Pattern};
use text::{evaluate, is_expression};

const FACTS: Facts = Facts {
    ncpus: 4,
    mb_memory: 2048,
    pagesize: 4096,
};

fn read(text: &str) -> Result<JobFile, String> {
    let env = |name: &str| (name == "SIZE").then(|| "16m".to_string());
    let given = Given {
        arguments: None,
        file: None,
        length: &|_| None,
        capacity: &|url| match url {
            "iscsi://h/iqn.x:y/2" => Ok(64 << 20),
            _ => Err("no route to host".to_string()),
        },
        options: &[],
        node_cpus: &|node| (node == 0).then(|| "0-3\n".to_string()),
        include: &|path| match path.to_str() {
            Some("common.fio") => Ok("bs=64k\n".to_string()),
            Some("loop.fio") => Ok("include loop.fio\n".to_string()),
            _ => Err("does not exist".to_string()),
        },
    };
    translate(text, "t.fio", FACTS, &env, given).map_err(|e| e.to_string())
}

#[test]
fn global_is_inherited_and_each_section_is_a_group() {
    let file = read(
        "; a reader and a logger\n[global]\nsize=${SIZE}\ndirect\nruntime=2\ntime_based\n\
         \n[reader]\nrw=randread\nbs=8k\nnumjobs=2\n[logger]\nrw=write\nbs=4k\nrate_iops=500\nsync=dsync\n",
    )
    .unwrap();
    assert_eq!(file.phases.len(), 1);
    let groups = &file.phases[0];
    assert_eq!(groups[0].name, "reader");
    let reader = &groups[0].workload;
    assert_eq!(
        (reader.op, reader.pattern, reader.bs, reader.jobs),
        (Op::Read, Pattern::Random, 8192, 2)
    );
    assert_eq!((reader.size, reader.direct), (16 << 20, true));
    assert_eq!(reader.runtime_s, Some(2.0));
    let logger = &groups[1].workload;
    assert_eq!(logger.op, Op::Write, "new files, as fio makes them");
    assert_eq!(logger.target_iops(), Some(500.0));
}

#[test]
fn stonewall_and_wait_for_make_phases() {
    let file = read(
        "[global]\nsize=1m\n[a]\nrw=write\n[b]\nrw=read\nstonewall\n[c]\nrw=read\n[d]\nrw=read\nwait_for=a\n",
    )
    .unwrap();
    let names: Vec<Vec<&str>> = file
        .phases
        .iter()
        .map(|p| p.iter().map(|g| g.name.as_str()).collect())
        .collect();
    // [d] waits for [a] alone: it starts with [b] and [c], as in fio.
    assert_eq!(names, [vec!["a"], vec!["b", "c", "d"]]);
    let file =
        read("[global]\nsize=1m\n[a]\nrw=write\n[b]\nrw=read\nwait_for=a\n[c]\nwait_for=b\n")
            .unwrap();
    assert_eq!(file.phases.len(), 3, "each waits for the phase running");
}

/// fio's aliases and inverses read as the options they stand for
/// (fio 3.33's option table): `timeout` is `runtime`, `buffered=0` is
/// `direct=1`, `wait_for_previous` is `stonewall`; `verify=0`, fio's
/// default, runs nothing and says so.
#[test]
fn aliases_and_inverses_are_the_options_they_stand_for() {
    let file = read(
        "[a]\nsize=1m\nrw=read\ntimeout=3\ntime_based\nbuffered=0\nverify=0\n[b]\nsize=1m\nrw=read\nwait_for_previous\nbuffered\n",
    )
    .unwrap();
    let a = &file.phases[0][0].workload;
    assert_eq!((a.runtime_s, a.direct), (Some(3.0), true));
    assert_eq!(file.phases.len(), 2, "b waits for a");
    assert!(!file.phases[1][0].workload.direct, "buffered is direct=0");
    assert!(
        file.notes.iter().any(|n| n.starts_with("verify=0")),
        "{:?}",
        file.notes
    );
    assert!(
        read("[a]\nsize=1m\nverify=crc32c\n").is_err(),
        "a read's verify"
    );
    let sealed = read("[a]\nsize=1m\nrw=write\nverify=crc32c\n").unwrap();
    assert!(sealed.phases[0][0].workload.verify);
    // fio's verify switches iolab's check meets as it is, each said.
    let fatal =
        read("[a]\nsize=1m\nrw=write\nverify=crc32c\nverify_fatal=1\nverify_async=2\n").unwrap();
    assert!(fatal.phases[0][0].workload.verify);
    assert!(
        fatal
            .notes
            .iter()
            .any(|n| n.starts_with("verify_fatal=1: no effect"))
    );
    assert!(read("[a]\nsize=1m\nrw=write\nverify=crc32c\nverify_state_load=1\n").is_err());
    // fio's verify_interval: iolab's one header per block, and no other.
    assert!(read("[a]\nsize=1m\nrw=write\nbs=64k\nverify=md5\nverify_interval=64k\n").is_ok());
    let per_sector = read("[a]\nsize=1m\nrw=write\nbs=64k\nverify=md5\nverify_interval=512\n");
    assert!(
        per_sector
            .unwrap_err()
            .to_string()
            .contains("one header per block of bs=65536")
    );
    // verify_pattern alone verifies, the pattern in the buffers.
    let pattern = read("[a]\nsize=1m\nrw=write\nverify_pattern=0xaa55\n").unwrap();
    let workload = &pattern.phases[0][0].workload;
    assert!(workload.verify);
    assert_eq!(workload.data.to_string(), "pattern:0xaa55");
    let unchecked = read("[a]\nsize=1m\nrw=write\nverify=md5\ndo_verify=0\n").unwrap();
    assert!(!unchecked.phases[0][0].workload.verify);
    let mapped = read("[a]\nsize=1m\nrw=randread\nbssplit=4k/50:64k/50\n").unwrap();
    assert_eq!(mapped.phases[0][0].workload.pattern, Pattern::Random);
    assert!(mapped.notes.iter().any(|n| n.contains("random map")));
    let unmapped = read("[a]\nsize=1m\nrw=randread\nbssplit=4k/50:64k/50\nnorandommap\n").unwrap();
    assert_eq!(unmapped.phases[0][0].workload.pattern, Pattern::Uniform);
}

#[test]
fn reserved_words_and_arithmetic() {
    let file = read("[j]\nsize=$mb_memory/512*1m\nbs=($pagesize*2)\nnumjobs=$ncpus-2\n").unwrap();
    let w = &file.phases[0][0].workload;
    assert_eq!((w.size, w.bs, w.jobs), (4 << 20, 8192, 2));
    assert_eq!(evaluate("(1+2)*3k"), Some(9216));
    assert_eq!(evaluate("1-2"), None);
    assert_eq!(evaluate("4/0"), None);
    // Found by the fuzz target: a value starting with a character of two bytes.
    assert!(!is_expression("ܗb"));
    assert!(read("[a]\nrate=ܗb_memory/yy\n").is_err());
    assert_eq!(
        evaluate(&format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000))),
        None
    );
}

#[test]
fn what_cannot_be_run_is_refused_by_file_line_and_key() {
    for (text, words) in [
        (
            "[j]\nsize=1m\nverify=crc32c\n",
            "t.fio line 3: [j] verify=crc32c: rw=read verifies headers",
        ),
        (
            "[j]\nsize=1m\nrw=write\nverify=pattern\n",
            "t.fio line 4: [j] verify=pattern: iolab checks",
        ),
        (
            "[j]\ninclude other.fio\n",
            "t.fio line 2: include other.fio: does not exist",
        ),
        // The engine, not the options that come with it, and what
        // iolab offers instead.
        (
            "[global]\nhttp_verbose=1\nioengine=http\n[j]\nsize=1m\n",
            "t.fio line 3: [global] ioengine=http has no iolab equivalent; iolab's network clients are NFS and iSCSI",
        ),
        (
            "[j]\ninclude loop.fio\n",
            "loop.fio line 1: include loop.fio: it includes itself (a cycle)",
        ),
        (
            "[j]\nsize=${NOPE}\n",
            "t.fio line 2: size: ${NOPE} is not set",
        ),
        // An engine iolab lacks is said before an unset variable, as
        // it is before the engine's own options.
        (
            "[global]\nhttp_s3_key=${NOPE}\n[j]\nioengine=http\nsize=1m\n",
            "t.fio line 4: [j] ioengine=http has no iolab equivalent",
        ),
        (
            "[j]\nioengine=${NOPE}\nsize=1m\n",
            "t.fio line 2: ioengine: ${NOPE} is not set",
        ),
        (
            "[j]\nbs=${NOPE}\nsize=1m\n",
            "t.fio line 2: bs: ${NOPE} is not set",
        ),
        (
            "[j]\nsize=1m\nwait_for=x\n",
            "t.fio line 3: [j] wait_for=x names no job",
        ),
        (
            "[a]\nsize=1m\nwait_for=b\n[b]\nsize=1m\nwait_for=a\n",
            "loop of wait_for",
        ),
        ("[j]\nsize=1m\nwait_for=j\n", "waits for itself"),
        (
            "[j]\nsize=1m\nfilename=a:b\n",
            "line 3: [j] filename=a:b names several files",
        ),
        (
            "[j]\nfilename=/etc/passwd\n",
            "line 2: [j] filename=/etc/passwd: no size= and the file cannot be read",
        ),
        (
            "[a]\nsize=1m\n[b]\nsize=1m\nfilename=f\n",
            "line 5: [b] filename=f: [a] makes its own files",
        ),
        (
            "[a]\nsize=1m\nfilename=f\n[b]\nsize=1m\nfilename=g\n",
            "line 6: [b] filename=g: iolab runs the jobs of one phase on one file, and line 3 gives f (a stonewall before [b]",
        ),
        ("[j]\nsize=50%\n", "line 2: [j] size=50% is not a size"),
        (
            "[j]\nsize=1m\nrw=randread:8\n",
            "line 3: [j] rw=randread:8: fio makes 8 I/Os in a row",
        ),
        (
            "[j]\nsize=1m\nrw=read:-12k\n",
            "line 3: [j] rw=read:-12k: each I/O 2 blocks before",
        ),
        (
            "[j]\nsize=1m\nrw=read:6k\n",
            "line 3: [j] rw=read:6k: a skip of 6144 bytes is not a whole number",
        ),
        (
            "[j]\nioengine=libiscsi\nfilename=iscsi\\://h/iqn.x\\:y/1\n",
            "line 3: [j] no size= and the LUN's capacity cannot be read (no route to host)",
        ),
        (
            "[j]\nioengine=nfs\nnfs_url=/export\nsize=1m\n",
            "line 2: [j] ioengine=nfs: nfs_url=/export is not a nfs:// URL",
        ),
        (
            "[a]\nsize=1m\n[b]\nioengine=nfs\nnfs_url=nfs://h/e\nsize=1m\n",
            "line 4: [b] nfs://h/e: [a] works on local files",
        ),
        (
            "[j]\nsize=1m\nrw=rw:4k\n",
            "line 3: [j] rw=rw:4k: a skip on a mix",
        ),
        (
            "[j]\nsize=1m\nioengine=splice\n",
            "line 3: [j] ioengine=splice has no iolab equivalent",
        ),
        // fio's exitall stops a fio group that is neither one group
        // nor the phase: iolab has no such scope.
        (
            "[global]\nexitall\nsize=1m\n[a]\n[b]\n[c]\nnew_group\n",
            "line 4: [a] exitall: fio stops [a], [b] together",
        ),
        (
            "[j]\nexitall\nexit_what=some\nsize=1m\n",
            "line 3: [j] exit_what=some: fio takes group, stonewall or all",
        ),
        (
            "[j]\nsize=1m\nrw=randread\nzonemode=strided\nzonesize=256k\n",
            "[j] zonemode=strided on rw=randread",
        ),
        // fio counts every job's weight from the start: a flow across
        // phases holds the first phase back forever.
        (
            "[global]\nsize=1m\n[a]\nflow=1\n[b]\nstonewall\nflow=2\n",
            "line 7: [b] flow_id=0: a flow in two phases",
        ),
        (
            "[j]\nsize=1m\nzonemode=zbd\nmax_open_zones=4\n",
            "line 3: [j] zonemode=zbd without zonesize",
        ),
        (
            "[j]\nsize=2z\nzonemode=zbd\n",
            "line 2: [j] size=2z counts zones: give zonesize=",
        ),
        (
            "[j]\nsize=1m\nzonemode=zbd\nzonesize=1m\njob_max_open_zones=2\n",
            "line 5: job_max_open_zones: iolab limits the zones written at once",
        ),
        (
            "[j]\nsize=48k\nrw=randrw\nrandom_distribution=sequence:2,0,1\n",
            "line 4: [j] random_distribution=sequence:2,0,1: on a mix fio walks the list once per direction",
        ),
        (
            "[j]\nsize=48k\nrw=randread\nruntime=1\ntime_based\nrandom_sequence_stride=1\nrandom_distribution=sequence:2,0,1\n",
            "line 7: [j] random_distribution=sequence:2,0,1: random_sequence_stride=1 on a job of several passes",
        ),
        (
            "[j]\nsize=48k\nrw=randread\nrandom_distribution=sequence:2,x\n",
            "line 4: [j] random_distribution=sequence:2,x: 'x' is not a block number",
        ),
        (
            "[j]\nsize=1m\nss_interval=often\n",
            "line 3: [j] steadystate_check_interval=often is not a time",
        ),
        (
            "[global]\nsize=1m\n[a]\n[b]\nss_interval=2\n",
            "line 5: [b] steadystate_check_interval=2: an earlier section has fio's default, 1 s",
        ),
        ("size=1m\n", "line 1: an option before any [section]"),
        ("[global]\nsize=1m\n", "no job section"),
        ("[j\n", "line 1: a section header ends with ]"),
    ] {
        let error = read(text).unwrap_err();
        assert!(error.contains(words), "{text:?}: {error}");
    }
}

fn fragment() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("[global]".to_string()),
        "\\[[a-z0-9.]{0,6}\\]",
        Just("stonewall".to_string()),
        "(rw|bs|size|numjobs|wait_for|runtime|iodepth|ioengine|rate_iops|exitall|exit_what|new_group)=[a-z0-9$(){}*/+.-]{0,10}",
        "\\PC{0,20}",
    ]
}

proptest::proptest! {
    #[test]
    fn any_job_file_is_translated_or_refused(lines in proptest::collection::vec(fragment(), 0..16)) {
        if let Ok(file) = read(&lines.join("\n")) {
            for group in file.phases.iter().flatten() {
                proptest::prop_assert!(name_problem(&group.name).is_none(), "{}", group.name);
            }
        }
    }
}

#[test]
fn a_skip_after_each_io_is_a_stride_and_a_step_back_a_reverse() {
    for (rw, pattern) in [
        ("read:4k", Pattern::Stride(2)),
        ("read:8k", Pattern::Stride(3)),
        ("write:0", Pattern::Seq),
        ("read:-8k", Pattern::Reverse),
    ] {
        let job = read(&format!("[j]\nsize=1m\nbs=4k\nrw={rw}\n")).unwrap();
        let workload = &job.phases[0][0].workload;
        assert_eq!(workload.pattern, pattern, "{rw}");
        assert_eq!(workload.op.writes(), rw.starts_with("write"), "{rw}");
        assert_eq!(
            job.notes.len(),
            usize::from(pattern != Pattern::Seq),
            "{rw}"
        );
    }
}

#[test]
fn section_names_become_group_names() {
    assert_eq!(group_name("seq.read", &[]), "seq-read");
    assert_eq!(group_name("1", &[]), "job-1");
    assert_eq!(group_name("a", &["a".to_string()]), "a-2");
    assert_eq!(group_name("all", &[]), "job-all");
    assert_eq!(group_name("read", &[]), "job-read");
}

#[test]
fn an_include_reads_its_options_in_place_as_fio_does() {
    let file = read("[global]\nbs=4k\ninclude common.fio\n[a]\nsize=1m\nrw=read\n").unwrap();
    assert_eq!(
        file.phases[0][0].workload.bs,
        64 << 10,
        "the include's bs=64k, after bs=4k"
    );
    let file = read("[global]\ninclude common.fio\nbs=4k\n[a]\nsize=1m\nrw=read\n").unwrap();
    assert_eq!(file.phases[0][0].workload.bs, 4 << 10, "a later bs=4k wins");
}

#[test]
fn flow_keys_are_a_flow_share_and_nothing_without_a_weight() {
    let job =
        read("[global]\nsize=1m\n[a]\nflow=8\nflow_id=3\nflow_sleep=250\n[b]\nflow_sleep=100\n")
            .unwrap();
    let group = |i: usize| job.phases[0][i].workload.flow;
    assert_eq!(
        group(0),
        Some(crate::plan::Flow {
            weight: 8,
            id: 3,
            sleep_ns: 250_000
        })
    );
    assert_eq!(group(1), None);
    for (text, key) in [
        ("[j]\nsize=1m\nflow=1001\n", "flow=1001"),
        ("[j]\nsize=1m\nflow=-1\n", "flow=-1"),
    ] {
        let error = read(text).unwrap_err();
        assert!(error.contains(key), "{text}: {error}");
    }
}

/// fio 3.42's listed blocks: the list, and whether rounds advance.
#[test]
fn a_sequence_distribution_is_the_listed_blocks() {
    let job = read(
        "[global]\nrw=randread\nsize=48k\nrandom_distribution=sequence:2,0,1\n[a]\n[b]\nstonewall\nrandom_sequence_stride=1\n[c]\nstonewall\nrw=read\n",
    )
    .unwrap();
    let pattern = |phase: usize| job.phases[phase][0].workload.pattern.to_string();
    assert_eq!(pattern(0), "sequence:2:0:1");
    assert_eq!(pattern(1), "sequence-stride:2:0:1");
    // fio ignores a distribution on a sequential job, and so does iolab.
    assert_eq!(pattern(2), "seq");
}

/// fio's NUMA keys: a node's CPUs (read from this machine) as --cpus, the
/// memory policy as --mem-policy; a node not here refused, as fio does.
#[test]
fn numa_nodes_are_their_cpus_and_the_memory_policy_is_kept() {
    let job = read("[j]\nsize=1m\nnuma_cpu_nodes=0\nnuma_mem_policy=interleave:0\n").unwrap();
    let workload = &job.phases[0][0].workload;
    assert_eq!(workload.cpus.map(|c| c.to_string()).as_deref(), Some("0-3"));
    assert_eq!(
        workload.mem_policy.map(|p| p.to_string()).as_deref(),
        Some("interleave:0")
    );
    for (text, words) in [
        (
            "[j]\nsize=1m\nnuma_cpu_nodes=0-1\n",
            "line 3: [j] numa_cpu_nodes=0-1: this machine has no NUMA node 1",
        ),
        (
            "[j]\nsize=1m\ncpus_allowed=1\nnuma_cpu_nodes=0\n",
            "numa_cpu_nodes=0: beside cpus_allowed",
        ),
        (
            "[j]\nsize=1m\nnuma_mem_policy=spread:0\n",
            "line 3: [j] numa_mem_policy=spread:0",
        ),
    ] {
        let error = read(text).unwrap_err();
        assert!(error.contains(words), "{text:?}: {error}");
    }
}

#[test]
fn each_phase_names_its_own_file() {
    let file = read(
        "[global]\nsize=1m\n[a]\nfilename=/dev/zero\nnumjobs=2\n[b]\nfilename=/dev/zero\n\
         [c]\nstonewall\nfilename=/dev/null\nrw=write\n[d]\nstonewall\nfilename=/dev/null\n",
    )
    .unwrap();
    assert_eq!(file.phases.len(), 3);
    let files: Vec<(&str, Option<&str>)> = file
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.named_at.as_deref()))
        .collect();
    assert_eq!(
        files,
        [
            ("/dev/zero", Some("t.fio line 4: filename=/dev/zero")),
            ("/dev/null", Some("t.fio line 10: filename=/dev/null")),
            ("/dev/null", Some("t.fio line 14: filename=/dev/null")),
        ]
    );
    // Files iolab makes: none named.
    assert!(
        read("[a]\nsize=1m\n[b]\nstonewall\nsize=1m\n")
            .unwrap()
            .files
            .is_empty()
    );
}

/// fio drops `time_based` without a runtime (it says it needs one) and
/// runs the job once through: so does iolab, with a note.
#[test]
fn time_based_without_a_runtime_runs_once_through_as_fio_runs_it() {
    let file = read("[a]\nsize=1m\nrw=read\ntime_based\n").unwrap();
    let workload = &file.phases[0][0].workload;
    assert_eq!(workload.runtime_s, None);
    assert!(
        file.notes
            .iter()
            .any(|n| n.starts_with("time_based without runtime: dropped")),
        "{:?}",
        file.notes
    );
}

/// fio's lfsr never draws an offset twice, map or no map: with
/// norandommap it is iolab's random order without repeats, where fio's
/// default generator without its map draws with replacement.
#[test]
fn lfsr_without_the_random_map_still_never_repeats_a_block() {
    let pattern = |extra: &str| {
        let file = read(&format!("[a]\nsize=1m\nrw=randread\nnorandommap\n{extra}")).unwrap();
        file.phases[0][0].workload.pattern
    };
    assert_eq!(pattern("random_generator=lfsr\n"), Pattern::Random);
    assert_eq!(pattern(""), Pattern::Uniform);
    assert_eq!(pattern("random_generator=tausworthe\n"), Pattern::Uniform);
}

/// fio's null engine queues up to iodepth; iolab's runs one I/O at a
/// time, and says so rather than dropping the depth without a word.
#[test]
fn a_null_engines_depth_is_named_in_a_note() {
    let file = read("[a]\nsize=1m\nrw=read\nioengine=null\niodepth=16\n").unwrap();
    assert!(
        file.notes
            .iter()
            .any(|n| n.starts_with("iodepth=16 on the null engine")),
        "{:?}",
        file.notes
    );
    let file = read("[a]\nsize=1m\nrw=read\nioengine=null\n").unwrap();
    assert!(
        !file.notes.iter().any(|n| n.contains("null engine")),
        "{:?}",
        file.notes
    );
}

/// fio's block-size spellings: `bsrange` with `:` as with `-`; an empty
/// part of `bs` is fio's default (`bs=8k,32k,`: trims of 4 KiB, `bs=,8k`:
/// reads of 4 KiB); a size that is no whole number of the smallest of a
/// range's sizes is rounded down to it, as fio's min_bs rounds it
/// (fio 3.33: `size=1051748` with `bsrange=1k:4k` moves 1,051,648 bytes).
#[test]
fn block_sizes_as_fio_spells_them() {
    let workload = |text: &str| read(text).unwrap().phases[0][0].workload.clone();
    let colon = workload("[a]\nsize=1m\nrw=randread\nbsrange=1k:4k\n");
    let dash = workload("[a]\nsize=1m\nrw=randread\nbsrange=1k-4k\n");
    assert_eq!((colon.bs, colon.bssplit), (dash.bs, dash.bssplit));
    assert_eq!(colon.bs, 1024);
    assert_eq!(workload("[a]\nsize=1m\nrw=randtrim\nbs=8k,32k,\n").bs, 4096);
    assert_eq!(
        workload("[a]\nsize=1m\nrw=randwrite\nbs=8k,32k,\n").bs,
        32768
    );
    assert_eq!(workload("[a]\nsize=1m\nrw=read\nbs=,8k\n").bs, 4096);
    assert_eq!(workload("[a]\nsize=1m\nrw=write\nbs=,8k\n").bs, 8192);
    for sizes in ["bsrange=1k:4k", "bssplit=1k/50:4k/50"] {
        let file = read(&format!("[a]\nsize=1051748\nrw=randread\n{sizes}\n")).unwrap();
        assert_eq!(file.phases[0][0].workload.size, 1_051_648, "{sizes}");
        assert!(
            file.notes
                .iter()
                .any(|n| n.contains("the smallest of its sizes")),
            "{:?}",
            file.notes
        );
    }
}

/// A file engine's job ends once its files add up to `size`, as fio's
/// does (fio 3.33 ran fio's filecreate example with `--size=2m` as 512
/// creates a job, not its 31,250): `nrfiles` when the size is larger or
/// not given.
#[test]
fn a_file_engines_size_caps_its_files() {
    let items = |extra: &str| {
        let text = format!(
            "[global]\nioengine=filecreate\ncreate_on_open=1\nnrfiles=31250\nfilesize=4k\n{extra}[t0]\n"
        );
        read(&text).unwrap().phases[0][0].workload.items
    };
    assert_eq!(items(""), Some(31250));
    assert_eq!(items("size=2m\n"), Some(512));
    assert_eq!(items("size=1g\n"), Some(31250));
}

/// offset_increment without size: every job gets the last job's region
/// (4 MiB from the first offset, two jobs 1 MiB apart: 3 MiB) when each
/// job's io_size, times its loops, fits in it sequentially; not when it
/// does not, nor on a random pattern, whose draws span each job's region.
#[test]
fn increments_to_the_end_give_the_last_jobs_region() {
    let options = |pairs: &[(&str, &str)]| -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect()
    };
    let job = |extra: &[(&str, &str)]| {
        let mut pairs = vec![("numjobs", "2"), ("rw", "write"), ("io_size", "256k")];
        pairs.extend_from_slice(extra);
        checks::last_jobs_region(&options(&pairs), "1m", 4 << 20, 1024)
    };
    assert_eq!(job(&[("loops", "3")]), Ok(3 << 20));
    assert!(job(&[("loops", "16")]).unwrap_err().contains("times loops"));
    assert!(job(&[("rw", "randwrite")]).unwrap_err().contains("random"));
}
