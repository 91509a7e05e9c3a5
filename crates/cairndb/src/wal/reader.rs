//! Reading records back from a log file, telling a torn tail from corruption in the middle.
//! Format and the exact damage rules: `docs/format/wal.md`.
//!
//! Called by one thread at a time (recovery, the MANIFEST reader, tools). The reader owns a
//! shared read handle, one block buffer and the record being assembled; it sees the file as it was
//! when the reader was created (its size is taken once).
//!
//! Invariants:
//! 1. The file is read front to back in whole blocks (the last one may be partial); memory is
//!    bounded by two block buffers plus the record being assembled, which only ever holds payload
//!    bytes whose checksums were verified, so it cannot outgrow the file.
//! 2. A record is returned only if every one of its fragments passed its checksum, carried the
//!    expected log number and appeared in order (`Full`, or `First Middle* Last`).
//! 3. Damage is classified by what follows it: if any valid fragment of this log starts at any
//!    byte after the damaged fragment, the damage is [`DamageKind::Corruption`]; otherwise it is a
//!    [`DamageKind::TornTail`] (or [`DamageKind::OldLogNumber`] when the damaged fragment is a
//!    valid fragment of another log, or is followed by one: the next block's first fragment,
//!    or one later in this block when the file ends there). A torn tail or an old log ends the
//!    log.
//! 4. After corruption, reading resumes at the next block boundary (where a header always
//!    starts), skipping orphan `Middle`/`Last` fragments of the damaged record. Dropped bytes are
//!    accounted exactly once, in the damage event that precedes the resumed records.
//! 5. No input makes the reader panic: every index into a block is checked against its length.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::format::{
    log_number_tag, FragmentHeader, FragmentType, BLOCK_SIZE, HEADER_SIZE, SAFE_IGNORE_TYPE_BIT,
};
use crate::error::{Error, Result};
use crate::fs::{AccessPattern, FileSystem, RandomAccessFile};
use crate::util::checksum::crc32c_masked;

/// Most bytes the torn-tail classification checksums while looking for a valid fragment after
/// damage. Past it the damage is reported as corruption: the cautious answer when unsure.
const SCAN_CHECKSUM_BUDGET_BYTES: usize = 8 << 20;

/// One record read from the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Offset of the record's first fragment header in the file.
    pub offset: u64,
    /// The record's payload.
    pub data: Vec<u8>,
}

/// What kind of damage a [`Damage`] event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DamageKind {
    /// Incomplete or unreadable bytes at the end of the log with no valid fragment after them:
    /// what a crash during an append leaves. The log ends here.
    TornTail,
    /// Damaged bytes followed by valid data. Reading resumes at the next block.
    Corruption,
    /// A valid fragment written for another log number, or damage followed by one, with no
    /// fragment of this log after it: old contents of a recycled file (the new log may stop
    /// mid-way through an old fragment), or a misplaced file. The log ends here.
    OldLogNumber,
}

/// Damaged bytes the reader skipped, reported in place of the records they held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// How the damage was classified.
    pub kind: DamageKind,
    /// The log file.
    pub file: PathBuf,
    /// Offset of the first byte dropped: the start of the record the damage belongs to.
    pub offset: u64,
    /// How many bytes, from `offset`, were dropped (for a torn tail or an old log: the rest of
    /// the file).
    pub bytes_dropped: u64,
    /// Offset of the fragment (or the point) where the damage was detected.
    pub detected_at: u64,
    /// What was wrong, in words.
    pub reason: String,
    /// Stored and computed checksums when a checksum mismatch was the symptom.
    pub checksums: Option<(u32, u32)>,
}

impl std::fmt::Display for DamageKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DamageKind::TornTail => "torn tail",
            DamageKind::Corruption => "corruption",
            DamageKind::OldLogNumber => "old log number",
        })
    }
}

impl Damage {
    /// The damage as an [`Error::Corruption`] naming the file and the fragment's offset.
    pub fn to_error(&self) -> Error {
        let extent = format!(
            "{}: {} bytes unreadable from offset {}",
            self.kind, self.bytes_dropped, self.offset
        );
        match self.checksums {
            Some((stored, computed)) => {
                let what = format!("log fragment ({extent})");
                Error::checksum_mismatch(&self.file, self.detected_at, &what, stored, computed)
            }
            None => {
                let message = format!("{} ({extent})", self.reason);
                Error::corruption(&self.file, self.detected_at, message)
            }
        }
    }
}

