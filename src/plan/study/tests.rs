//! The study file reader's tests: the studies it plans and the files it refuses.

mod planned {
    use super::super::*;
    use crate::plan::default_workload;

    const IOZONE: &str = r#"
name = "iozone-matrix"
description = "IOzone's automatic mode: 4 ops, file 64 KiB to 1 MiB, record 4 KiB to 16 MiB"

[repeat]
count = 2

[defaults]
op = ["write", "rewrite", "read", "reread"]
size = "64k..1m"
bs = "4k..16m"

[[sweep]]
label = "buffered"

[[sweep]]
label = "direct"
direct = true
where = ["bs>=4k"]
"#;

    fn plan(text: &str) -> Result<Vec<PlannedPoint>, UsageError> {
        let (study, text) = Study::parse(text, Path::new("s.toml"))?;
        study.plan(&default_workload(), &text, Path::new("s.toml"))
    }

    #[test]
    fn a_guest_table_reads_as_the_guest_flag_and_bad_keys_are_named() {
        let text = "name = \"g\"\n[repeat]\nrounds = 3\norder = \"abba\"\n[guest]\naccel = \"tcg\"\nmemory = 2048\n[[sweep]]\nlabel = \"r\"\nop = \"read\"\n";
        let (study, _) = Study::parse(text, Path::new("s.toml")).unwrap();
        assert_eq!(
            study.guest_text().unwrap().as_deref(),
            Some("accel=tcg,memory=2048")
        );
        assert_eq!(study.repeat.rounds, Some(3));
        let lvm = text.replace("memory = 2048", "lvm = true");
        let (study, _) = Study::parse(&lvm, Path::new("s.toml")).unwrap();
        assert_eq!(
            study.guest_text().unwrap().as_deref(),
            Some("accel=tcg,lvm=on")
        );
        let bad = text.replace("memory = 2048", "speed = \"fast\"");
        let (study, _) = Study::parse(&bad, Path::new("s.toml")).unwrap();
        let error = study.guest_text().unwrap_err().to_string();
        assert!(error.contains("speed=fast"), "{error}");
        let listed = text.replace("memory = 2048", "memory = [1, 2]");
        let (study, _) = Study::parse(&listed, Path::new("s.toml")).unwrap();
        assert!(
            study
                .guest_text()
                .unwrap_err()
                .to_string()
                .contains("[guest] memory")
        );
    }

    /// `[guest_defaults]` fills in what a `--guest` leaves out (Pinilla's
    /// 256 MB) and boots nothing by itself; a key the user gives wins.
    #[test]
    fn guest_defaults_fill_in_the_keys_a_guest_flag_leaves_out() {
        let text = "name = \"g\"\n[guest_defaults]\nmemory = 256\n[[sweep]]\nlabel = \"r\"\nop = \"read\"\n";
        let (study, _) = Study::parse(text, Path::new("s.toml")).unwrap();
        assert_eq!(study.guest_text().unwrap(), None, "no guest forced");
        let given = [
            "accel=tcg".to_string(),
            "memory=2048,accel=tcg".to_string(),
            String::new(),
        ];
        assert_eq!(
            study.with_guest_defaults(&given).unwrap(),
            [
                "memory=256,accel=tcg",
                "memory=2048,accel=tcg",
                "memory=256"
            ]
        );
        let bad = text.replace("memory = 256", "memory = \"lots\"");
        let (study, _) = Study::parse(&bad, Path::new("s.toml")).unwrap();
        let error = study.with_guest_defaults(&given).unwrap_err().to_string();
        assert!(error.contains("memory=lots"), "{error}");
    }

    #[test]
    fn the_iozone_matrix_buffered_and_direct() {
        let points = plan(IOZONE).unwrap();
        assert_eq!(points.len(), 2 * 35 * 4);
        assert_eq!(points[0].label, "buffered: write seq 4KiB psync file 64KiB");
        assert!(
            points[140]
                .label
                .starts_with("direct: write seq 4KiB psync direct")
        );
        assert!(points.iter().all(|p| p.workload().repeat == 2));
        assert_eq!(
            plan(IOZONE).unwrap().len(),
            points.len(),
            "the same file, the same plan"
        );
    }

    #[test]
    fn keys_are_the_flags_names_and_their_underscore_spellings() {
        for key in ["fsync-every", "fsync_every"] {
            let text = format!(
                "name = \"x\"\n[[sweep]]\nlabel = \"a\"\nop = \"write\"\nsize = \"64k\"\n{key} = 4\n"
            );
            let points = plan(&text).unwrap();
            assert_eq!(points[0].workload().fsync_every, 4, "{key}");
        }
    }

