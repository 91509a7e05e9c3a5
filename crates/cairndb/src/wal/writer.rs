//! Appending records to a log file. Format: `docs/format/wal.md`.
//!
//! Called by one thread at a time: the commit-pipeline leader for the WAL, the version set for the
//! MANIFEST (`&mut self` enforces it). The writer owns the file handle and its position in the
//! current block; it does not own the file's name or decide when to roll to a new log.
//!
//! Invariants:
//! 1. `block_offset == file.len() % BLOCK_SIZE` between calls, so fragments never cross blocks.
//! 2. Each record is assembled in one buffer and handed to the file in as few `append` calls as
//!    possible (one, unless the record is larger than [`MAX_APPEND_BYTES`]).
//! 3. After any failed write or sync the writer is *poisoned*: it refuses every later call,
//!    because the file may hold a partial record and retrying a failed fsync can lose data
//!    silently (the ATC'20 fsync study). The database reopens and recovers instead.
//! 4. Write-behind ranges are contiguous and cover every byte once: `[synced_hint, len)`.
//! 5. Where the file has a syncer, the writer shares a [`LogSync`] that other threads sync the
//!    log through while it keeps appending (`sync.rs`): the writer reports every flush to it and
//!    syncs through it too, and a failed sync there poisons the writer as its own would (3).

use std::sync::Arc;

use super::format::{encode_fragment, log_number_tag, FragmentType, BLOCK_SIZE, HEADER_SIZE};
use super::sync::LogSync;
use crate::error::{Error, Result};
use crate::fs::WritableFile;

/// Above this many assembled bytes, a huge record is handed to the file in several appends so the
/// writer's buffer stays bounded.
pub const MAX_APPEND_BYTES: usize = 256 * 1024;

/// Where a record landed in the log file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHandle {
    /// Offset of the record's first fragment header (after any block padding).
    pub offset: u64,
    /// Bytes from `offset` to the end of the record's last fragment, headers included.
    pub len: u64,
}

/// Appends records to one log file. See the module contract.
#[derive(Debug)]
pub struct LogWriter {
    file: Box<dyn WritableFile>,
    log_number: u32,
    block_offset: usize,
    buf: Vec<u8>,
    bytes_per_sync: u64,
    /// End of the last range handed to `write_behind`.
    write_behind_done: u64,
    poisoned: Option<String>,
    /// Shared with the threads that sync the log (invariant 5); `None` without a syncer.
    sync: Option<Arc<LogSync>>,
}

impl LogWriter {
    /// A writer appending to `file` (new or reopened: writing resumes at its current length).
    /// `log_number` is the file's number; its low 32 bits go into every fragment header.
    /// `bytes_per_sync` asks the OS to start writing back every that many bytes (0 = never).
    pub fn new(file: Box<dyn WritableFile>, log_number: u64, bytes_per_sync: u64) -> LogWriter {
        let len = file.len();
        let sync = file.syncer().map(|f| Arc::new(LogSync::new(f, len)));
        LogWriter {
            sync,
            block_offset: (len % BLOCK_SIZE as u64) as usize,
            file,
            log_number: log_number_tag(log_number),
            buf: Vec::with_capacity(BLOCK_SIZE),
            bytes_per_sync,
            write_behind_done: len,
            poisoned: None,
        }
    }

    /// Appends one record. After it returns Ok the bytes are in the file's user-space buffer;
    /// call [`flush`](Self::flush) or [`sync`](Self::sync) to make them survive a crash.
    ///
    /// # Errors
    /// The file's I/O error, after which the writer is poisoned; [`Error::Poisoned`] if an earlier
    /// call failed.
    pub fn add_record(&mut self, payload: &[u8]) -> Result<RecordHandle> {
        self.check_poisoned()?;
        let result = self.write_fragments(payload);
        self.poison_on_error(result)
    }

    /// Hands every appended byte to the operating system: the records then survive a process
    /// crash (not a power cut).
    ///
    /// # Errors
    /// As [`add_record`](Self::add_record).
    pub fn flush(&mut self) -> Result<()> {
        self.check_poisoned()?;
        let result = self.file.flush();
        if let (Ok(()), Some(sync)) = (&result, &self.sync) {
            sync.flushed(self.file.len());
        }
        self.poison_on_error(result)
    }