/// What [`LogReader::next_event`] returns: a record or the damage that replaced some.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogEvent {
    /// A complete, verified record.
    Record(Record),
    /// Bytes that could not be read as records; see [`DamageKind`] for what follows.
    Damage(Damage),
}

/// A fragment that failed verification.
#[derive(Debug)]
struct BadFragment {
    offset: u64,
    reason: String,
    checksums: Option<(u32, u32)>,
    /// Set when the fragment is intact but belongs to another log.
    other_log: bool,
}

/// What [`LogReader::next_fragment`] found.
#[derive(Debug)]
enum Fragment {
    Eof,
    /// A verified fragment; its payload is `block[start..end]`.
    Valid {
        offset: u64,
        kind: FragmentType,
        start: usize,
        end: usize,
    },
    /// A verified metadata fragment of a type this reader does not know but may skip.
    Skippable,
    Bad(BadFragment),
}

/// Reads records from one log file. See the module contract.
#[derive(Debug)]
pub struct LogReader {
    file: Arc<dyn RandomAccessFile>,
    path: PathBuf,
    log_number: u32,
    file_size: u64,
    /// The loaded block; `block.len()` is its length in the file.
    block: Vec<u8>,
    block_start: u64,
    /// Next unread byte of `block`.
    pos: usize,
    /// Payload of the record being assembled, and the offset of its `First` fragment.
    record: Vec<u8>,
    record_start: Option<u64>,
    /// A valid fragment known to start here (found by a scan), so later damage before it is
    /// corruption without scanning again: keeps classification linear in the file size.
    valid_fragment_at: Option<u64>,
    scan_buf: Vec<u8>,
    done: bool,
}

impl LogReader {
    /// Opens `path` on `fs` as the log numbered `log_number`.
    ///
    /// # Errors
    /// I/O errors opening the file or reading its size.
    pub fn open(fs: &dyn FileSystem, path: &Path, log_number: u64) -> Result<LogReader> {
        LogReader::new(fs.open_read(path)?, path, log_number)
    }

    /// A reader of `file`, whose name is `path`, expecting fragments of log `log_number`.
    ///
    /// # Errors
    /// I/O errors reading the file's size or setting its access pattern.
    pub fn new(file: Arc<dyn RandomAccessFile>, path: &Path, log_number: u64) -> Result<LogReader> {
        file.advise(AccessPattern::Sequential)?;
        let file_size = file.size()?;
        Ok(LogReader {
            file,
            path: path.to_path_buf(),
            log_number: log_number_tag(log_number),
            file_size,
            block: Vec::with_capacity(BLOCK_SIZE),
            block_start: 0,
            pos: 0,
            record: Vec::new(),
            record_start: None,
            valid_fragment_at: None,
            scan_buf: Vec::new(),
            done: false,
        })
    }

