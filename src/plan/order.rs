//! The order compared configurations run in: points that differ only in one axis (`machine` by default) form a block and run back to back, alternating A B | B A from block to block and round to round (`--order abba`), shuffled per block from the seed (`random`), or as planned (`as-given`); the whole repeated over `--rounds` (with a guest, each round boots it anew).

use super::param::Param;
use super::{Machine, PlannedPoint, UsageError};
use std::collections::HashMap;

/// How the points of a block are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arrangement {
    /// As planned.
    #[default]
    AsGiven,
    /// A B in even blocks of even rounds, B A in the others: A B B A A B …
    Abba,
    /// Each block shuffled, from the seed, the round and the block.
    Random,
}

/// `--order KIND[:AXIS]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Order {
    /// How blocks are ordered.
    pub arrangement: Arrangement,
    /// The axis whose values a block holds; `None`: `machine`.
    pub axis: Option<Param>,
}

impl std::str::FromStr for Order {
    type Err = String;

    fn from_str(text: &str) -> Result<Order, String> {
        let (kind, axis) = match text.split_once(':') {
            Some((kind, axis)) => (kind, Some(axis)),
            None => (text, None),
        };
        let arrangement = match kind {
            "abba" => Arrangement::Abba,
            "random" => Arrangement::Random,
            "as-given" => Arrangement::AsGiven,
            other => {
                return Err(format!(
                    "'{other}' is not an order: abba, random or as-given (abba:AXIS names the axis alternated)"
                ));
            }
        };
        let axis = match axis {
            Some(name) => Some(
                Param::from_name(name)
                    .ok_or_else(|| format!("'{name}' is not a parameter to alternate"))?,
            ),
            None => None,
        };
        Ok(Order { arrangement, axis })
    }
}

/// The most rounds a plan may take.
pub const MAX_ROUNDS: u32 = 100;

/// With `--guest` and no `machine` axis: every point also in the guest,
/// right after it on the host, each label saying where.
pub fn add_guest_twins(points: Vec<PlannedPoint>) -> Vec<PlannedPoint> {
    if points
        .iter()
        .any(|p| p.workload().machine == Machine::Guest)
    {
        return points;
    }
    let mut twinned = Vec::with_capacity(points.len() * 2);
    for point in points {
        let mut guest = point.clone();
        guest.set_machine(Machine::Guest);
        guest.label = format!("{} machine=guest", point.label);
        twinned.push(PlannedPoint {
            label: format!("{} machine=host", point.label),
            ..point
        });
        twinned.push(guest);
    }
    twinned
}

/// With `--guest mount=URL` and no `machine` axis: every point in the
/// guest only, since the host has no twin of what the guest's kernel mounts.
pub fn all_in_guest(mut points: Vec<PlannedPoint>) -> Vec<PlannedPoint> {
    if !points
        .iter()
        .any(|p| p.workload().machine == Machine::Guest)
    {
        for point in &mut points {
            point.set_machine(Machine::Guest);
        }
    }
    points
}

/// With several `--guest` configurations (`names`, in the order given):
/// every guest point in each of them, its label saying which; a point
/// given `--guest-config N` stays in that one. Points on the host stay there.
pub fn in_each_guest(
    points: Vec<PlannedPoint>,
    names: &[String],
) -> Result<Vec<PlannedPoint>, UsageError> {
    let mut placed = Vec::with_capacity(points.len() * names.len());
    for mut point in points {
        if point.workload().machine == Machine::Host {
            // A host point has no guest configuration, whatever --guest-config said.
            for group in &mut point.groups {
                group.workload.guest_config = None;
            }
            placed.push(point);
            continue;
        }
        match point.workload().guest_config {
            Some(config) => {
                let name = names.get(config as usize - 1).ok_or_else(|| {
                    crate::usage!(
                        "--guest-config {config}: there are {} --guest configurations",
                        names.len()
                    )
                })?;
                point.set_guest_config(config);
                point.label = format!("{} guest={name}", point.label);
                placed.push(point);
            }
            None => {
                for (index, name) in names.iter().enumerate() {
                    let mut twin = point.clone();
                    twin.set_guest_config(index as u32 + 1);
                    twin.label = format!("{} guest={name}", point.label);
                    placed.push(twin);
                }
            }
        }
    }
    Ok(placed)
}

