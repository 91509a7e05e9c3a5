//! The fixed framing of a table file: block handles, block trailers and the footer.
//! Byte-level specification: `docs/format/sstable.md` (sections "Block handle", "Block trailer",
//! "Footer").
//!
//! Called by the table builder (to frame what it writes) and the table reader (to check what it
//! reads), from any thread; everything here is a pure function of its arguments.
//!
//! Invariants:
//! 1. Every block on disk is followed by a [`BLOCK_TRAILER_LEN`]-byte trailer: one compression-type
//!    byte and a fixed32 checksum over the stored contents and that byte, plus a modifier derived
//!    from the block's file offset, so that a block read from the wrong place fails its checksum.
//! 2. The footer is exactly [`FOOTER_LEN`] bytes at the end of the file and ends with [`MAGIC`].
//!    Its own checksum covers every footer byte except the checksum field.
//! 3. The checksum type, format version, footer checksum and magic keep their positions relative to
//!    the end of the file in every format version, so an old reader can always tell "newer
//!    version" ([`Error::NotSupported`]) apart from damage ([`Error::Corruption`]).

use std::path::Path;

use crate::error::{Error, Result};
use crate::util::checksum::ChecksumType;
use crate::util::coding::{decode_fixed32, put_fixed32, put_varint64, Decoder};

/// The magic number that ends every table file: the ASCII bytes `CAIRNSST` read as a little-endian
/// u64.
pub const MAGIC: u64 = u64::from_le_bytes(*b"CAIRNSST");

/// The format version this build writes, and the newest it reads. Version 0 is reserved as
/// invalid. Version 2 moved range deletions out of the data blocks into the range-deletion block.
pub const FORMAT_VERSION: u32 = 2;

/// The oldest format version this build reads. Version 1 stored range deletions inline in the
/// data blocks; a reader of version 2 would not see them (they would not reach the read path as
/// tombstones), so version 1 tables are refused rather than misread.
pub const MIN_FORMAT_VERSION: u32 = 2;

/// Bytes after every block: compression type (1) + checksum (4).
pub const BLOCK_TRAILER_LEN: usize = 5;

/// Bytes reserved at the start of the footer for the two handles, zero padded.
const FOOTER_HANDLES_LEN: usize = 2 * BlockHandle::MAX_ENCODED_LEN;

/// Size of the footer: handles (40) + checksum type (1) + format version (4) + footer checksum (4) +
/// magic (8).
pub const FOOTER_LEN: usize = FOOTER_HANDLES_LEN + 1 + 4 + 4 + 8;

const CHECKSUM_TYPE_AT: usize = FOOTER_HANDLES_LEN;
const VERSION_AT: usize = CHECKSUM_TYPE_AT + 1;
const FOOTER_CHECKSUM_AT: usize = VERSION_AT + 4;
const MAGIC_AT: usize = FOOTER_CHECKSUM_AT + 4;

/// Where a block lives in the file: its offset and the size of its stored contents, not counting
/// the trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BlockHandle {
    /// File offset of the block's first byte.
    pub offset: u64,
    /// Length of the stored (possibly compressed) contents, without the trailer.
    pub size: u64,
}

impl BlockHandle {
    /// The longest encoding: two 10-byte varints.
    pub const MAX_ENCODED_LEN: usize = 20;

    /// Appends the handle as two varints (offset, size).
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint64(out, self.offset);
        put_varint64(out, self.size);
    }

    /// The handle as two varints.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(Self::MAX_ENCODED_LEN);
        self.encode_to(&mut v);
        v
    }

    /// Decodes a handle from the front of `d`; `None` if the varints are incomplete or malformed.
    pub fn decode_from(d: &mut Decoder<'_>) -> Option<BlockHandle> {
        Some(BlockHandle {
            offset: d.varint64()?,
            size: d.varint64()?,
        })
    }

    /// Decodes a handle that must fill `bytes` exactly (an index or metaindex value).
    pub fn decode_exact(bytes: &[u8]) -> Option<BlockHandle> {
        let mut d = Decoder::new(bytes);
        let h = Self::decode_from(&mut d)?;
        d.is_empty().then_some(h)
    }

    /// The offset one past the block's trailer, or `None` on overflow.
    pub fn end_with_trailer(&self) -> Option<u64> {
        self.offset
            .checked_add(self.size)?
            .checked_add(BLOCK_TRAILER_LEN as u64)
    }
}