    /// Strict reading: the next record, `None` at the clean end of the log, and an error for any
    /// damage, torn tails and old log numbers included.
    ///
    /// # Errors
    /// [`Error::Corruption`] naming the file and the damaged fragment's offset; I/O errors.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        match self.next_event()? {
            Some(LogEvent::Record(r)) => Ok(Some(r)),
            Some(LogEvent::Damage(d)) => Err(d.to_error()),
            None => Ok(None),
        }
    }

    /// Reporting reading: the next record or damage event, `None` at the end of the log. After
    /// [`DamageKind::Corruption`] reading continues past the damage; after a torn tail or an old
    /// log number the next call returns `None`. This is what recovery modes are built on.
    ///
    /// # Errors
    /// Only I/O errors; damage is an event, not an error. After an I/O error the reader is
    /// finished: its position is unknown, so it returns `None` from then on.
    pub fn next_event(&mut self) -> Result<Option<LogEvent>> {
        let event = self.read_event();
        self.done |= event.is_err();
        event
    }

    fn read_event(&mut self) -> Result<Option<LogEvent>> {
        loop {
            if self.done {
                return Ok(None);
            }
            let event = match self.next_fragment()? {
                Fragment::Eof => self.at_eof(),
                Fragment::Skippable => None,
                Fragment::Bad(bad) => Some(self.damaged(bad)?),
                Fragment::Valid {
                    offset,
                    kind,
                    start,
                    end,
                } => self.assemble(offset, kind, start, end)?,
            };
            if event.is_some() {
                return Ok(event);
            }
        }
    }

    /// The log file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size when the reader was created.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// Offset of the next unread byte.
    pub fn position(&self) -> u64 {
        self.block_start + self.pos as u64
    }

    /// Feeds one verified fragment to the record being assembled.
    fn assemble(
        &mut self,
        offset: u64,
        kind: FragmentType,
        start: usize,
        end: usize,
    ) -> Result<Option<LogEvent>> {
        match (kind, self.record_start) {
            (FragmentType::Full | FragmentType::First, Some(_)) => {
                // The record in progress never got its Last; re-read this fragment afterwards.
                let damage = self.unfinished_record(offset);
                self.seek(offset)?;
                Ok(Some(damage))
            }
            (FragmentType::Full, None) => Ok(Some(LogEvent::Record(Record {
                offset,
                data: self.block[start..end].to_vec(),
            }))),
            (FragmentType::First, None) => {
                self.record.clear();
                self.record.extend_from_slice(&self.block[start..end]);
                self.record_start = Some(offset);
                Ok(None)
            }
            (FragmentType::Middle, Some(_)) => {
                self.record.extend_from_slice(&self.block[start..end]);
                Ok(None)
            }
            (FragmentType::Last, Some(record_start)) => {
                self.record.extend_from_slice(&self.block[start..end]);
                self.record_start = None;
                let data = std::mem::take(&mut self.record);
                Ok(Some(LogEvent::Record(Record {
                    offset: record_start,
                    data,
                })))
            }
            (FragmentType::Middle | FragmentType::Last, None) => self.orphan(offset).map(Some),
        }
    }

    /// A record whose `First` was followed by the start of another record.
    fn unfinished_record(&mut self, next_record: u64) -> LogEvent {
        let start = self.record_start.take().unwrap_or(next_record);
        self.record.clear();
        LogEvent::Damage(Damage {
            kind: DamageKind::Corruption,
            file: self.path.clone(),
            offset: start,
            bytes_dropped: next_record - start,
            detected_at: next_record,
            reason: "record has no Last fragment before the next record starts".into(),
            checksums: None,
        })
    }

    /// A valid `Middle` or `Last` fragment with no `First` before it.
    fn orphan(&mut self, offset: u64) -> Result<LogEvent> {
        self.skip_orphans()?;
        Ok(LogEvent::Damage(Damage {
            kind: DamageKind::Corruption,
            file: self.path.clone(),
            offset,
            bytes_dropped: self.position() - offset,
            detected_at: offset,
            reason: "fragment continues a record whose start is missing".into(),
            checksums: None,
        }))
    }

    /// The end of the file: clean, unless a record is unfinished (a torn tail).
    fn at_eof(&mut self) -> Option<LogEvent> {
        self.done = true;
        let start = self.record_start.take()?;
        self.record.clear();
        Some(LogEvent::Damage(Damage {
            kind: DamageKind::TornTail,
            file: self.path.clone(),
            offset: start,
            bytes_dropped: self.file_size - start,
            detected_at: self.file_size,
            reason: "record has no Last fragment before the end of the file".into(),
            checksums: None,
        }))
    }

    /// Classifies a bad fragment, drops the record it belongs to and moves past the damage.
    fn damaged(&mut self, bad: BadFragment) -> Result<LogEvent> {
        let start = self.record_start.take().unwrap_or(bad.offset);
        self.record.clear();
        let valid_after = self.valid_fragment_after(bad.offset)?;
        let other_log = bad.other_log || (!valid_after && self.other_log_after(bad.offset)?);
        let kind = match (valid_after, other_log) {
            (true, _) => DamageKind::Corruption,
            (false, true) => DamageKind::OldLogNumber,
            (false, false) => DamageKind::TornTail,
        };
        if kind == DamageKind::Corruption {
            let next_block = (bad.offset / BLOCK_SIZE as u64 + 1) * BLOCK_SIZE as u64;
            self.seek(next_block.min(self.file_size))?;
            self.skip_orphans()?;
        } else {
            self.done = true;
            self.seek(self.file_size)?;
        }
        Ok(LogEvent::Damage(Damage {
            kind,
            file: self.path.clone(),
            offset: start,
            bytes_dropped: self.position() - start,
            detected_at: bad.offset,
            reason: bad.reason,
            checksums: bad.checksums,
        }))
    }

    /// Moves past valid `Middle`/`Last` fragments (the rest of a damaged record), stopping before
    /// anything else.
    fn skip_orphans(&mut self) -> Result<()> {
        loop {
            let here = self.position();
            match self.next_fragment()? {
                Fragment::Valid {
                    kind: FragmentType::Middle | FragmentType::Last,
                    ..
                }
                | Fragment::Skippable => {}
                _ => return self.seek(here),
            }
        }
    }

    /// Positions the reader at `offset`, loading its block if needed. `offset` may be the end of
    /// the file.
    fn seek(&mut self, offset: u64) -> Result<()> {
        let block_start = offset - offset % BLOCK_SIZE as u64;
        let loaded_end = self.block_start + self.block.len() as u64;
        if block_start != self.block_start || (offset > loaded_end) {
            self.load_block(block_start)?;
        }
        self.pos = ((offset - self.block_start) as usize).min(self.block.len());
        Ok(())
    }

    /// Reads the block starting at `block_start` (a multiple of the block size) into `block`.
    fn load_block(&mut self, block_start: u64) -> Result<()> {
        let len = self
            .file_size
            .saturating_sub(block_start)
            .min(BLOCK_SIZE as u64) as usize;
        self.block.resize(len, 0);
        self.file.read_exact_at(block_start, &mut self.block)?;
        self.block_start = block_start;
        self.pos = 0;
        Ok(())
    }

    /// Reads and verifies the next fragment, crossing into the next block when this one has no
    /// room for a header.
    fn next_fragment(&mut self) -> Result<Fragment> {
        loop {
            let left = self.block.len() - self.pos;
            if left >= HEADER_SIZE {
                return Ok(self.parse_fragment());
            }
            let offset = self.position();
            let is_last_block = self.block_start + self.block.len() as u64 >= self.file_size;
            if is_last_block && left > 0 && self.block.len() < BLOCK_SIZE {
                self.pos = self.block.len();
                return Ok(Fragment::Bad(
                    self.bad(offset, "incomplete fragment header at end of file"),
                ));
            }
            if is_last_block {
                self.pos = self.block.len();
                return Ok(Fragment::Eof);
            }
            // The zero-filled tail of a full block holds nothing; its bytes are not checked.
            self.load_block(self.block_start + self.block.len() as u64)?;
        }
    }

    /// Verifies the fragment at `pos`, which has room for a header. Leaves `pos` after it when it
    /// is valid, at the end of the block otherwise.
    fn parse_fragment(&mut self) -> Fragment {
        let offset = self.position();
        let Some(h) = FragmentHeader::decode(&self.block[self.pos..]) else {
            self.pos = self.block.len();
            return Fragment::Bad(self.bad(offset, "incomplete fragment header"));
        };
        let covered_start = self.pos + 6;
        let end = self.pos + HEADER_SIZE + usize::from(h.len);
        let verdict = self.verify(offset, &h, covered_start, end);
        self.pos = if matches!(verdict, Fragment::Bad(_)) {
            self.block.len()
        } else {
            end
        };
        verdict
    }

    fn verify(
        &self,
        offset: u64,
        h: &FragmentHeader,
        covered_start: usize,
        end: usize,
    ) -> Fragment {
        if h.is_zero() {
            return Fragment::Bad(self.bad(offset, "zero bytes where a fragment should start"));
        }
        let Some(covered) = self.block.get(covered_start..end) else {
            let reason = format!("fragment length {} runs past the end of its block", h.len);
            return Fragment::Bad(self.bad(offset, &reason));
        };
        let computed = crc32c_masked(&[covered]);
        if computed != h.checksum {
            let mut bad = self.bad(offset, "fragment checksum mismatch");
            bad.checksums = Some((h.checksum, computed));
            return Fragment::Bad(bad);
        }
        if h.log_number != self.log_number {
            let reason = format!(
                "fragment of log {} found in log {}",
                h.log_number, self.log_number
            );
            return Fragment::Bad(BadFragment {
                other_log: true,
                ..self.bad(offset, &reason)
            });
        }
        match FragmentType::from_u8(h.kind) {
            Some(kind) => Fragment::Valid {
                offset,
                kind,
                start: end - usize::from(h.len),
                end,
            },
            None if h.kind & SAFE_IGNORE_TYPE_BIT != 0 => Fragment::Skippable,
            None => Fragment::Bad(self.bad(offset, &format!("unknown fragment type {}", h.kind))),
        }
    }

    fn bad(&self, offset: u64, reason: &str) -> BadFragment {
        BadFragment {
            offset,
            reason: reason.to_string(),
            checksums: None,
            other_log: false,
        }
    }

    /// True if a valid fragment of this log starts anywhere after `offset` (see invariant 3).
    fn valid_fragment_after(&mut self, offset: u64) -> Result<bool> {
        if self.valid_fragment_at.is_some_and(|at| at > offset) {
            return Ok(true);
        }
        let mut budget = SCAN_CHECKSUM_BUDGET_BYTES;
        let mut from = offset + 1;
        while from + HEADER_SIZE as u64 <= self.file_size {
            let block_start = from - from % BLOCK_SIZE as u64;
            let len = (self.file_size - block_start).min(BLOCK_SIZE as u64) as usize;
            self.scan_buf.resize(len, 0);
            self.file.read_exact_at(block_start, &mut self.scan_buf)?;
            let first = (from - block_start) as usize;
            match scan_block(&self.scan_buf, first, self.log_number, &mut budget) {
                Some(i) => {
                    self.valid_fragment_at = Some(block_start + i as u64);
                    return Ok(true);
                }
                None if budget == 0 => return Ok(true),
                None => from = block_start + len as u64,
            }
        }
        Ok(false)
    }

    /// Whether a valid fragment of another log follows `offset` (with none of this log after
    /// it, [`Self::valid_fragment_after`]): the old contents of a recycled file, whose new log
    /// stopped mid-way through an old fragment. Every block starts with a fragment, so the next
    /// block's first one tells; when the file ends in this block, the rest of it is scanned
    /// (within a checksum budget, after which the answer is no: the damage stays a torn tail).
    fn other_log_after(&mut self, offset: u64) -> Result<bool> {
        let bs = BLOCK_SIZE as u64;
        let this = self.log_number.to_le_bytes();
        let next_block = (offset / bs + 1) * bs;
        let (block_start, first) = if next_block + HEADER_SIZE as u64 <= self.file_size {
            (next_block, 0)
        } else {
            (offset - offset % bs, (offset % bs) as usize + 1)
        };
        let len = (self.file_size - block_start).min(bs) as usize;
        self.scan_buf.resize(len, 0);
        self.file.read_exact_at(block_start, &mut self.scan_buf)?;
        let mut budget = SCAN_CHECKSUM_BUDGET_BYTES;
        // The next block: its first fragment only. This block: every position after the damage.
        let starts = if first == 0 {
            0..=0
        } else {
            first..=usize::MAX
        };
        Ok(scan_block_for(&self.scan_buf, starts, &mut |t| t != this, &mut budget).is_some())
    }
}