/// `points` in `order` over `rounds` rounds, each tagged with its round.
/// A plan without rounds, guest or order other than as-given is returned as it is.
pub fn arrange(
    points: Vec<PlannedPoint>,
    order: Order,
    rounds: u32,
) -> Result<Vec<PlannedPoint>, UsageError> {
    if !(1..=MAX_ROUNDS).contains(&rounds) {
        return Err(crate::usage!("--rounds {rounds}: give 1 to {MAX_ROUNDS}"));
    }
    let has_guest = points
        .iter()
        .any(|p| p.workload().machine == Machine::Guest);
    if order.arrangement == Arrangement::AsGiven && rounds == 1 && !has_guest {
        return Ok(points);
    }
    let several_guests = points
        .iter()
        .any(|p| p.workload().guest_config.is_some_and(|c| c > 1));
    let axis = order.axis.unwrap_or(if several_guests {
        Param::GuestConfig
    } else {
        Param::Machine
    });
    let varies = |param: Param| {
        points
            .windows(2)
            .any(|w| param.value_in(w[0].workload()) != param.value_in(w[1].workload()))
    };
    if order.arrangement != Arrangement::AsGiven && !varies(axis) {
        // Said so that it reads right whether --order was given or its
        // default came with --rounds or a guest.
        return Err(crate::usage!(
            "the rounds alternate the {} axis (--order {}{}), which has one value here, so there is nothing to alternate; name the axis compared, e.g. --order abba:direct, or give --order as-given",
            axis.name(),
            match order.arrangement {
                Arrangement::Abba => "abba",
                Arrangement::Random => "random",
                Arrangement::AsGiven => "as-given",
            },
            if order.axis.is_some() {
                String::new()
            } else {
                format!(", its axis {} by default", axis.name())
            }
        ));
    }
    if axis == Param::GuestConfig {
        return Ok(by_configuration(points, order.arrangement, rounds));
    }
    // Blocks: points equal but for the axis, in the order first planned.
    let mut blocks: Vec<Vec<PlannedPoint>> = Vec::new();
    let mut block_of: HashMap<String, usize> = HashMap::new();
    for point in points {
        let mut key = point.workload().clone();
        axis.reset(&mut key);
        let key = serde_json::to_string(&key).unwrap_or_default();
        let at = *block_of.entry(key).or_insert_with(|| {
            blocks.push(Vec::new());
            blocks.len() - 1
        });
        blocks[at].push(point);
    }
    let seed = blocks
        .first()
        .and_then(|b| b.first())
        .map_or(0, |p| p.workload().seed);
    let mut arranged = Vec::new();
    for round in 0..rounds {
        for (number, block) in blocks.iter().enumerate() {
            let mut ordered: Vec<PlannedPoint> = block.clone();
            match order.arrangement {
                Arrangement::AsGiven => {}
                Arrangement::Abba => {
                    if (round as usize + number) % 2 == 1 {
                        ordered.reverse();
                    }
                }
                Arrangement::Random => shuffle(
                    &mut ordered,
                    seed ^ (u64::from(round) << 32) ^ number as u64,
                ),
            }
            for mut point in ordered {
                point.round = Some(round);
                arranged.push(point);
            }
        }
    }
    Ok(arranged)
}

/// Guest configurations alternate as wholes, each booted once per round:
/// every point of one configuration (the host's too), then the next's,
/// the configurations in `arrangement`'s order for the round (A B C | C B A
/// with abba), the points of each as planned.
fn by_configuration(
    points: Vec<PlannedPoint>,
    arrangement: Arrangement,
    rounds: u32,
) -> Vec<PlannedPoint> {
    let seed = points.first().map_or(0, |p| p.workload().seed);
    let mut configurations: Vec<Option<u32>> = Vec::new();
    for point in &points {
        let config = point.workload().guest_config;
        if !configurations.contains(&config) {
            configurations.push(config);
        }
    }
    let mut arranged = Vec::with_capacity(points.len() * rounds as usize);
    for round in 0..rounds {
        let mut ordered = configurations.clone();
        match arrangement {
            Arrangement::AsGiven => {}
            Arrangement::Abba => {
                if round % 2 == 1 {
                    ordered.reverse();
                }
            }
            Arrangement::Random => shuffle(&mut ordered, seed ^ (u64::from(round) << 32)),
        }
        for config in ordered {
            for point in points
                .iter()
                .filter(|p| p.workload().guest_config == config)
            {
                let mut point = point.clone();
                point.round = Some(round);
                arranged.push(point);
            }
        }
    }
    arranged
}

