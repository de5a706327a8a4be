//! The environment as text for `iolab env`: iolab's build, the machine, virtualization, file system and each device of the stack.

use super::units::bytes;
use crate::record::Tool;
use crate::record::environment::Environment;

/// Renders `env` (and the iolab that looked) for a terminal, one fact per line.
pub fn render(tool: &Tool, env: &Environment) -> String {
    let mut lines = vec![
        format!(
            "iolab:          {} {}{}",
            tool.version,
            tool.build,
            tool.git_commit
                .as_deref()
                .map_or_else(String::new, |c| format!(
                    ", commit {}",
                    &c[..c.len().min(12)]
                ))
        ),
        format!("host:           {}", env.hostname),
        format!(
            "kernel:         {} {} ({})",
            env.kernel, env.kernel_version, env.arch
        ),
        format!(
            "distribution:   {}",
            env.distribution.as_deref().unwrap_or("unknown")
        ),
        format!(
            "CPU:            {} × {}{}",
            env.logical_cpus
                .map_or_else(|| "unknown".to_string(), |n| n.to_string()),
            env.cpu_model.as_deref().unwrap_or("unknown model"),
            env.physical_cores
                .map_or_else(String::new, |n| format!(" ({n} physical cores)"))
        ),
        match env.memory_bytes {
            Some(memory) => format!("memory:         {} ({memory} bytes)", bytes(memory)),
            None => "memory:         unknown".to_string(),
        },
        format!(
            "clock source:   {}{}",
            env.clocksource.as_deref().unwrap_or("unknown"),
            env.clock_read_ns
                .map(|ns| format!(" ({ns:.0} ns a read; iolab reads it twice per I/O)"))
                .unwrap_or_default()
        ),
    ];
    lines.push(format!(
        "reclaim:        {}",
        if env.proactive_reclaim.is_empty() {
            "no proactive reclaim found (DAMON)".to_string()
        } else {
            format!(
                "{}: cached file data can be evicted with memory to spare",
                env.proactive_reclaim.join("; ")
            )
        }
    ));
    let virt = &env.virtualization;
    let machine = match (&virt.hypervisor, &virt.container) {
        (Some(h), Some(c)) => format!("virtual machine ({h}), inside a {c} container"),
        (Some(h), None) => format!("virtual machine ({h})"),
        (None, Some(c)) => format!("{c} container on bare metal or an undetected hypervisor"),
        (None, None) => "bare metal (no hypervisor or container found)".to_string(),
    };
    lines.push(format!("virtualization: {machine}"));
    lines.extend(virt.evidence.iter().map(|e| format!("  evidence: {e}")));
    match &env.storage {
        None => lines.push("storage:        unknown (no mount found for the path)".to_string()),
        Some(storage) => {
            lines.push(format!("path:           {}", storage.path));
            lines.push(format!(
                "file system:    {} on {}, mounted at {}{}",
                storage.filesystem,
                storage.source,
                storage.mount_point,
                if storage.network { " (network)" } else { "" }
            ));
            lines.push(format!(
                "mount options:  {} | {}",
                storage.mount_options, storage.super_options
            ));
            lines.push(format!(
                "device stack:   {}",
                if storage.stack.is_empty() {
                    "none (no block device under this file system)"
                } else {
                    &storage.stack
                }
            ));
            for device in &storage.devices {
                let mut facts = vec![format!("{} {}:{}", device.kind, device.major, device.minor)];
                if let Some(model) = &device.model {
                    facts.push(format!("model {model:?}"));
                }
                if let Some(driver) = &device.driver {
                    facts.push(format!("driver {driver}"));
                }
                if let Some(size) = device.size_bytes {
                    facts.push(format!("size {}", bytes(size)));
                }
                if let Some(file) = &device.backing_file {
                    facts.push(format!("backing file {file}"));
                }
                if let Some(rotational) = device.rotational {
                    facts.push(
                        if rotational {
                            "rotational"
                        } else {
                            "non-rotational"
                        }
                        .to_string(),
                    );
                }
                if let Some(scheduler) = &device.scheduler {
                    facts.push(format!("scheduler {scheduler}"));
                }
                if let Some(n) = device.nr_requests {
                    facts.push(format!("nr_requests {n}"));
                }
                if let Some(n) = device.queue_depth {
                    facts.push(format!("queue depth {n}"));
                }
                if let Some(n) = device.read_ahead_bytes {
                    facts.push(format!("read-ahead {}", bytes(n)));
                }
                if let (Some(l), Some(p)) =
                    (device.logical_block_bytes, device.physical_block_bytes)
                {
                    facts.push(format!("blocks {l}/{p} B logical/physical"));
                }
                if let Some(cache) = &device.write_cache {
                    facts.push(format!("write cache {cache}"));
                }
                lines.push(format!("  {}: {}", device.name, facts.join(", ")));
            }
        }
    }
    lines.join("\n") + "\n"
}
