//! Block devices as targets (root, real loop devices): reads are allowed,
//! writes only with `--destroy-data` repeating the device and nothing on it;
//! every refusal is one line, exit 2, and not a byte of the device changes.

use crate::mounts::{LoopDevice, LoopFs, have, root_or_skip, run};
use crate::util::*;
use std::path::Path;

/// The byte a fresh test device is filled with: no signature starts with it.
const FILL: u8 = 0xab;

fn device_or_skip(parent: &Path, partitions: bool) -> Option<LoopDevice> {
    LoopDevice::or_skip(parent, 32, FILL, partitions)
}

/// Asserts `iolab run ARGS` is refused in one line naming every `expected`,
/// with exit status 2 and nothing on stdout.
fn assert_device_refused(args: &[&str], expected: &[&str]) {
    let output = iolab().arg("run").args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(crate::util::message_lines(&stderr), 1, "{args:?}: {stderr}");
    for text in expected {
        assert!(
            stderr.contains(text),
            "{args:?} must name {text:?}: {stderr}"
        );
    }
    assert!(output.stdout.is_empty());
}

#[test]
fn a_device_is_read_and_recorded_as_a_device() {
    let temp = scratch();
    let Some(device) = device_or_skip(temp.path(), false) else {
        return;
    };
    let out = scratch();
    let result = run_ok(
        &[
            "run",
            "--file",
            device.path(),
            "--bs",
            "64k",
            "--cache",
            "cold",
        ],
        out.path(),
    );
    let point = first_point(&result);
    assert_eq!(
        point["workload"]["size"],
        32 << 20,
        "the whole device by default"
    );
    assert_eq!(point["repetitions"][0]["bytes"], 32 << 20);
    assert_eq!(point["target"]["filesystem"], "block device");
    assert_eq!(point["target"]["files"][0], device.path());
    let storage = &result["environment"]["storage"];
    assert_eq!(storage["filesystem"], "none (block device)");
    assert_eq!(storage["devices"][0]["kind"], "loop", "{storage}");
    assert!(
        std::fs::read(device.image())
            .unwrap()
            .iter()
            .all(|&b| b == FILL),
        "a read changes nothing"
    );
}

#[test]
fn writing_a_device_needs_the_device_repeated_exactly() {
    let temp = scratch();
    let Some(device) = device_or_skip(temp.path(), false) else {
        return;
    };
    let dev = device.path();
    let file = temp.path().join("plain");
    std::fs::write(&file, [0u8; 8192]).unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--file", dev, "--op", "rewrite"],
            &["is a block device", &format!("--destroy-data={dev}")],
        ),
        (
            &[
                "--file",
                dev,
                "--op",
                "rewrite",
                "--destroy-data",
                "/dev/sda",
            ],
            &[
                "--destroy-data /dev/sda does not repeat",
                &format!("exactly --destroy-data={dev}"),
            ],
        ),
        (
            &[
                "--file",
                dev,
                "--op",
                "rewrite",
                "--destroy-data",
                &format!("{dev}/"),
            ],
            &["does not repeat"],
        ),
        (
            &["--file", dev, "--op", "read", "--destroy-data", dev],
            &["--destroy-data is for write tests", "--op read"],
        ),
        (
            &[
                "--file",
                file.to_str().unwrap(),
                "--op",
                "rewrite",
                "--destroy-data",
                dev,
            ],
            &["is not one"],
        ),
        (&["--destroy-data", dev], &["--file"]),
        (
            &["--file", dev, "--op", "write", "--destroy-data", dev],
            &["--op rewrite"],
        ),
    ];
    for (args, expected) in cases {
        assert_device_refused(args, expected);
    }
    // A job file's filename= is named by its file and line, not as --file.
    let job = temp.path().join("dev.fio");
    std::fs::write(&job, format!("[w]\nrw=write\nsize=1m\nfilename={dev}\n")).unwrap();
    assert_device_refused(
        &[job.to_str().unwrap()],
        &[
            &format!("dev.fio line 4: filename={dev} is a block device"),
            &format!("--destroy-data={dev}"),
        ],
    );
    // A second phase's device is checked as the first's, before any I/O:
    // the consent names the device that is written, not the one read.
    let other_dir = scratch();
    let Some(other) = device_or_skip(other_dir.path(), false) else {
        return;
    };
    let read_only = other.path();
    let two = temp.path().join("two.fio");
    std::fs::write(
        &two,
        format!(
            "[r]\nrw=read\nsize=1m\nfilename={read_only}\n\
             [w]\nstonewall\nrw=write\nsize=1m\nfilename={dev}\n"
        ),
    )
    .unwrap();
    assert_device_refused(
        &[two.to_str().unwrap()],
        &[&format!("two.fio line 9: filename={dev} is a block device")],
    );
    assert_device_refused(
        &[two.to_str().unwrap(), "--destroy-data", read_only],
        &[&format!("exactly --destroy-data={dev}")],
    );
    for image in [device.image(), other.image()] {
        assert!(std::fs::read(image).unwrap().iter().all(|&b| b == FILL));
    }
    // Consented: the written device changes, the read one does not.
    let out = scratch();
    run_ok(
        &["run", two.to_str().unwrap(), "--destroy-data", dev],
        out.path(),
    );
    assert!(
        std::fs::read(other.image())
            .unwrap()
            .iter()
            .all(|&b| b == FILL),
        "the device only read is as it was"
    );
    assert!(
        std::fs::read(device.image()).unwrap()[..1 << 20]
            .iter()
            .any(|&b| b != FILL),
        "the consented device was written"
    );
    drop(other);
    let image = std::fs::read(device.image()).unwrap();
    std::fs::write(device.image(), vec![FILL; image.len()]).unwrap();

    // Confirmed: only the region asked for is written, with O_DIRECT.
    let out = scratch();
    let result = run_ok(
        &[
            "run",
            "--file",
            dev,
            "--op",
            "rewrite",
            "--destroy-data",
            dev,
            "--bs",
            "64k",
            "--size",
            "8m",
            "--direct",
        ],
        out.path(),
    );
    let point = first_point(&result);
    assert_eq!(point["repetitions"][0]["bytes"], 8 << 20);
    let image = std::fs::read(device.image()).unwrap();
    assert!(
        image[..8 << 20].iter().any(|&b| b != FILL),
        "the region was written"
    );
    assert!(
        image[8 << 20..].iter().all(|&b| b == FILL),
        "and nothing past it"
    );
}

