//! The memory-copy ceiling for page-cache reads: how fast this machine copies
//! `bs`-sized blocks out of a buffer far larger than the CPU caches, as the
//! kernel does when it copies page-cache pages to a reader's buffer.
//! Built and run by bench/vs-fio; prints JSON {"<bs>": bytes_per_second, ...}.

use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let source_len: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1 << 30);
    let seconds: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let source: Vec<u8> = (0..source_len).map(|i| (i * 131 % 251) as u8).collect();
    let mut results = Vec::new();
    for bs in [4096usize, 1 << 20] {
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
                destination.copy_from_slice(&source[offset..offset + bs]);
                std::hint::black_box(&mut destination);
                copied += bs as u64;
                block = (block + stride) % blocks;
            }
        }
        let rate = copied as f64 / start.elapsed().as_secs_f64();
        results.push(format!("\"{bs}\": {rate:.0}"));
    }
    println!("{{{}}}", results.join(", "));
}
