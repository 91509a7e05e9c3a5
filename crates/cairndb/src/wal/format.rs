//! The byte layout of log fragments, shared by [`LogWriter`](super::LogWriter) and
//! [`LogReader`](super::LogReader). Specified in `docs/format/wal.md`.
//!
//! Owns no state: constants, the fragment-type enum and pure encode/decode functions.
//!
//! Invariants:
//! 1. A log is a sequence of [`BLOCK_SIZE`] blocks; the last one may be partial. A fragment never
//!    crosses a block boundary, and every block starts with a fragment header.
//! 2. A block tail shorter than [`HEADER_SIZE`] holds no fragment and is written as zeros.
//! 3. The checksum covers the type byte, the log number and the payload, in that order, so a
//!    fragment copied from another log (different log number) fails as "old log", not as data.
//! 4. [`FragmentType`] values are persisted: never renumbered; 0 is invalid (it is what zero
//!    padding and preallocated space read as).

use crate::util::checksum::crc32c_masked;
use crate::util::coding::{decode_fixed32, put_fixed32};

/// Size of a log block in bytes. Persisted: every log ever written uses it.
pub const BLOCK_SIZE: usize = 32 * 1024;

/// Size of a fragment header: checksum (4), length (2), type (1), log number (4).
pub const HEADER_SIZE: usize = 11;

/// The largest payload one fragment can carry (a whole block minus its header).
pub const MAX_FRAGMENT_PAYLOAD: usize = BLOCK_SIZE - HEADER_SIZE;

/// Fragment types with this bit set are metadata a reader that does not know them may skip
/// (after checking their checksum). No such type is defined yet; the bit reserves the space so
/// that a later format can add one without breaking older readers.
pub const SAFE_IGNORE_TYPE_BIT: u8 = 0x80;

/// Which part of a record a fragment carries. Persisted: values never change, 0 is invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FragmentType {
    /// The whole record.
    Full = 1,
    /// The first fragment of a record that continues in the next block.
    First = 2,
    /// A fragment that neither starts nor ends its record.
    Middle = 3,
    /// The fragment that ends a record started by a `First`.
    Last = 4,
}

impl FragmentType {
    /// Decodes a persisted type byte; `None` for 0, unknown types and safe-to-ignore types.
    pub fn from_u8(b: u8) -> Option<FragmentType> {
        Some(match b {
            1 => FragmentType::Full,
            2 => FragmentType::First,
            3 => FragmentType::Middle,
            4 => FragmentType::Last,
            _ => return None,
        })
    }

    /// The type of a fragment given whether it starts and whether it ends its record.
    pub fn for_position(starts: bool, ends: bool) -> FragmentType {
        match (starts, ends) {
            (true, true) => FragmentType::Full,
            (true, false) => FragmentType::First,
            (false, false) => FragmentType::Middle,
            (false, true) => FragmentType::Last,
        }
    }
}

/// The fields of a fragment header, decoded but not yet verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentHeader {
    /// The stored (masked) checksum.
    pub checksum: u32,
    /// Payload length in bytes.
    pub len: u16,
    /// The raw type byte (see [`FragmentType::from_u8`]).
    pub kind: u8,
    /// Low 32 bits of the number of the log file the fragment was written for.
    pub log_number: u32,
}

impl FragmentHeader {
    /// Decodes the first [`HEADER_SIZE`] bytes of `b`; `None` if `b` is shorter.
    pub fn decode(b: &[u8]) -> Option<FragmentHeader> {
        let h = b.get(..HEADER_SIZE)?;
        Some(FragmentHeader {
            checksum: decode_fixed32(h),
            len: u16::from_le_bytes([h[4], h[5]]),
            kind: h[6],
            log_number: decode_fixed32(&h[7..]),
        })
    }

    /// True when all header fields are zero: the bytes of padding or preallocated space.
    pub fn is_zero(&self) -> bool {
        self.checksum == 0 && self.len == 0 && self.kind == 0 && self.log_number == 0
    }
}

/// The checksum stored in a fragment header for `kind`, `log_number` and `payload`.
pub fn fragment_checksum(kind: u8, log_number: u32, payload: &[u8]) -> u32 {
    crc32c_masked(&[&[kind], &log_number.to_le_bytes(), payload])
}

/// Appends a fragment (header and payload) to `out`.
///
/// # Panics
/// If `payload` is longer than [`MAX_FRAGMENT_PAYLOAD`] (a bug in the caller's framing).
pub fn encode_fragment(out: &mut Vec<u8>, kind: u8, log_number: u32, payload: &[u8]) {
    assert!(
        payload.len() <= MAX_FRAGMENT_PAYLOAD,
        "fragment payload exceeds a block"
    );
    put_fixed32(out, fragment_checksum(kind, log_number, payload));
    out.extend_from_slice(&(payload.len() as u16).to_le_bytes());
    out.push(kind);
    put_fixed32(out, log_number);
    out.extend_from_slice(payload);
}

/// The low 32 bits of a file number, as stored in fragment headers.
#[inline]
pub fn log_number_tag(file_number: u64) -> u32 {
    file_number as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn persisted_fragment_types_never_change() {
        assert_eq!(FragmentType::from_u8(0), None);
        for b in 0..=255u8 {
            if let Some(t) = FragmentType::from_u8(b) {
                assert_eq!(t as u8, b);
            }
        }
        assert_eq!(FragmentType::Full as u8, 1);
        assert_eq!(FragmentType::Last as u8, 4);
    }

    /// The worked example of docs/format/wal.md, byte for byte.
    #[test]
    fn worked_example_matches_the_spec() {
        let mut out = Vec::new();
        encode_fragment(&mut out, FragmentType::Full as u8, 7, b"hello");
        let hex: Vec<String> = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex.join(" "),
            "a9 4c dd b3 05 00 01 07 00 00 00 68 65 6c 6c 6f"
        );
        let h = FragmentHeader::decode(&out).expect("header");
        assert_eq!((h.len, h.kind, h.log_number), (5, 1, 7));
        assert_eq!(h.checksum, fragment_checksum(1, 7, b"hello"));
    }

    #[test]
    fn header_decode_needs_eleven_bytes() {
        assert_eq!(FragmentHeader::decode(&[0; 10]), None);
        assert!(FragmentHeader::decode(&[0; 11])
            .expect("zero header")
            .is_zero());
    }
}