#[test]
fn a_device_with_something_on_it_is_never_written() {
    let temp = scratch();
    let Some(device) = device_or_skip(temp.path(), false) else {
        return;
    };
    let dev = device.path();
    let write = [
        "--file",
        dev,
        "--op",
        "rewrite",
        "--destroy-data",
        dev,
        "--size",
        "1m",
    ];
    let snapshot = || std::fs::read(device.image()).unwrap();

    // Another loop device stacked on it.
    let stacked = run("losetup", &["--find", "--show", dev]).unwrap();
    let before = snapshot();
    assert_device_refused(
        &write,
        &[
            &format!("{stacked} is stacked on it"),
            "nothing was written",
        ],
    );
    run("losetup", &["--detach", &stacked]).unwrap();
    assert!(snapshot() == before, "not a byte changed");

    // A swap area, then an active one.
    if have("mkswap") && run("mkswap", &[dev]).is_ok() {
        let before = snapshot();
        assert_device_refused(
            &write,
            &["holds a swap area (libblkid: signature at byte 4086)"],
        );
        match run("swapon", &[dev]) {
            Ok(_) => {
                assert_device_refused(&write, &[&format!("{dev} is an active swap area")]);
                run("swapoff", &[dev]).unwrap();
            }
            Err(error) => crate::not_here!("swapon is refused here: {error}"),
        }
        assert!(snapshot() == before, "the swap area is intact");
    }

    // File systems iolab's own list does not know, libblkid does: minix
    // (util-linux) and erofs (erofs-utils, an image written onto the device).
    if have("mkfs.minix") {
        run("mkfs.minix", &[dev]).unwrap();
        let before = snapshot();
        assert_device_refused(
            &write,
            &["holds a minix file system (libblkid: signature at byte 1040)"],
        );
        assert!(snapshot() == before, "the minix file system is intact");
    }
    if have("mkfs.erofs") {
        let tree = temp.path().join("tree");
        std::fs::create_dir(&tree).unwrap();
        std::fs::write(tree.join("file"), b"erofs").unwrap();
        let image = temp.path().join("erofs.img");
        run(
            "mkfs.erofs",
            &["--quiet", image.to_str().unwrap(), tree.to_str().unwrap()],
        )
        .unwrap();
        run(
            "dd",
            &[
                &format!("if={}", image.display()),
                &format!("of={dev}"),
                "conv=notrunc,fsync",
                "status=none",
            ],
        )
        .unwrap();
        let before = snapshot();
        assert_device_refused(
            &write,
            &["holds an erofs file system (libblkid: signature at byte 1024)"],
        );
        assert!(snapshot() == before, "the erofs image is intact");
    }

    // A file system, then the same mounted.
    run("mkfs.ext4", &["-q", "-F", dev]).unwrap();
    let before_mount = snapshot();
    assert_device_refused(
        &write,
        &["holds an ext4 file system (libblkid: signature at byte 1080)"],
    );
    let mount_point = temp.path().join("mnt");
    std::fs::create_dir(&mount_point).unwrap();
    run("mount", &[dev, mount_point.to_str().unwrap()]).unwrap();
    std::fs::write(mount_point.join("precious"), b"data").unwrap();
    assert_device_refused(
        &write,
        &[
            &format!("{dev} is mounted on {}", mount_point.display()),
            "an ext4 file system",
        ],
    );
    // Reading a mounted device is allowed.
    let out = scratch();
    run_ok(
        &["run", "--file", dev, "--size", "1m", "--bs", "64k"],
        out.path(),
    );
    run("umount", &[mount_point.to_str().unwrap()]).unwrap();
    // The file system changed only by its own mount and file: it mounts
    // again and the file written through it is intact.
    assert_eq!(snapshot().len(), before_mount.len());
    run("mount", &[dev, mount_point.to_str().unwrap()]).unwrap();
    let precious = std::fs::read(mount_point.join("precious"));
    run("umount", &[mount_point.to_str().unwrap()]).unwrap();
    assert_eq!(precious.unwrap(), b"data");
}

