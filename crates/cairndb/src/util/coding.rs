//! Fixed-width little-endian integers and LEB128 varints, the only integer encodings on disk.
//!
//! Decoders never panic on short or malformed input: they return `None` and the caller turns that
//! into a Corruption error that names its file and offset.

/// Appends `v` as 4 little-endian bytes.
#[inline]
pub fn put_fixed32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends `v` as 8 little-endian bytes.
#[inline]
pub fn put_fixed64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Reads 4 little-endian bytes at the start of `b`. Requires `b.len() >= 4`.
#[inline]
pub fn decode_fixed32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

/// Reads 8 little-endian bytes at the start of `b`. Requires `b.len() >= 8`.
#[inline]
pub fn decode_fixed64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// Appends `v` as a LEB128 varint (1 to 5 bytes).
#[inline]
pub fn put_varint32(out: &mut Vec<u8>, v: u32) {
    put_varint64(out, u64::from(v));
}

/// Appends `v` as a LEB128 varint (1 to 10 bytes).
#[inline]
pub fn put_varint64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Number of bytes `put_varint64(v)` writes.
#[inline]
pub fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Appends a varint length followed by the bytes.
#[inline]
pub fn put_length_prefixed(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint64(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Decodes a varint64 from the start of `b`; returns the value and the bytes consumed, or `None`
/// when `b` ends inside the varint or the varint is longer than 10 bytes or overflows.
#[inline]
pub fn get_varint64(b: &[u8]) -> Option<(u64, usize)> {
    if let Some(&first) = b.first() {
        if first < 0x80 {
            return Some((u64::from(first), 1));
        }
    }
    let mut result: u64 = 0;
    for (i, &byte) in b.iter().enumerate().take(10) {
        let part = u64::from(byte & 0x7f);
        if i == 9 && byte > 1 {
            return None; // would overflow 64 bits
        }
        result |= part << (7 * i);
        if byte & 0x80 == 0 {
            return Some((result, i + 1));
        }
    }
    None
}

/// Decodes a varint that must fit in 32 bits.
#[inline]
pub fn get_varint32(b: &[u8]) -> Option<(u32, usize)> {
    let (v, n) = get_varint64(b)?;
    u32::try_from(v).ok().map(|v| (v, n))
}

/// A cursor over a byte slice for decoding; every getter returns `None` past the end.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// Starts decoding `buf` at its first byte.
    pub fn new(buf: &'a [u8]) -> Self {
        Decoder { buf, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    pub fn remaining(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// True when every byte was consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// Reads one byte.
    pub fn u8(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// Reads a fixed32.
    pub fn fixed32(&mut self) -> Option<u32> {
        let b = self.bytes(4)?;
        Some(decode_fixed32(b))
    }

    /// Reads a fixed64.
    pub fn fixed64(&mut self) -> Option<u64> {
        let b = self.bytes(8)?;
        Some(decode_fixed64(b))
    }

    /// Reads a varint64.
    pub fn varint64(&mut self) -> Option<u64> {
        let (v, n) = get_varint64(self.remaining())?;
        self.pos += n;
        Some(v)
    }

    /// Reads a varint32.
    pub fn varint32(&mut self) -> Option<u32> {
        let (v, n) = get_varint32(self.remaining())?;
        self.pos += n;
        Some(v)
    }

    /// Reads `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let b = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(b)
    }

    /// Reads a varint length and that many bytes.
    pub fn length_prefixed(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint64()?).ok()?;
        self.bytes(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn varint_round_trip(v: u64) {
            let mut b = Vec::new();
            put_varint64(&mut b, v);
            prop_assert_eq!(b.len(), varint_len(v));
            prop_assert_eq!(get_varint64(&b), Some((v, b.len())));
            // Every strict prefix is incomplete.
            for n in 0..b.len() {
                prop_assert_eq!(get_varint64(&b[..n]), None);
            }
        }

        #[test]
        fn decoder_never_panics(bytes: Vec<u8>) {
            let mut d = Decoder::new(&bytes);
            while d.length_prefixed().is_some() {}
            let mut d = Decoder::new(&bytes);
            while d.varint32().is_some() {}
        }
    }

    #[test]
    fn overlong_varints_are_rejected() {
        assert_eq!(get_varint64(&[0xff; 11]), None);
        assert_eq!(
            get_varint64(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            None
        );
        assert_eq!(get_varint32(&[0xff, 0xff, 0xff, 0xff, 0x1f]), None);
        assert_eq!(
            get_varint32(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
            Some((u32::MAX, 5))
        );
    }
}
