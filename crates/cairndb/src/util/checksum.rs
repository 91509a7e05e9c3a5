//! Checksums of persisted bytes: CRC32C (hardware accelerated where the CPU has it) and XXH3.
//!
//! Stored CRC32C values are *masked* as LevelDB does, so that the checksum of a byte string that
//! itself contains checksums does not degenerate. XXH3 values are the low 32 bits of XXH3-64.

use crate::error::{Error, Result};

/// Which function covers a file's blocks. Persisted in SST footers: values never change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum ChecksumType {
    /// Masked CRC32C (Castagnoli).
    Crc32c = 1,
    /// Low 32 bits of XXH3-64, the default: fastest on long blocks.
    #[default]
    Xxh3 = 2,
}

impl ChecksumType {
    /// Decodes a persisted checksum-type byte.
    pub fn from_u8(b: u8) -> Option<ChecksumType> {
        match b {
            1 => Some(ChecksumType::Crc32c),
            2 => Some(ChecksumType::Xxh3),
            _ => None,
        }
    }

    /// Parses RocksDB's spelling (`kCRC32c`, `kXXH3`) or a plain name.
    pub fn parse(s: &str) -> Result<ChecksumType> {
        match s.to_ascii_lowercase().as_str() {
            "kcrc32c" | "crc32c" => Ok(ChecksumType::Crc32c),
            "kxxh3" | "xxh3" => Ok(ChecksumType::Xxh3),
            other => Err(Error::InvalidArgument(format!(
                "unsupported checksum type {other:?}"
            ))),
        }
    }

    /// The checksum of `parts` concatenated.
    pub fn of(self, parts: &[&[u8]]) -> u32 {
        match self {
            ChecksumType::Crc32c => {
                let crc = parts.iter().fold(0, |crc, p| crc32c::crc32c_append(crc, p));
                mask_crc(crc)
            }
            ChecksumType::Xxh3 => {
                if let [one] = parts {
                    xxhash_rust::xxh3::xxh3_64(one) as u32
                } else {
                    let mut h = xxhash_rust::xxh3::Xxh3::new();
                    parts.iter().for_each(|p| h.update(p));
                    h.digest() as u32
                }
            }
        }
    }
}

const MASK_DELTA: u32 = 0xa282_ead8;

/// Masks a CRC for storage (rotate right by 15, add a constant).
#[inline]
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// Inverse of [`mask_crc`].
#[inline]
pub fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

/// Masked CRC32C of `parts` concatenated; the checksum of WAL fragments and MANIFEST records.
#[inline]
pub fn crc32c_masked(parts: &[&[u8]]) -> u32 {
    ChecksumType::Crc32c.of(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_round_trip_and_parts() {
        for v in [0u32, 1, 0xdead_beef, u32::MAX] {
            assert_eq!(unmask_crc(mask_crc(v)), v);
        }
        for t in [ChecksumType::Crc32c, ChecksumType::Xxh3] {
            assert_eq!(t.of(&[b"hello ", b"world"]), t.of(&[b"hello world"]));
            assert_ne!(t.of(&[b"hello world"]), t.of(&[b"hello worle"]));
        }
        // Known CRC32C vector (RFC 3720): 32 bytes of zeros.
        assert_eq!(crc32c::crc32c(&[0u8; 32]), 0x8a91_36aa);
    }
}