/// A value mixed into every block checksum so that a block read from the wrong offset (a misdirected
/// read, a handle that points at another intact block) fails verification. Zero at offset 0.
#[inline]
pub fn offset_modifier(offset: u64) -> u32 {
    let folded = (offset ^ (offset >> 32)) as u32;
    folded.wrapping_mul(0x9e37_79b1)
}

/// The checksum stored in a block trailer: `checksum(contents ++ [type]) + offset_modifier(offset)`.
/// `contents_and_type` is the stored contents followed by the compression-type byte.
#[inline]
pub fn block_checksum(kind: ChecksumType, contents_and_type: &[u8], offset: u64) -> u32 {
    kind.of(&[contents_and_type])
        .wrapping_add(offset_modifier(offset))
}

/// The last [`FOOTER_LEN`] bytes of a table file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// Handle of the metaindex block (names of the meta blocks and their handles).
    pub metaindex: BlockHandle,
    /// Handle of the index block.
    pub index: BlockHandle,
    /// The checksum function of every block and of the footer.
    pub checksum: ChecksumType,
    /// The format version the file was written in.
    pub format_version: u32,
}

impl Footer {
    /// The footer's [`FOOTER_LEN`] bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FOOTER_LEN);
        self.metaindex.encode_to(&mut out);
        self.index.encode_to(&mut out);
        out.resize(FOOTER_HANDLES_LEN, 0);
        out.push(self.checksum as u8);
        put_fixed32(&mut out, self.format_version);
        put_fixed32(&mut out, 0); // checksum placeholder, filled below
        out.extend_from_slice(&MAGIC.to_le_bytes());
        let sum = footer_checksum(self.checksum, &out);
        out[FOOTER_CHECKSUM_AT..MAGIC_AT].copy_from_slice(&sum.to_le_bytes());
        out
    }

    /// Decodes and verifies a footer read from `offset` of `path`.
    ///
    /// # Errors
    /// [`Error::Corruption`] for a wrong length, a bad magic, an unknown checksum type, a checksum
    /// mismatch, version 0, malformed handles or non-zero padding; [`Error::NotSupported`] for an
    /// intact footer of a newer format version than [`FORMAT_VERSION`] or an older one than
    /// [`MIN_FORMAT_VERSION`].
    pub fn decode(bytes: &[u8], path: &Path, offset: u64) -> Result<Footer> {
        let bad = |msg: &str| Error::corruption(path, offset, format!("table footer: {msg}"));
        let bytes: &[u8; FOOTER_LEN] = bytes.try_into().map_err(|_| bad("wrong length"))?;
        if bytes[MAGIC_AT..] != MAGIC.to_le_bytes() {
            return Err(bad("bad magic number (not a table file)"));
        }
        let version = decode_fixed32(&bytes[VERSION_AT..]);
        let Some(checksum) = ChecksumType::from_u8(bytes[CHECKSUM_TYPE_AT]) else {
            return Err(newer_or(version, bad("unknown checksum type")));
        };
        let stored = decode_fixed32(&bytes[FOOTER_CHECKSUM_AT..]);
        let actual = footer_checksum(checksum, bytes);
        if stored != actual {
            return Err(Error::checksum_mismatch(
                path,
                offset,
                "table footer",
                stored,
                actual,
            ));
        }
        if version == 0 {
            return Err(bad("format version 0 is invalid"));
        }
        if version > FORMAT_VERSION {
            return Err(not_supported(version));
        }
        if version < MIN_FORMAT_VERSION {
            return Err(Error::NotSupported(format!(
                "table format version {version} (range deletions inline in data blocks) is no \
                 longer read; this build reads versions {MIN_FORMAT_VERSION}..={FORMAT_VERSION}"
            )));
        }
        let mut d = Decoder::new(&bytes[..FOOTER_HANDLES_LEN]);
        let metaindex =
            BlockHandle::decode_from(&mut d).ok_or_else(|| bad("bad metaindex handle"))?;
        let index = BlockHandle::decode_from(&mut d).ok_or_else(|| bad("bad index handle"))?;
        if d.remaining().iter().any(|&b| b != 0) {
            return Err(bad("non-zero padding"));
        }
        Ok(Footer {
            metaindex,
            index,
            checksum,
            format_version: version,
        })
    }
}