#[test]
fn a_partitioned_device_is_never_written_and_names_its_mounted_partition() {
    let temp = scratch();
    let Some(mut device) = device_or_skip(temp.path(), true) else {
        return;
    };
    let dev = device.path().to_string();
    let write = [
        "--file",
        &dev,
        "--op",
        "rewrite",
        "--destroy-data",
        &dev,
        "--size",
        "1m",
    ];
    assert_device_refused(
        &write,
        &["holds a gpt partition table (libblkid: signature at byte 512)"],
    );
    let first = match device.partition(1) {
        Ok(node) => node,
        Err(error) => {
            crate::not_here!("the kernel shows no partitions of a loop device here: {error}");
            return;
        }
    };
    run("mkfs.ext4", &["-q", "-F", &first]).unwrap();
    let mount_point = temp.path().join("mnt");
    std::fs::create_dir(&mount_point).unwrap();
    run("mount", &[&first, mount_point.to_str().unwrap()]).unwrap();
    let refused = std::panic::catch_unwind(|| {
        assert_device_refused(
            &write,
            &[
                &format!("{first} is mounted on {}", mount_point.display()),
                &format!("{first} holds an ext4 file system"),
                "gpt partition table",
            ],
        )
    });
    run("umount", &[mount_point.to_str().unwrap()]).unwrap();
    refused.unwrap();
    // The second partition, blank, may be written on its own.
    let second = device.partition(2).unwrap();
    let out = scratch();
    run_ok(
        &[
            "run",
            "--file",
            &second,
            "--op",
            "rewrite",
            "--destroy-data",
            &second,
            "--size",
            "1m",
            "--bs",
            "64k",
        ],
        out.path(),
    );
}

#[test]
fn a_read_only_loop_file_system_is_refused_before_anything_is_created() {
    let temp = scratch();
    if !root_or_skip("a loop-mounted file system") || !have("mkfs.ext4") {
        return;
    }
    let fs = match LoopFs::new(temp.path(), "ext4", 32) {
        Ok(fs) => fs,
        Err(error) => {
            crate::skip!("cannot make a loop file system here: {error}");
            return;
        }
    };
    std::fs::write(fs.path().join("data"), vec![7u8; 1 << 20]).unwrap();
    fs.remount("ro").unwrap();
    let before = entries(fs.path());
    let output = iolab()
        .args(["run", "--size", "1m", "--op", "write", "--dir"])
        .arg(fs.path())
        .arg("-o")
        .arg(temp.path().join("ro.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not writable") && stderr.contains("Read-only file system"),
        "{stderr}"
    );
    assert_eq!(entries(fs.path()), before);
    assert!(!temp.path().join("ro.json").exists());
    // Reading a file the user names needs no write access to its directory.
    let data = fs.path().join("data");
    let result = Cli::new(["run", "--bs", "64k"])
        .path("--file", data)
        .ok(temp.path());
    assert_eq!(first_point(&result)["repetitions"][0]["bytes"], 1 << 20);
    fs.remount("rw").unwrap();
}

