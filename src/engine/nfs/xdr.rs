//! NFSv3's structures as libnfs 4.0's generated `libnfs-raw-nfs.h` lays
//! them out (XDR unions as a tag and the largest arm, declared down to the
//! last field iolab reads), and what an `nfsstat3` means here.

use std::ffi::c_char;

/// What a name is, from its attributes (`ftype3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Directory,
    Link,
    /// A device, socket or FIFO.
    Other,
}

impl Kind {
    pub(super) fn of(ftype: u32) -> Kind {
        match ftype {
            1 => Kind::File,
            2 => Kind::Directory,
            5 => Kind::Link,
            _ => Kind::Other,
        }
    }
}

/// The attributes iolab reads: the kind and the length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attributes {
    /// What the name is.
    pub kind: Kind,
    /// Its length, bytes.
    pub size: u64,
}

/// `nfs_fh3`, and every XDR variable-length opaque.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Fh3 {
    pub(super) len: u32,
    pub(super) data: *const u8,
}

#[repr(C)]
pub(super) struct DirOp {
    pub(super) dir: Fh3,
    pub(super) name: *const c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Time3 {
    pub(super) seconds: u32,
    pub(super) nseconds: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Fattr3 {
    pub(super) ftype: u32,
    pub(super) mode: u32,
    pub(super) nlink: u32,
    pub(super) uid: u32,
    pub(super) gid: u32,
    pub(super) size: u64,
    pub(super) used: u64,
    pub(super) rdev: [u32; 2],
    pub(super) fsid: u64,
    pub(super) fileid: u64,
    pub(super) atime: Time3,
    pub(super) mtime: Time3,
    pub(super) ctime: Time3,
}

#[repr(C)]
pub(super) struct PostOpAttr {
    pub(super) follows: u32,
    pub(super) attributes: Fattr3,
}

impl PostOpAttr {
    pub(super) fn get(&self) -> Option<Attributes> {
        (self.follows != 0).then_some(Attributes {
            kind: Kind::of(self.attributes.ftype),
            size: self.attributes.size,
        })
    }
}

#[repr(C)]
pub(super) struct PostOpFh {
    pub(super) follows: u32,
    pub(super) handle: Fh3,
}

#[repr(C)]
pub(super) struct WccAttr {
    pub(super) size: u64,
    pub(super) mtime: Time3,
    pub(super) ctime: Time3,
}

#[repr(C)]
pub(super) struct PreOpAttr {
    pub(super) follows: u32,
    pub(super) attributes: WccAttr,
}

#[repr(C)]
pub(super) struct WccData {
    pub(super) before: PreOpAttr,
    pub(super) after: PostOpAttr,
}

/// `set_mode3`, `set_uid3`, `set_gid3`: a flag and a 32-bit value.
#[repr(C)]
#[derive(Default)]
pub(super) struct Set32 {
    pub(super) set: u32,
    pub(super) value: u32,
}

#[repr(C)]
#[derive(Default)]
pub(super) struct Set64 {
    pub(super) set: u32,
    pub(super) value: u64,
}

/// `set_atime`, `set_mtime`: `DONT_CHANGE` (0) here.
#[repr(C)]
#[derive(Default)]
pub(super) struct SetTime {
    pub(super) how: u32,
    pub(super) seconds: u32,
    pub(super) nseconds: u32,
}

#[repr(C)]
#[derive(Default)]
pub(super) struct Sattr3 {
    pub(super) mode: Set32,
    pub(super) uid: Set32,
    pub(super) gid: Set32,
    pub(super) size: Set64,
    pub(super) atime: SetTime,
    pub(super) mtime: SetTime,
}

impl Sattr3 {
    pub(super) fn mode(mode: u32) -> Sattr3 {
        Sattr3 {
            mode: Set32 {
                set: 1,
                value: mode,
            },
            ..Sattr3::default()
        }
    }
}

#[repr(C)]
pub(super) struct CreateArgs {
    pub(super) place: DirOp,
    /// `createmode3`: GUARDED (1), which fails when the name exists.
    pub(super) how: u32,
    pub(super) attributes: Sattr3,
}

#[repr(C)]
pub(super) struct MkdirArgs {
    pub(super) place: DirOp,
    pub(super) attributes: Sattr3,
}

#[repr(C)]
pub(super) struct WriteArgs {
    pub(super) file: Fh3,
    pub(super) offset: u64,
    pub(super) count: u32,
    pub(super) stable: u32,
    pub(super) data: Fh3,
}

/// `COMMIT3args` and `READ3args`.
#[repr(C)]
pub(super) struct RangeArgs {
    pub(super) file: Fh3,
    pub(super) offset: u64,
    pub(super) count: u32,
}

#[repr(C)]
pub(super) struct RenameArgs {
    pub(super) from: DirOp,
    pub(super) to: DirOp,
}

#[repr(C)]
pub(super) struct ReaddirplusArgs {
    pub(super) dir: Fh3,
    pub(super) cookie: u64,
    pub(super) verifier: [u8; 8],
    pub(super) dircount: u32,
    pub(super) maxcount: u32,
}

#[repr(C)]
pub(super) struct LookupReply {
    pub(super) status: u32,
    pub(super) object: Fh3,
    pub(super) attributes: PostOpAttr,
}

/// `CREATE3res` and `MKDIR3res`.
#[repr(C)]
pub(super) struct MadeReply {
    pub(super) status: u32,
    pub(super) handle: PostOpFh,
    pub(super) attributes: PostOpAttr,
}

#[repr(C)]
pub(super) struct GetattrReply {
    pub(super) status: u32,
    pub(super) attributes: Fattr3,
}

#[repr(C)]
pub(super) struct WriteReply {
    pub(super) status: u32,
    pub(super) wcc: WccData,
    pub(super) count: u32,
}

#[repr(C)]
pub(super) struct ReadReply {
    pub(super) status: u32,
    pub(super) attributes: PostOpAttr,
    pub(super) count: u32,
    pub(super) eof: u32,
    pub(super) data: Fh3,
}

#[repr(C)]
pub(super) struct EntryPlus {
    pub(super) fileid: u64,
    pub(super) name: *const c_char,
    pub(super) cookie: u64,
    pub(super) attributes: PostOpAttr,
    pub(super) handle: PostOpFh,
    pub(super) next: *const EntryPlus,
}

#[repr(C)]
pub(super) struct ReaddirplusReply {
    pub(super) status: u32,
    pub(super) attributes: PostOpAttr,
    pub(super) verifier: [u8; 8],
    pub(super) entries: *const EntryPlus,
    pub(super) eof: u32,
}

/// What `nfsstat3` means as an errno, and its name.
pub(super) fn nfs_error(status: u32) -> (i32, &'static str) {
    match status {
        1 => (libc::EPERM, "NFS3ERR_PERM"),
        2 => (libc::ENOENT, "NFS3ERR_NOENT"),
        5 => (libc::EIO, "NFS3ERR_IO"),
        6 => (libc::ENXIO, "NFS3ERR_NXIO"),
        13 => (libc::EACCES, "NFS3ERR_ACCES"),
        17 => (libc::EEXIST, "NFS3ERR_EXIST"),
        18 => (libc::EXDEV, "NFS3ERR_XDEV"),
        19 => (libc::ENODEV, "NFS3ERR_NODEV"),
        20 => (libc::ENOTDIR, "NFS3ERR_NOTDIR"),
        21 => (libc::EISDIR, "NFS3ERR_ISDIR"),
        22 => (libc::EINVAL, "NFS3ERR_INVAL"),
        27 => (libc::EFBIG, "NFS3ERR_FBIG"),
        28 => (libc::ENOSPC, "NFS3ERR_NOSPC"),
        30 => (libc::EROFS, "NFS3ERR_ROFS"),
        31 => (libc::EMLINK, "NFS3ERR_MLINK"),
        63 => (libc::ENAMETOOLONG, "NFS3ERR_NAMETOOLONG"),
        66 => (libc::ENOTEMPTY, "NFS3ERR_NOTEMPTY"),
        69 => (libc::EDQUOT, "NFS3ERR_DQUOT"),
        70 => (libc::ESTALE, "NFS3ERR_STALE"),
        10001 => (libc::EBADF, "NFS3ERR_BADHANDLE"),
        10004 => (libc::EOPNOTSUPP, "NFS3ERR_NOTSUPP"),
        10008 => (libc::EAGAIN, "NFS3ERR_JUKEBOX"),
        _ => (libc::EIO, "an NFS3 error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The layouts libnfs 4.0's generated header gives on x86-64 (printed
    /// with offsetof from that header): a mistake here would read the
    /// wrong bytes of a reply.
    #[test]
    fn the_structures_have_libnfs_layouts() {
        assert_eq!(size_of::<Fh3>(), 16);
        assert_eq!(size_of::<DirOp>(), 24);
        assert_eq!(size_of::<Fattr3>(), 88);
        assert_eq!(offset_of!(Fattr3, size), 24);
        assert_eq!(offset_of!(Fattr3, fsid), 48);
        assert_eq!(size_of::<PostOpAttr>(), 96);
        assert_eq!(size_of::<Sattr3>(), 64);
        assert_eq!(offset_of!(Sattr3, size), 24);
        assert_eq!(offset_of!(Sattr3, atime), 40);
        assert_eq!(offset_of!(CreateArgs, how), 24);
        assert_eq!(offset_of!(CreateArgs, attributes), 32);
        assert_eq!(offset_of!(WriteArgs, offset), 16);
        assert_eq!(offset_of!(WriteArgs, data), 32);
        assert_eq!(offset_of!(LookupReply, object), 8);
        assert_eq!(offset_of!(LookupReply, attributes), 24);
        assert_eq!(offset_of!(MadeReply, attributes), 32);
        assert_eq!(size_of::<WccData>(), 128);
        assert_eq!(offset_of!(WriteReply, count), 136);
        assert_eq!(offset_of!(ReadReply, count), 104);
        assert_eq!(offset_of!(ReadReply, data), 112);
        assert_eq!(offset_of!(EntryPlus, attributes), 24);
        assert_eq!(offset_of!(EntryPlus, next), 144);
        assert_eq!(offset_of!(ReaddirplusReply, verifier), 104);
        assert_eq!(offset_of!(ReaddirplusReply, eof), 120);
        assert_eq!(offset_of!(ReaddirplusArgs, dircount), 32);
        assert_eq!(offset_of!(MkdirArgs, attributes), 24);
        assert_eq!(offset_of!(GetattrReply, attributes), 8);
        assert_eq!(offset_of!(MadeReply, handle), 8);
        assert_eq!(offset_of!(ReaddirplusReply, entries), 112);
    }

    #[test]
    fn nfs_errors_read_as_this_systems_errno() {
        assert_eq!(nfs_error(66).0, libc::ENOTEMPTY);
        assert_eq!(nfs_error(70).0, libc::ESTALE);
        assert_eq!(nfs_error(17).0, libc::EEXIST);
    }
}
