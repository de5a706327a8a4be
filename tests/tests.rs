//! Integration tests: they drive the `iolab` binary as a user would.
//! All modules compile into this one test binary; helpers live in `util`,
//! real mounts for root tests in `mounts`, the NFS/iSCSI lab in `lab`.
//! Each test module is in one tier, which names the path its tests run
//! under (`fast::ui::…`): `scripts/test fast` runs `fast::` and the unit
//! tests, CI every tier.

mod lab;
mod mounts;
mod util;

mod fast;
mod guest;
mod system;
