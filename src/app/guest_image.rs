//! A guest's disk image, an iolab scratch file in the directory under test, and a guest's failure as the error iolab ends with: what the guest points of a run and a guest serving as a host share.

use super::error::{AppError, run_error};
use crate::guest::GuestError;
use crate::plan::guest::ImageFormat;
use crate::run::Session;
use crate::run::target::Target;
use std::io::Write;

/// The image of the guest's disk: a new scratch file in the session's
/// directory, every block written (a hole would read as zeros without
/// touching the disk), or a fully preallocated qcow2.
pub(super) fn make_image(
    session: &Session,
    configuration: u32,
    size: u64,
    format: ImageFormat,
) -> Result<Box<dyn Target>, AppError> {
    session.check_free_space(size, 1).map_err(run_error)?;
    let image = session
        .dir()
        .create(u32::MAX - 1 - configuration)
        .map_err(|e| anyhow::anyhow!("the guest's image: {e}"))?;
    let written = match format {
        ImageFormat::Raw => fill(image.path(), size),
        ImageFormat::Qcow2 => std::process::Command::new("qemu-img")
            .args(["create", "-q", "-f", "qcow2", "-o", "preallocation=full"])
            .arg(image.path())
            .arg(size.to_string())
            .status()
            .map_err(|e| format!("qemu-img (Debian package qemu-utils): {e}"))
            .and_then(|status| {
                if status.success() {
                    Ok(())
                } else {
                    Err(format!("qemu-img create failed ({status})"))
                }
            }),
    };
    if let Err(why) = written {
        image.release(false);
        return Err(anyhow::anyhow!("the guest's image: {why}").into());
    }
    Ok(image)
}

/// Writes `size` bytes of zeros over the file at `path`, then syncs it.
fn fill(path: &std::path::Path, size: u64) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let chunk = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        file.write_all(&chunk[..n])
            .map_err(|e| format!("{}: {e}", path.display()))?;
        left -= n as u64;
    }
    file.sync_all()
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// A guest failure as the error iolab ends with: bad input and missing packages exit 2.
pub(super) fn guest_error(error: GuestError) -> AppError {
    match error {
        GuestError::Usage(why) | GuestError::Missing(why) => {
            AppError::Usage(crate::plan::UsageError(why))
        }
        other => anyhow::anyhow!("{other}").into(),
    }
}
