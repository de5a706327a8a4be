//! A grid's dry run: its plan, the disk space and time it would take (at the directory's measured speeds, and its guest's boots), and its points; nothing runs.

use super::Grid;
use crate::app::error::{AppError, Ending};
use crate::plan::units::format_size;
use crate::report::units::bytes;
use crate::run::FREE_SPACE_MARGIN;

/// The guest's boots a plan makes (one per round of guest points and
/// configuration) and, where one was measured here, the accelerator and
/// seconds of the last boot.
fn guest_boots(grid: &Grid) -> Option<(usize, Option<(crate::plan::guest::Accelerator, f64)>)> {
    use crate::plan::guest::Accelerator;
    let spec = grid.plan.guests.first()?;
    let mut rounds: Vec<(Option<u32>, Option<u32>)> = grid
        .plan
        .points
        .iter()
        .filter(|p| p.workload().machine == crate::plan::Machine::Guest)
        .map(|p| (p.round, p.workload().guest_config))
        .collect();
    rounds.sort_unstable();
    rounds.dedup();
    let boots = rounds.len();
    if boots == 0 {
        return None;
    }
    let measured = match spec.accel {
        Accelerator::Auto => [Accelerator::Kvm, Accelerator::Tcg]
            .into_iter()
            .find_map(|a| Some((a, crate::guest::last_boot_seconds(a)?))),
        accel => crate::guest::last_boot_seconds(accel).map(|s| (accel, s)),
    };
    Some((boots, measured))
}

/// The guest's boots in a line of the dry run.
fn guest_boots_line(
    grid: &Grid,
    boots: usize,
    measured: Option<(crate::plan::guest::Accelerator, f64)>,
) -> String {
    let cost = match measured {
        Some((accel, seconds)) => format!(
            "about {seconds:.0} s each as the last {} boots here took (median), {:.0} s in all",
            if accel == crate::plan::guest::Accelerator::Kvm {
                "KVM"
            } else {
                "TCG"
            },
            seconds * boots as f64
        ),
        None => "no boot measured here yet to estimate from".to_string(),
    };
    format!(
        "  guest: {boots} boot{} (one per round{}), {cost}\n",
        if boots == 1 { "" } else { "s" },
        if grid.plan.guests.len() > 1 {
            " and configuration"
        } else {
            ""
        }
    )
}

/// What the guest points add to the host's estimate of them, from the
/// pace last measured for guests under their accelerator: their timed I/O
/// the measured times slower, and each repetition's own work there in
/// place of the host's; said in a line of `text`. 0 without guest points
/// or a measured pace.
fn guest_pace_line(grid: &Grid, text: &mut String) -> f64 {
    use crate::plan::guest::Accelerator;
    let Some(spec) = grid.plan.guests.first() else {
        return 0.0;
    };
    let pace = match spec.accel {
        Accelerator::Auto => [Accelerator::Kvm, Accelerator::Tcg]
            .into_iter()
            .find_map(|a| Some((a, crate::app::speeds::guest_pace(a)?))),
        accel => crate::app::speeds::guest_pace(accel).map(|p| (accel, p)),
    };
    let in_guest: Vec<crate::plan::PlannedPoint> = grid
        .plan
        .points
        .iter()
        .filter(|p| p.workload().machine == crate::plan::Machine::Guest)
        .cloned()
        .collect();
    let (Some((accel, pace)), false) = (pace, in_guest.is_empty()) else {
        return 0.0;
    };
    let speeds = speeds_for(grid);
    let on_host = crate::plan::cost(&in_guest, &speeds, &|_| None);
    let repetitions: u32 = in_guest
        .iter()
        .map(|p| p.workload().warmup + p.workload().repeat)
        .sum();
    // A time-based point runs its time wherever it is: only one-pass I/O slows.
    let io_s = on_host.one_pass_s * (pace.io_factor - 1.0).max(0.0);
    let own_s = (f64::from(repetitions) * pace.overhead_s - on_host.overhead_s).max(0.0);
    text.push_str(&format!(
        "  in the guest ({}): timed I/O {:.1}× the host's and {:.2} s of its own work per repetition, as last measured here: {} more\n",
        accel.name(),
        pace.io_factor,
        pace.overhead_s,
        crate::report::units::duration(io_s + own_s)
    ));
    io_s + own_s
}