/// The first index `>= first` in `block` where a valid fragment of `log_number` starts, checking
/// every byte position. Spends checksummed bytes from `budget` and stops when it runs out.
fn scan_block(block: &[u8], first: usize, log_number: u32, budget: &mut usize) -> Option<usize> {
    let tag = log_number.to_le_bytes();
    scan_block_for(block, first..=usize::MAX, &mut |t| t == tag, budget)
}

/// [`scan_block`] over the start positions `starts`, for a fragment whose log-number bytes
/// satisfy `wanted`.
fn scan_block_for(
    block: &[u8],
    starts: std::ops::RangeInclusive<usize>,
    wanted: &mut dyn FnMut([u8; 4]) -> bool,
    budget: &mut usize,
) -> Option<usize> {
    let last = block.len().checked_sub(HEADER_SIZE)?.min(*starts.end());
    for i in *starts.start()..=last {
        let h = FragmentHeader::decode(&block[i..])?;
        // Cheap filters first: the log number and a known or skippable type must match before a
        // checksum is worth computing.
        let known = FragmentType::from_u8(h.kind).is_some() || h.kind & SAFE_IGNORE_TYPE_BIT != 0;
        let tag: [u8; 4] = block[i + 7..i + 11].try_into().expect("4 bytes");
        if !known || !wanted(tag) {
            continue;
        }
        let Some(covered) = block.get(i + 6..i + HEADER_SIZE + usize::from(h.len)) else {
            continue;
        };
        if covered.len() > *budget {
            *budget = 0;
            return None;
        }
        *budget -= covered.len();
        if crc32c_masked(&[covered]) == h.checksum {
            return Some(i);
        }
    }
    None
}
