//! Block compression (LZ4, Zstd, Snappy) and bounded decompression. Spec: `docs/format/sstable.md`,
//! section "Compression".
//!
//! The table builder owns one [`Compressor`] (it keeps a Zstd context between blocks); readers call
//! [`decompress`] from any thread (each thread keeps its own Zstd context).
//!
//! Invariants:
//! 1. A compressed block's stored contents are `varint64(uncompressed length) ++ payload`, for LZ4
//!    (block format), Zstd (one frame) and Snappy (raw format) alike; decompression must produce
//!    exactly that length.
//! 2. A block is stored compressed only when compression saves at least 1/8 of its size
//!    ([`worth_compressing`]); otherwise it is stored as is with type `None`.
//! 3. Decompression never allocates more than [`MAX_UNCOMPRESSED_BLOCK_BYTES`]: a larger claimed
//!    length is corruption, decided before any allocation.

use std::cell::RefCell;

use crate::error::{Error, Result};
use crate::types::CompressionType;
use crate::util::coding::{get_varint64, put_varint64};

/// The largest uncompressed block the reader will inflate. The builder stores larger blocks
/// uncompressed, so every valid file stays readable.
pub const MAX_UNCOMPRESSED_BLOCK_BYTES: usize = 64 << 20;

/// True when `compressed_len` saves at least 12.5% over `raw_len`, the point below which the CPU
/// spent decompressing on every read is not worth the bytes saved.
pub fn worth_compressing(raw_len: usize, compressed_len: usize) -> bool {
    compressed_len <= raw_len - raw_len / 8
}

/// Compresses blocks for one table builder.
pub struct Compressor {
    kind: CompressionType,
    zstd_level: i32,
    zstd: Option<zstd::bulk::Compressor<'static>>,
}

impl std::fmt::Debug for Compressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compressor")
            .field("kind", &self.kind)
            .field("zstd_level", &self.zstd_level)
            .finish()
    }
}

impl Compressor {
    /// A compressor producing `kind` blocks (Zstd at `zstd_level`).
    pub fn new(kind: CompressionType, zstd_level: i32) -> Self {
        Compressor {
            kind,
            zstd_level,
            zstd: None,
        }
    }

    /// Compresses `raw` into `out` (cleared first) and returns the type to record. Returns
    /// [`CompressionType::None`] and leaves `out` empty when the block should be stored as is:
    /// compression is off, did not save enough, failed, or the block is too large to inflate.
    pub fn compress(&mut self, raw: &[u8], out: &mut Vec<u8>) -> CompressionType {
        out.clear();
        if self.kind == CompressionType::None || raw.len() > MAX_UNCOMPRESSED_BLOCK_BYTES {
            return CompressionType::None;
        }
        put_varint64(out, raw.len() as u64);
        let ok = match self.kind {
            CompressionType::Lz4 => lz4_into(raw, out),
            CompressionType::Zstd => self.zstd_into(raw, out),
            CompressionType::Snappy => snappy_into(raw, out),
            CompressionType::None => false,
        };
        if ok && worth_compressing(raw.len(), out.len()) {
            self.kind
        } else {
            out.clear();
            CompressionType::None
        }
    }

    fn zstd_into(&mut self, raw: &[u8], out: &mut Vec<u8>) -> bool {
        if self.zstd.is_none() {
            // A failed context creation means "store uncompressed", never a broken file.
            self.zstd = zstd::bulk::Compressor::new(self.zstd_level).ok();
        }
        let Some(z) = self.zstd.as_mut() else {
            return false;
        };
        // Compress into a slice after the length prefix (a `Vec` destination would be written
        // from its start, over the prefix).
        let start = out.len();
        out.resize(start + zstd::zstd_safe::compress_bound(raw.len()), 0);
        match z.compress_to_buffer(raw, &mut out[start..]) {
            Ok(n) => {
                out.truncate(start + n);
                true
            }
            Err(_) => false,
        }
    }
}

/// Appends the LZ4 block encoding of `raw` to `out`.
fn lz4_into(raw: &[u8], out: &mut Vec<u8>) -> bool {
    let start = out.len();
    out.resize(
        start + lz4_flex::block::get_maximum_output_size(raw.len()),
        0,
    );
    match lz4_flex::block::compress_into(raw, &mut out[start..]) {
        Ok(n) => {
            out.truncate(start + n);
            true
        }
        Err(_) => false,
    }
}

/// Appends the Snappy raw encoding of `raw` to `out`.
fn snappy_into(raw: &[u8], out: &mut Vec<u8>) -> bool {
    let start = out.len();
    out.resize(start + snap::raw::max_compress_len(raw.len()), 0);
    match snap::raw::Encoder::new().compress(raw, &mut out[start..]) {
        Ok(n) => {
            out.truncate(start + n);
            true
        }
        Err(_) => false,
    }
}