/// The speeds a grid's estimate uses: its directory's device's, when it
/// works in a local directory.
fn speeds_for(grid: &Grid) -> crate::plan::Speeds {
    match &grid.target {
        Some(_) => crate::plan::Speeds::default(),
        None => crate::app::speeds::load(&grid.plan.dir),
    }
}

/// Prints the plan and what it would cost; runs nothing.
pub(super) fn dry_run(grid: &Grid) -> Result<Ending, AppError> {
    // The run would refuse a directory in the kernel's trees: so does its plan.
    if grid.target.is_none() {
        let dir = std::fs::canonicalize(&grid.plan.dir).unwrap_or_else(|_| grid.plan.dir.clone());
        crate::run::target::scratch::system_tree::refuse(
            &dir,
            &grid.plan.dir.display().to_string(),
        )?;
    }
    let crate::plan::Cost {
        one_pass_bytes,
        moved_bytes: moved,
        timed_s,
        largest_bytes: largest,
        adaptive,
        one_pass_s,
        overhead_s,
        run_s,
        measured,
    } = {
        // The traces are read whole, as the run would before its first point.
        let traces = crate::app::trace_point::costs(&grid.plan.points)?;
        crate::plan::cost(&grid.plan.points, &speeds_for(grid), &|trace| {
            traces.get(&trace).copied()
        })
    };
    let name = grid
        .info
        .name
        .as_deref()
        .map_or(String::new(), |n| format!(" {n}"));
    let mut text = format!(
        "{}{name}: {} points\n",
        grid.info.kind,
        grid.plan.points.len()
    );
    if let Some(description) = &grid.info.description {
        text.push_str(&format!("  {description}\n"));
    }
    let free = match &grid.target {
        Some(_) => "free space asked of the server when it runs".to_string(),
        None => rustix::fs::statvfs(&grid.plan.dir)
            .map(|s| format!("{} free there now", bytes(s.f_bavail * s.f_frsize)))
            .unwrap_or_else(|_| "directory not there yet".to_string()),
    };
    text.push_str(&format!(
        "  directory: {} ({free})\n  disk space: at most {} of scratch files at once, plus a {} margin\n",
        grid.plan.dir.display(),
        bytes(largest),
        format_size(FREE_SPACE_MARGIN)
    ));
    let bound = if adaptive { "at most " } else { "" };
    text.push_str(&format!(
        "  data: one-pass points move {bound}{} (plus layouts, about {} in all): {bound}{:.0} s {}\n",
        bytes(one_pass_bytes.min(u128::from(u64::MAX)) as u64),
        bytes(moved.min(u128::from(u64::MAX)) as u64),
        one_pass_s,
        crate::app::speeds::basis(measured)
    ));
    if timed_s > 0.0 {
        text.push_str(&format!(
            "  time-based points: {bound}{timed_s:.0} s of timed I/O and ramps\n"
        ));
    }
    if adaptive {
        text.push_str("  (at most: --until-ci repetitions may stop before --max-repeat)\n");
    }
    text.push_str(&format!(
        "  each repetition's own work (files, caches, counters): about {} s{}; the run's own (probes, checks, the result): {} s\n",
        crate::report::units::significant(overhead_s),
        if measured {
            ", as the last run here took"
        } else {
            ", assumed"
        },
        crate::report::units::significant(run_s)
    ));
    let boots = guest_boots(grid);
    if let Some((count, measured)) = boots {
        text.push_str(&guest_boots_line(grid, count, measured));
    }
    let boot_s = boots
        .and_then(|(count, measured)| Some(count as f64 * measured?.1))
        .unwrap_or(0.0);
    let emulation_s = guest_pace_line(grid, &mut text);
    text.push_str(&format!(
        "  time: about {} in all{}\n",
        crate::report::units::duration(
            one_pass_s + timed_s + overhead_s + run_s + boot_s + emulation_s
        ),
        if boot_s > 0.0 { ", boots included" } else { "" }
    ));
    text.push_str(&format!(
        "  output: {} (plan {})\n",
        grid.output().display(),
        grid.info.hash
    ));
    for (index, point) in grid.plan.points.iter().enumerate() {
        match point.round {
            Some(round) => text.push_str(&format!(
                "{:>6}  {} (round {})\n",
                index + 1,
                point.label,
                round + 1
            )),
            None => text.push_str(&format!("{:>6}  {}\n", index + 1, point.label)),
        }
    }
    crate::app::output::print(&text)?;
    Ok(Ending::Success)
}
