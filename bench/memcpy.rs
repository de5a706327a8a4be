//! The memory-copy ceiling for page-cache reads: how fast this machine copies
//! `bs`-sized blocks out of a buffer far larger than the CPU caches, as the
//! kernel does when it copies page-cache pages to a reader's buffer.
//! The faster of the library memcpy and `rep movsb` counts.
//! Built and run by bench/vs-fio; prints JSON {"<bs>": bytes_per_second, ...}.

use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let source_len: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1 << 30);
    let seconds: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let source: Vec<u8> = (0..source_len).map(|i| (i * 131 % 251) as u8).collect();
    let mut results = Vec::new();
    for bs in [4096usize, 1 << 20] {
        let rate = copy_rate(&source, bs, seconds, |to, from| to.copy_from_slice(from))
            .max(copy_rate(&source, bs, seconds, rep_movsb));
        results.push(format!("\"{bs}\": {rate:.0}"));
    }
    println!("{{{}}}", results.join(", "));
}

/// `rep movsb`, the copy the kernel's copy_to_user uses on CPUs with fast
/// string moves; on other architectures, the library memcpy.
fn rep_movsb(to: &mut [u8], from: &[u8]) {
    assert_eq!(to.len(), from.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: both slices are valid for `len` bytes and do not overlap.
    unsafe {
        std::arch::asm!("rep movsb", inout("rcx") from.len() => _, inout("rsi") from.as_ptr() => _,
                        inout("rdi") to.as_mut_ptr() => _, options(nostack, preserves_flags));
    }
    #[cfg(not(target_arch = "x86_64"))]
    to.copy_from_slice(from);
}

/// Bytes per second copying `bs`-sized blocks out of `source` with `copy`.
fn copy_rate(source: &[u8], bs: usize, seconds: f64, copy: impl Fn(&mut [u8], &[u8])) -> f64 {
    let source_len = source.len();
    {
        let mut destination = vec![0u8; bs];
        let blocks = source_len / bs;
        // Visit blocks in a scrambled order (an odd stride mod a power of two)
        // so hardware prefetch across blocks does not flatter small copies.
        let stride = (blocks / 2 + 1) | 1;
        let mut block = 0usize;
        let mut copied = 0u64;
        let start = Instant::now();
        let limit = Duration::from_secs_f64(seconds);
        while start.elapsed() < limit {
            for _ in 0..256 {
                let offset = block * bs;
                copy(&mut destination, &source[offset..offset + bs]);
                std::hint::black_box(&mut destination);
                copied += bs as u64;
                block = (block + stride) % blocks;
            }
        }
        copied as f64 / start.elapsed().as_secs_f64()
    }
}