#[test]
fn a_read_only_device_is_refused_as_read_only() {
    let temp = scratch();
    if !root_or_skip("a loop device") || !have("losetup") {
        return;
    }
    let image = temp.path().join("ro.img");
    std::fs::write(&image, vec![FILL; 8 << 20]).unwrap();
    let dev = run(
        "losetup",
        &["--read-only", "--find", "--show", image.to_str().unwrap()],
    )
    .unwrap();
    let dev = dev.trim().to_string();
    let refused = iolab()
        .args(["run", "--file", &dev, "--op", "rewrite", "--size", "1m"])
        .arg(format!("--destroy-data={dev}"))
        .output()
        .unwrap();
    run("losetup", &["--detach", &dev]).unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    assert!(stderr.contains("the device is read-only"), "{stderr}");
    assert_eq!(std::fs::read(&image).unwrap(), vec![FILL; 8 << 20]);
}

/// A file system made on a consented device while a run repeats is
/// never written over: the check that refuses a device holding a signature
/// is made again before every point and repetition, and the run stops
/// naming what it found (issue "Nothing lost, nothing harmed, round 3", item 2).
#[test]
fn a_file_system_made_on_a_consented_device_between_repetitions_stops_the_run() {
    let temp = scratch();
    let Some(device) = LoopDevice::or_skip(temp.path(), 64, FILL, false) else {
        return;
    };
    if !have("mkfs.ext4") {
        return;
    }
    let consent = format!("--destroy-data={}", device.path());
    let image = temp.path().join("ext4.img");
    std::fs::write(&image, vec![0u8; 64 << 20]).unwrap();
    run("mkfs.ext4", &["-F", "-q", image.to_str().unwrap()]).unwrap();
    // Reverse order and a pause after each write: the repetitions write the
    // blocks just below 8 MiB only, so the new file system's superblock at
    // byte 1024 is not overwritten by the repetition running when it is made,
    // and the check before the next repetition has something to find.
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "run",
            "--file",
            device.path(),
            &consent,
            "--op",
            "rewrite",
            "--bs",
            "64k",
            "--repeat",
            "4",
            "--size",
            "8m",
            "--runtime",
            "2s",
            "--pattern",
            "reverse",
            "--think",
            "500ms",
            "--json",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Made once the first repetition writes, so after the check at the start.
    wait_for_thread(child.id(), "iolab-job", std::time::Duration::from_secs(120));
    std::thread::sleep(std::time::Duration::from_secs(1));
    // iolab holds the device open exclusively, so mkfs refuses it; the
    // head of an ext4 image is copied on it instead, as dd would.
    {
        use std::io::{Read, Write};
        let mut head = vec![0u8; 1 << 20];
        std::fs::File::open(&image)
            .unwrap()
            .read_exact(&mut head)
            .unwrap();
        let mut device_file = std::fs::OpenOptions::new()
            .write(true)
            .open(device.path())
            .unwrap();
        device_file.write_all(&head).unwrap();
        device_file.sync_all().unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("ext4"), "the signature is named: {stderr}");
    let probe = run("blkid", &["-p", "-o", "value", "-s", "TYPE", device.path()]);
    assert_eq!(
        probe.as_deref(),
        Ok("ext4"),
        "the file system made during the sweep is still there: {stderr}"
    );
}

/// `iolab fio` writes a device only with iolab's consent given before
/// fio's arguments, as kbench runs fio on one (`fio JOB --filename=DEV
/// --size=S`): refused in one line naming the flag without it, run with it.
#[test]
fn a_fio_command_line_writes_a_device_only_with_consent() {
    let temp = scratch();
    let Some(device) = device_or_skip(temp.path(), false) else {
        return;
    };
    let dev = device.path();
    let fio_words = [
        "--name=w",
        "--rw=randwrite",
        "--bs=4k",
        "--size=1m",
        "--ioengine=psync",
        "--direct=1",
    ];
    let refused = iolab()
        .current_dir(temp.path())
        .arg("fio")
        .args(fio_words)
        .arg(format!("--filename={dev}"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("--destroy-data={dev}")),
        "{stderr}"
    );
    let output = temp.path().join("w.json");
    succeed(
        iolab()
            .current_dir(temp.path())
            .arg("fio")
            .arg(format!("--destroy-data={dev}"))
            .args(fio_words)
            .arg(format!("--filename={dev}"))
            .arg("--output-format=json")
            .arg(format!("--output={}", output.display())),
    );
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert_eq!(
        document["jobs"][0]["write"]["io_bytes"],
        1 << 20,
        "{document}"
    );
}