    /// Makes every appended record durable (fdatasync; the file size is made durable too).
    /// With a shared [`LogSync`] the sync goes through it (invariant 5), so it never runs at
    /// the same time as another thread's sync of this log.
    ///
    /// # Errors
    /// As [`add_record`](Self::add_record). A failed sync is never retried by the writer.
    pub fn sync(&mut self) -> Result<()> {
        self.check_poisoned()?;
        let result = match self.sync.clone() {
            Some(sync) => self.file.flush().and_then(|()| {
                let len = self.file.len();
                sync.flushed(len);
                sync.sync_through(len, |_| ()).map(|_| ())
            }),
            None => self.file.sync_data(),
        };
        self.poison_on_error(result)
    }

    /// The log's shared sync state, for syncing it from another thread while this writer
    /// appends (invariant 5); `None` when the file has no syncer.
    pub fn log_sync(&self) -> Option<Arc<LogSync>> {
        self.sync.clone()
    }

    /// The log number given at creation (full 64 bits are not kept; this is the stored tag).
    pub fn log_number_tag(&self) -> u32 {
        self.log_number
    }

    /// Bytes in the log so far: the offset where the next record (or its padding) starts.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    /// True when nothing was written to the log.
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }

    /// True when an earlier failure refused further use.
    pub fn is_poisoned(&self) -> bool {
        self.check_poisoned().is_err()
    }

    fn check_poisoned(&self) -> Result<()> {
        if let Some(why) = &self.poisoned {
            return Err(Error::Poisoned(why.clone()));
        }
        match self.sync.as_ref().and_then(|s| s.failure()) {
            Some(why) => Err(Error::Poisoned(why)),
            None => Ok(()),
        }
    }

    fn poison_on_error<T>(&mut self, result: Result<T>) -> Result<T> {
        if let Err(e) = &result {
            self.poisoned = Some(format!("log writer failed earlier: {e}"));
        }
        result
    }

    /// Frames `payload` into fragments, padding block tails, and appends the bytes.
    fn write_fragments(&mut self, payload: &[u8]) -> Result<RecordHandle> {
        self.buf.clear();
        let mut offset = None;
        let mut rest = payload;
        let mut starts = true;
        loop {
            self.pad_block_tail();
            let start = self.file.len() + self.buf.len() as u64;
            offset.get_or_insert(start);
            let room = BLOCK_SIZE - self.block_offset - HEADER_SIZE;
            let (chunk, tail) = rest.split_at(rest.len().min(room));
            let kind = FragmentType::for_position(starts, tail.is_empty());
            encode_fragment(&mut self.buf, kind as u8, self.log_number, chunk);
            self.block_offset += HEADER_SIZE + chunk.len();
            (rest, starts) = (tail, false);
            if rest.is_empty() {
                break;
            }
            if self.buf.len() >= MAX_APPEND_BYTES {
                self.append_buffer()?;
            }
        }
        self.append_buffer()?;
        let offset = offset.expect("the loop runs once");
        Ok(RecordHandle {
            offset,
            len: self.file.len() - offset,
        })
    }

    /// Zero-fills the current block's tail when it cannot hold a header, and moves to the next
    /// block. A tail of exactly `HEADER_SIZE` bytes still takes a fragment (with empty payload).
    fn pad_block_tail(&mut self) {
        let left = BLOCK_SIZE - self.block_offset;
        if left < HEADER_SIZE {
            self.buf.resize(self.buf.len() + left, 0);
            self.block_offset = 0;
        }
    }

    fn append_buffer(&mut self) -> Result<()> {
        self.file.append(&self.buf)?;
        self.buf.clear();
        if self.buf.capacity() > MAX_APPEND_BYTES + BLOCK_SIZE {
            self.buf.shrink_to(BLOCK_SIZE);
        }
        self.maybe_write_behind()
    }

    /// Starts write-back of the bytes written since the last hint once they reach
    /// `bytes_per_sync`, so a later fsync (or the OS's own flushing) has little left to do.
    fn maybe_write_behind(&mut self) -> Result<()> {
        let len = self.file.len();
        if self.bytes_per_sync == 0 || len - self.write_behind_done < self.bytes_per_sync {
            return Ok(());
        }
        // Write-back can only start on bytes the OS has: hand it the file's buffer first.
        self.file.flush()?;
        self.file
            .write_behind(self.write_behind_done, len - self.write_behind_done)?;
        self.write_behind_done = len;
        Ok(())
    }
}