    #[test]
    fn errors_name_the_line() {
        let unknown = IOZONE.replace(
            "label = \"direct\"",
            "label = \"direct\"\nblocksize = \"4k\"",
        );
        let error = plan(&unknown).unwrap_err().to_string();
        assert!(
            error.contains("line 18") && error.contains("blocksize"),
            "{error}"
        );
        let wrong_type = IOZONE.replace("count = 2", "count = \"two\"");
        let error = plan(&wrong_type).unwrap_err().to_string();
        assert!(error.contains("line 6"), "{error}");
        let bad_value = IOZONE.replace("bs = \"4k..16m\"", "bs = \"16m..4k\"");
        let error = plan(&bad_value).unwrap_err().to_string();
        assert!(
            error.contains("line 11") && error.contains("backwards"),
            "{error}"
        );
        let empty = IOZONE.replace("where = [\"bs>=4k\"]", "where = [\"bs>16m\"]");
        let error = plan(&empty).unwrap_err().to_string();
        assert!(
            error.contains("line 17") && error.contains("remove every point"),
            "{error}"
        );
        assert!(
            plan("name = \"x\"\n")
                .unwrap_err()
                .to_string()
                .contains("no [[sweep]]")
        );
        assert!(error.lines().count() == 1);
    }

    #[test]
    fn one_draw_repeated_on_purpose() {
        let text = IOZONE.replace(
            "[repeat]\ncount = 2\n",
            "[repeat]\ncount = 2\nsame_draws = true\n",
        );
        assert!(plan(&text).unwrap().iter().all(|p| p.workload().same_draws));
        assert!(
            plan(IOZONE)
                .unwrap()
                .iter()
                .all(|p| !p.workload().same_draws)
        );
    }

    #[test]
    fn adaptive_repetitions_per_sweep() {
        let text = format!("{IOZONE}\n[sweep.repeat]\nuntil_ci = \"2%\"\nmax = 8\n");
        let points = plan(&text).unwrap();
        let direct = points
            .iter()
            .find(|p| p.label.starts_with("direct"))
            .unwrap();
        assert_eq!(
            (
                direct.workload().until_ci,
                direct.workload().repeat,
                direct.workload().max_repeat
            ),
            (Some(0.02), 3, Some(8))
        );
    }
}

mod hostile_input {
    //! Study files are planned or refused with a message: no text, however
    //! odd its keys, values or sizes, panics or expands without bound.
    //! (Fuzzed further by fuzz/fuzz_targets/study_file.rs.)
    use super::super::*;
    use crate::plan::default_workload;
    use proptest::prelude::*;

    const KEYS: &[&str] = &[
        "name",
        "description",
        "dir",
        "label",
        "bs",
        "size",
        "op",
        "engine",
        "pattern",
        "iodepth",
        "jobs",
        "seed",
        "runtime",
        "count",
        "until_ci",
        "min",
        "max",
        "warmup",
        "constraints",
        "interval",
        "steady",
        "latency_target",
        "priority",
        "cache",
        "direct",
        "colour",
    ];
    const VALUES: &[&str] = &[
        "\"s\"",
        "\"\"",
        "\"4k\"",
        "\"4k..1m\"",
        "\"0..99999/+1\"",
        "\"1..1000000/*2\"",
        "\"read,write\"",
        "\"stride:0\"",
        "\"1s\"",
        "\"0s\"",
        "\"5%\"",
        "1",
        "0",
        "-1",
        "99999999999999999999",
        "true",
        "[\"bs <= size\"]",
        "[\"bs >\"]",
        "\"a/b\"",
        "\"\\u0000\"",
        "\"é\"",
    ];
    const TABLES: &[&str] = &[
        "[[sweep]]",
        "[defaults]",
        "[repeat]",
        "[sweep.repeat]",
        "[[sweeps]]",
    ];

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            (0..KEYS.len(), 0..VALUES.len())
                .prop_map(|(k, v)| format!("{} = {}", KEYS[k], VALUES[v])),
            (0..TABLES.len()).prop_map(|t| TABLES[t].to_string()),
            "\\PC{0,20}",
        ]
    }

    proptest! {
        #[test]
        fn any_study_is_planned_or_refused(lines in proptest::collection::vec(line(), 0..24)) {
            let text = format!("name = \"fuzz\"\n{}", lines.join("\n"));
            let source = Path::new("fuzz.toml");
            if let Ok((study, text)) = Study::parse(&text, source) {
                if let Ok(points) = study.plan(&default_workload(), &text, source) {
                    prop_assert!(points.len() <= crate::plan::sweep::MAX_POINTS);
                }
            }
        }
    }
}
