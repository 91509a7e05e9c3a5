//! Read-ahead for tables read front to back (compaction inputs): RocksDB's
//! `compaction_readahead_size`.
//!
//! A [`ReadaheadFile`] wraps a table file and serves reads from one buffered window: a read that
//! falls inside the window is a copy; any other read smaller than the window loads the window
//! starting at that read's offset (clamped to the file's end) with one read of the file. A
//! compaction reads its inputs' blocks in file order, so each window of `readahead_bytes` costs
//! one file read instead of one per block. Reads at least as large as the window go straight to
//! the file.
//!
//! # Contract
//! - Any thread (`Send + Sync`); the window sits behind a mutex, so concurrent readers of one
//!   table are correct but share (and may thrash) one window. Compaction uses one reader per
//!   input table.
//! - Bytes are returned exactly as the file holds them; checksums are checked by the table
//!   reader above, as for any read.
//! - An error reading a window is returned for that read and leaves the window empty.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::Result;
use crate::fs::{AccessPattern, RandomAccessFile};

/// A table file read through a read-ahead window. See the module contract.
#[derive(Debug)]
pub struct ReadaheadFile {
    inner: Arc<dyn RandomAccessFile>,
    /// Bytes loaded per window read.
    window_bytes: usize,
    /// The file's size, which bounds every window.
    file_size: u64,
    window: Mutex<Window>,
}

/// The bytes `[offset, offset + data.len())` of the file.
#[derive(Debug, Default)]
struct Window {
    offset: u64,
    data: Vec<u8>,
}

impl ReadaheadFile {
    /// `inner` (of `file_size` bytes) read in windows of `window_bytes` (at least 1).
    pub fn new(inner: Arc<dyn RandomAccessFile>, file_size: u64, window_bytes: u64) -> Self {
        ReadaheadFile {
            inner,
            window_bytes: usize::try_from(window_bytes.max(1)).unwrap_or(usize::MAX),
            file_size,
            window: Mutex::new(Window::default()),
        }
    }
}

impl RandomAccessFile for ReadaheadFile {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let len = buf.len() as u64;
        let end = offset.saturating_add(len);
        if buf.len() >= self.window_bytes || end > self.file_size {
            // Too large to buffer, or past the end (the file reports the error).
            return self.inner.read_exact_at(offset, buf);
        }
        let mut w = self.window.lock();
        let inside = offset >= w.offset && end <= w.offset + w.data.len() as u64;
        if !inside {
            let want = (self.file_size - offset).min(self.window_bytes as u64);
            // `want >= len` because `end <= file_size` and `len < window_bytes`.
            w.data.resize(want as usize, 0);
            w.offset = offset;
            if let Err(e) = self.inner.read_exact_at(offset, &mut w.data) {
                w.data.clear();
                return Err(e);
            }
        }
        let at = (offset - w.offset) as usize;
        buf.copy_from_slice(&w.data[at..at + buf.len()]);
        Ok(())
    }

    fn size(&self) -> Result<u64> {
        self.inner.size()
    }

    fn advise(&self, pattern: AccessPattern) -> Result<()> {
        self.inner.advise(pattern)
    }

    fn readahead(&self, offset: u64, len: u64) -> Result<()> {
        self.inner.readahead(offset, len)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::fs::{FileSystem, MemFs};

    /// Counts the reads that reach the file.
    #[derive(Debug)]
    struct Counting {
        inner: Arc<dyn RandomAccessFile>,
        reads: AtomicU64,
    }

    impl RandomAccessFile for Counting {
        fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            self.inner.read_exact_at(offset, buf)
        }
        fn size(&self) -> Result<u64> {
            self.inner.size()
        }
        fn advise(&self, p: AccessPattern) -> Result<()> {
            self.inner.advise(p)
        }
        fn readahead(&self, o: u64, l: u64) -> Result<()> {
            self.inner.readahead(o, l)
        }
    }

    fn file(bytes: &[u8]) -> Arc<Counting> {
        let fs = MemFs::new();
        let path = Path::new("/f");
        let mut w = fs.create(path).expect("create");
        w.append(bytes).expect("append");
        w.sync().expect("sync");
        drop(w);
        Arc::new(Counting {
            inner: fs.open_read(path).expect("open"),
            reads: AtomicU64::new(0),
        })
    }

    #[test]
    fn sequential_reads_cost_one_file_read_per_window() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let counting = file(&bytes);
        let f = ReadaheadFile::new(counting.clone(), bytes.len() as u64, 4096);
        let mut got = Vec::new();
        let mut buf = [0u8; 100];
        for at in (0..10_000u64).step_by(100) {
            f.read_exact_at(at, &mut buf).expect("read");
            got.extend_from_slice(&buf);
        }
        assert_eq!(got, bytes, "the bytes are the file's");
        // Windows start at 0, 4096 and 8192 (each at the read that left the last one).
        assert_eq!(counting.reads.load(Ordering::Relaxed), 3);
        // A backwards read outside the window loads a new one; a large read goes straight through.
        f.read_exact_at(50, &mut buf).expect("read");
        assert_eq!(&buf[..], &bytes[50..150]);
        let mut big = vec![0u8; 5000];
        f.read_exact_at(1000, &mut big).expect("read");
        assert_eq!(&big[..], &bytes[1000..6000]);
        assert_eq!(counting.reads.load(Ordering::Relaxed), 5);
        // Past the end is the file's error.
        assert!(f.read_exact_at(9_950, &mut buf).is_err());
    }
}