/// Fisher–Yates from a splitmix64 stream of `seed`.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::default_workload;

    fn point(label: &str, machine: Machine, bs: u64) -> PlannedPoint {
        let workload = crate::plan::Workload {
            machine,
            bs,
            ..default_workload()
        };
        PlannedPoint::alone(label.to_string(), workload)
    }

    fn labels(points: &[PlannedPoint]) -> Vec<String> {
        points
            .iter()
            .map(|p| format!("{}{}", p.label, p.round.unwrap()))
            .collect()
    }

    #[test]
    fn abba_alternates_across_blocks_and_rounds() {
        let points = add_guest_twins(vec![
            point("a", Machine::Host, 4096),
            point("b", Machine::Host, 8192),
        ]);
        let arranged = arrange(points, "abba".parse().unwrap(), 2).unwrap();
        assert_eq!(
            labels(&arranged),
            [
                "a machine=host0",
                "a machine=guest0",
                "b machine=guest0",
                "b machine=host0",
                "a machine=guest1",
                "a machine=host1",
                "b machine=host1",
                "b machine=guest1",
            ]
        );
    }

    #[test]
    fn several_guests_alternate_as_wholes_one_boot_each_per_round() {
        let names = ["nfs-async", "nfs-sync", "iscsi-ext3"].map(String::from);
        let points = in_each_guest(
            all_in_guest(vec![
                point("a", Machine::Host, 4096),
                point("b", Machine::Host, 8192),
            ]),
            &names,
        )
        .unwrap();
        assert_eq!(points.len(), 6);
        let arranged = arrange(points, "abba".parse().unwrap(), 2).unwrap();
        assert_eq!(
            labels(&arranged),
            [
                "a guest=nfs-async0",
                "b guest=nfs-async0",
                "a guest=nfs-sync0",
                "b guest=nfs-sync0",
                "a guest=iscsi-ext30",
                "b guest=iscsi-ext30",
                "a guest=iscsi-ext31",
                "b guest=iscsi-ext31",
                "a guest=nfs-sync1",
                "b guest=nfs-sync1",
                "a guest=nfs-async1",
                "b guest=nfs-async1",
            ]
        );
        // --guest-config keeps the one named; a number past the list is refused.
        let mut third = point("c", Machine::Host, 4096);
        third.workload_mut().guest_config = Some(3);
        let kept = in_each_guest(all_in_guest(vec![third.clone()]), &names).unwrap();
        assert_eq!(kept[0].label, "c guest=iscsi-ext3");
        let error = in_each_guest(all_in_guest(vec![third.clone()]), &names[..2]).unwrap_err();
        assert!(error.to_string().contains("--guest-config 3"), "{error}");
        // A host point stays on the host, without a configuration.
        let host = in_each_guest(vec![third], &names).unwrap();
        assert_eq!(host.len(), 1);
        assert_eq!(host[0].workload().machine, Machine::Host);
        assert_eq!(host[0].workload().guest_config, None);
    }

    #[test]
    fn any_axis_alternates_and_a_single_valued_one_is_refused() {
        let mut on = point("on", Machine::Host, 4096);
        on.workload_mut().direct = true;
        let off = point("off", Machine::Host, 4096);
        let arranged = arrange(
            vec![on.clone(), off.clone()],
            "abba:direct".parse().unwrap(),
            2,
        )
        .unwrap();
        assert_eq!(labels(&arranged), ["on0", "off0", "off1", "on1"]);
        let error = arrange(vec![on, off], "abba".parse().unwrap(), 2).unwrap_err();
        assert!(error.to_string().contains("abba:direct"), "{error}");
        assert!("abba:nonsense".parse::<Order>().is_err());
        assert!("zigzag".parse::<Order>().is_err());
    }

    #[test]
    fn random_keeps_every_point_of_each_block_together() {
        let points = add_guest_twins(
            (0..6)
                .map(|i| point(&i.to_string(), Machine::Host, 4096 << i))
                .collect(),
        );
        let arranged = arrange(points, "random".parse().unwrap(), 3).unwrap();
        assert_eq!(arranged.len(), 36);
        for pair in arranged.chunks(2) {
            assert_eq!(pair[0].workload().bs, pair[1].workload().bs);
            assert_ne!(pair[0].workload().machine, pair[1].workload().machine);
        }
        let plain = vec![point("x", Machine::Host, 4096)];
        assert_eq!(arrange(plain, Order::default(), 1).unwrap()[0].round, None);
        assert!(arrange(vec![point("x", Machine::Host, 4096)], Order::default(), 0).is_err());
    }
}