/// `NotSupported` when `version` is newer than this build knows, else `otherwise`.
fn newer_or(version: u32, otherwise: Error) -> Error {
    if version > FORMAT_VERSION {
        not_supported(version)
    } else {
        otherwise
    }
}

fn not_supported(version: u32) -> Error {
    Error::NotSupported(format!(
        "table format version {version} is newer than the newest this build reads ({FORMAT_VERSION})"
    ))
}

/// Checksum of a footer: every byte except the checksum field itself.
fn footer_checksum(kind: ChecksumType, footer: &[u8]) -> u32 {
    kind.of(&[&footer[..FOOTER_CHECKSUM_AT], &footer[MAGIC_AT..]])
}

/// Moves a corruption detected on anonymous bytes (file "" and a block-relative offset) to `path`
/// at the block's file `offset`, keeping the relative position in the message. Other errors pass
/// through unchanged.
pub(crate) fn locate(e: Error, path: &Path, offset: u64) -> Error {
    match e {
        Error::Corruption(mut c) if c.file.as_os_str().is_empty() => {
            c.message = format!("{} (byte {} of the block)", c.message, c.offset);
            c.file = path.to_path_buf();
            c.offset = offset;
            Error::Corruption(c)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footer() -> Footer {
        Footer {
            metaindex: BlockHandle {
                offset: 1 << 40,
                size: 300,
            },
            index: BlockHandle {
                offset: u64::MAX,
                size: u64::MAX,
            },
            checksum: ChecksumType::Crc32c,
            format_version: FORMAT_VERSION,
        }
    }

    #[test]
    fn footer_round_trip_and_length() {
        let f = footer();
        let bytes = f.encode();
        assert_eq!(bytes.len(), FOOTER_LEN);
        assert_eq!(&bytes[FOOTER_LEN - 8..], b"CAIRNSST");
        assert_eq!(
            Footer::decode(&bytes, Path::new("t"), 0).expect("decode"),
            f
        );
    }

    #[test]
    fn footer_detects_every_bit_flip() {
        let bytes = footer().encode();
        for i in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[i / 8] ^= 1 << (i % 8);
            let e = Footer::decode(&b, Path::new("t"), 9).expect_err("flip must be detected");
            assert!(e.is_corruption(), "bit {i}: {e}");
        }
    }

    #[test]
    fn newer_version_is_not_supported() {
        let f = Footer {
            format_version: FORMAT_VERSION + 1,
            ..footer()
        };
        let e = Footer::decode(&f.encode(), Path::new("t"), 0).expect_err("newer");
        assert!(matches!(e, Error::NotSupported(_)), "{e}");
    }

    #[test]
    fn version_1_is_refused_as_not_supported() {
        let f = Footer {
            format_version: 1,
            ..footer()
        };
        let e = Footer::decode(&f.encode(), Path::new("t"), 0).expect_err("version 1");
        assert!(
            matches!(&e, Error::NotSupported(m) if m.contains("version 1")),
            "{e}"
        );
    }

    #[test]
    fn handle_decoding_is_exact() {
        let h = BlockHandle {
            offset: 12345,
            size: 678,
        };
        assert_eq!(BlockHandle::decode_exact(&h.encode()), Some(h));
        let mut long = h.encode();
        long.push(0);
        assert_eq!(BlockHandle::decode_exact(&long), None);
        assert_eq!(BlockHandle::decode_exact(&[0x80]), None);
        assert_eq!(
            BlockHandle {
                offset: u64::MAX,
                size: 1
            }
            .end_with_trailer(),
            None
        );
    }

    #[test]
    fn offset_modifier_separates_offsets() {
        assert_eq!(offset_modifier(0), 0);
        assert_ne!(offset_modifier(4096), offset_modifier(8192));
        assert_ne!(offset_modifier(1 << 32), 0);
    }
}