/// Decompresses a block's stored contents. `None` returns a copy.
///
/// # Errors
/// [`Error::Corruption`] (anonymous: file "" and offset 0, for the caller to locate) when the
/// length prefix is malformed or above [`MAX_UNCOMPRESSED_BLOCK_BYTES`], the payload does not
/// decode, or it decodes to a different length than claimed.
pub fn decompress(kind: CompressionType, stored: &[u8]) -> Result<Vec<u8>> {
    if kind == CompressionType::None {
        return Ok(stored.to_vec());
    }
    let bad = |msg: &str| Error::corruption("", 0, format!("{kind:?} block: {msg}"));
    let (claimed, n) = get_varint64(stored).ok_or_else(|| bad("malformed length prefix"))?;
    let len = usize::try_from(claimed)
        .ok()
        .filter(|&l| l <= MAX_UNCOMPRESSED_BLOCK_BYTES)
        .ok_or_else(|| {
            bad(&format!(
                "claimed uncompressed length {claimed} is over the limit"
            ))
        })?;
    let payload = stored.get(n..).unwrap_or_default();
    let got = match kind {
        CompressionType::Lz4 => lz4_decode(payload, len),
        CompressionType::Zstd => zstd_decode(payload, len),
        CompressionType::Snappy => snappy_decode(payload, len),
        CompressionType::None => None,
    };
    got.filter(|v| v.len() == len)
        .ok_or_else(|| bad("payload does not decode to the claimed length"))
}

/// LZ4 cannot expand by more than 255 times (one literal-length byte per 255 output bytes), so a
/// longer claim is rejected before allocating.
fn lz4_decode(payload: &[u8], len: usize) -> Option<Vec<u8>> {
    if len > payload.len().saturating_mul(255).saturating_add(16) {
        return None;
    }
    let mut out = vec![0; len];
    let n = lz4_flex::block::decompress_into(payload, &mut out).ok()?;
    out.truncate(n);
    Some(out)
}

/// A Snappy payload states its own uncompressed length; one that disagrees with the prefix is
/// rejected before allocating.
fn snappy_decode(payload: &[u8], len: usize) -> Option<Vec<u8>> {
    if snap::raw::decompress_len(payload).ok()? != len {
        return None;
    }
    let mut out = vec![0; len];
    let n = snap::raw::Decoder::new()
        .decompress(payload, &mut out)
        .ok()?;
    out.truncate(n);
    Some(out)
}

thread_local! {
    /// One Zstd decompression context per reading thread: creating one costs more than
    /// decompressing a 4 KiB block.
    static ZSTD_DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// The builder writes one frame with its content size in the header; a frame whose header claims
/// another size is rejected before allocating.
fn zstd_decode(payload: &[u8], len: usize) -> Option<Vec<u8>> {
    match zstd::zstd_safe::get_frame_content_size(payload) {
        Ok(Some(n)) if n == len as u64 => {}
        _ => return None,
    }
    ZSTD_DECOMPRESSOR.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            *slot = zstd::bulk::Decompressor::new().ok();
        }
        let d = slot.as_mut()?;
        // The capacity is the claimed length: zstd stops with an error rather than write past it.
        let mut out = Vec::with_capacity(len);
        d.decompress_to_buffer(payload, &mut out).ok()?;
        Some(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressible(n: usize) -> Vec<u8> {
        (0..n).map(|i| b"abcdefgh"[(i / 7) % 8]).collect()
    }

    #[test]
    fn round_trip_each_type() {
        let raw = compressible(10_000);
        for kind in [
            CompressionType::Lz4,
            CompressionType::Zstd,
            CompressionType::Snappy,
        ] {
            let mut c = Compressor::new(kind, 3);
            let mut out = Vec::new();
            assert_eq!(c.compress(&raw, &mut out), kind);
            assert!(out.len() < raw.len() / 2);
            assert_eq!(decompress(kind, &out).expect("decompress"), raw);
        }
    }

    #[test]
    fn incompressible_is_stored_as_is() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let raw: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let mut out = Vec::new();
        for kind in [
            CompressionType::Lz4,
            CompressionType::Zstd,
            CompressionType::Snappy,
        ] {
            assert_eq!(
                Compressor::new(kind, 3).compress(&raw, &mut out),
                CompressionType::None
            );
            assert!(out.is_empty());
        }
        assert!(worth_compressing(800, 700));
        assert!(!worth_compressing(800, 701));
    }

    #[test]
    fn huge_claimed_length_is_corruption_without_allocation() {
        let mut stored = Vec::new();
        put_varint64(&mut stored, u64::MAX / 2);
        stored.extend_from_slice(&[0; 16]);
        for kind in [
            CompressionType::Lz4,
            CompressionType::Zstd,
            CompressionType::Snappy,
        ] {
            assert!(decompress(kind, &stored)
                .expect_err("over limit")
                .is_corruption());
        }
    }

    #[test]
    fn wrong_length_or_garbage_is_corruption() {
        let raw = compressible(5000);
        for kind in [
            CompressionType::Lz4,
            CompressionType::Zstd,
            CompressionType::Snappy,
        ] {
            let mut out = Vec::new();
            Compressor::new(kind, 1).compress(&raw, &mut out);
            // Claim one byte more than the payload holds.
            let mut lying = Vec::new();
            put_varint64(&mut lying, raw.len() as u64 + 1);
            let (_, n) = get_varint64(&out).expect("prefix");
            lying.extend_from_slice(&out[n..]);
            assert!(decompress(kind, &lying).is_err());
            assert!(decompress(kind, &[0x05, 1, 2, 3]).is_err());
            assert!(decompress(kind, &[]).is_err());
        }
    }
}
