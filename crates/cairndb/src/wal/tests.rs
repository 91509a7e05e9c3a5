//! Tests of the log format: round trips, block boundaries, write-behind, and the reader's
//! behaviour on every kind of damage (bit flips, truncation, torn tails, old log numbers, crash
//! clones).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use proptest::prelude::*;

use super::*;
use crate::error::{Error, Result};
use crate::fs::{AccessPattern, CrashOptions, FileSystem, MemFs, RandomAccessFile, WritableFile};

const LOG: u64 = 7;

/// A record of `len` bytes whose content depends on `seed`, so records are told apart.
fn record(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// Writes `records` into a fresh MemFs log and returns the bytes and the handles.
fn write_log(records: &[Vec<u8>], log_number: u64) -> (Vec<u8>, Vec<RecordHandle>) {
    let fs = MemFs::new();
    let path = Path::new("/000007.log");
    let mut w = LogWriter::new(fs.create(path).expect("create"), log_number, 0);
    let handles = records
        .iter()
        .map(|r| w.add_record(r).expect("add"))
        .collect();
    w.flush().expect("flush");
    (crate::fs::read_all(&fs, path).expect("read"), handles)
}

/// A read-only file over bytes in memory.
#[derive(Debug)]
struct BytesFile(Vec<u8>);

impl RandomAccessFile for BytesFile {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let start = offset as usize;
        let src = self.0.get(start..start + buf.len()).ok_or_else(|| {
            Error::io("read", "mem", io::Error::from(io::ErrorKind::UnexpectedEof))
        })?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn size(&self) -> Result<u64> {
        Ok(self.0.len() as u64)
    }
    fn advise(&self, _: AccessPattern) -> Result<()> {
        Ok(())
    }
    fn readahead(&self, _: u64, _: u64) -> Result<()> {
        Ok(())
    }
}

fn reader(bytes: &[u8], log_number: u64) -> LogReader {
    let file = Arc::new(BytesFile(bytes.to_vec()));
    LogReader::new(file, Path::new("/000007.log"), log_number).expect("reader")
}

/// Reads every event: the records and the damage reports.
fn read_events(bytes: &[u8], log_number: u64) -> (Vec<Record>, Vec<Damage>) {
    let mut r = reader(bytes, log_number);
    let (mut records, mut damages) = (Vec::new(), Vec::new());
    while let Some(e) = r.next_event().expect("no I/O error") {
        match e {
            LogEvent::Record(rec) => records.push(rec),
            LogEvent::Damage(d) => damages.push(d),
        }
        assert!(
            records.len() + damages.len() <= bytes.len() + 2,
            "reader does not terminate"
        );
    }
    (records, damages)
}

/// Reads strictly: the records before the first error, and the error.
fn read_strict(bytes: &[u8], log_number: u64) -> (Vec<Record>, Option<Error>) {
    let mut r = reader(bytes, log_number);
    let mut records = Vec::new();
    loop {
        match r.next_record() {
            Ok(Some(rec)) => records.push(rec),
            Ok(None) => return (records, None),
            Err(e) => return (records, Some(e)),
        }
    }
}

/// Asserts that every record read is one that was written at the same offset.
fn assert_no_wrong_record(read: &[Record], written: &[Vec<u8>], handles: &[RecordHandle]) {
    for rec in read {
        let i = handles.iter().position(|h| h.offset == rec.offset);
        let i = i.unwrap_or_else(|| panic!("record at {} was never written", rec.offset));
        assert_eq!(rec.data, written[i], "record at {} differs", rec.offset);
    }
}

fn mixed_records() -> Vec<Vec<u8>> {
    let sizes = [100, 0, 2000, 40_000, 5, 31_000, 300, 0, 1, 7000, 12];
    sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| record(n, i as u8))
        .collect()
}

fn record_strategy() -> impl Strategy<Value = Vec<u8>> {
    let len = prop_oneof![4 => 0usize..200, 2 => 0usize..6000, 1 => 30_000usize..100_000];
    (len, any::<u8>()).prop_map(|(n, seed)| record(n, seed))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn round_trip_any_records(records in prop::collection::vec(record_strategy(), 0..40)) {
        let (bytes, handles) = write_log(&records, LOG);
        let (read, damages) = read_events(&bytes, LOG);
        prop_assert!(damages.is_empty(), "{damages:?}");
        prop_assert_eq!(read.len(), records.len());
        for ((rec, want), h) in read.iter().zip(&records).zip(&handles) {
            prop_assert_eq!(&rec.data, want);
            prop_assert_eq!(rec.offset, h.offset);
        }
    }

    #[test]
    fn reader_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..3000),
        splice in prop::collection::vec((0usize..3000, 0usize..300), 0..4),
    ) {
        // Splice valid fragments into the noise so the state machine sees real headers too.
        let (valid, _) = write_log(&[record(40, 1), record(200, 2)], LOG);
        let mut bytes = bytes;
        for (at, n) in splice {
            let at = at.min(bytes.len());
            let n = n.min(valid.len());
            bytes.splice(at..at, valid[..n].iter().copied());
        }
        let _ = read_events(&bytes, LOG);
        let _ = read_strict(&bytes, LOG);
    }
}

#[test]
fn block_tails_of_every_size_round_trip() {
    for tail in 0..=HEADER_SIZE + 2 {
        let records = vec![
            record(BLOCK_SIZE - HEADER_SIZE - tail, 1),
            record(10, 2),
            record(0, 3),
        ];
        let (bytes, handles) = write_log(&records, LOG);
        let second = if tail < HEADER_SIZE {
            BLOCK_SIZE
        } else {
            BLOCK_SIZE - tail
        };
        assert_eq!(handles[1].offset, second as u64, "tail {tail}");
        if tail < HEADER_SIZE {
            assert!(
                bytes[BLOCK_SIZE - tail..BLOCK_SIZE].iter().all(|&b| b == 0),
                "zero padding"
            );
        }
        let (read, err) = read_strict(&bytes, LOG);
        assert!(err.is_none(), "tail {tail}: {err:?}");
        assert_eq!(
            read.iter().map(|r| r.data.clone()).collect::<Vec<_>>(),
            records
        );
    }
}

#[test]
fn records_exactly_filling_blocks_and_spanning_many() {
    let records = vec![
        record(MAX_FRAGMENT_PAYLOAD, 1),
        record(2 * MAX_FRAGMENT_PAYLOAD, 2),
        record(5 * BLOCK_SIZE + 17, 3),
        record(0, 4),
    ];
    let (bytes, handles) = write_log(&records, LOG);
    assert_eq!(handles[0].len, BLOCK_SIZE as u64);
    assert_eq!(handles[1].offset, BLOCK_SIZE as u64);
    let (read, err) = read_strict(&bytes, LOG);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        read.iter().map(|r| r.data.clone()).collect::<Vec<_>>(),
        records
    );
}

#[test]
fn many_small_and_empty_records() {
    let records: Vec<Vec<u8>> = (0..20_000).map(|i| record(i % 3, i as u8)).collect();
    let (bytes, _) = write_log(&records, LOG);
    let (read, err) = read_strict(&bytes, LOG);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(read.len(), records.len());
    assert!(read.iter().zip(&records).all(|(r, w)| &r.data == w));
}

/// Shared state of a [`RecordingFile`].
#[derive(Debug, Default)]
struct Recorded {
    data: Vec<u8>,
    appends: usize,
    flushes: usize,
    behind: Vec<(u64, u64)>,
    fail_appends: bool,
}

/// A writable file that records the calls made on it and can fail appends.
#[derive(Debug, Clone, Default)]
struct RecordingFile(Arc<Mutex<Recorded>>);

impl WritableFile for RecordingFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let mut s = self.0.lock();
        if s.fail_appends {
            return Err(Error::io(
                "append",
                "rec",
                io::Error::from_raw_os_error(libc::ENOSPC),
            ));
        }
        s.appends += 1;
        s.data.extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        self.0.lock().flushes += 1;
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync_data(&mut self) -> Result<()> {
        Ok(())
    }
    fn write_behind(&mut self, offset: u64, len: u64) -> Result<()> {
        self.0.lock().behind.push((offset, len));
        Ok(())
    }
    fn len(&self) -> u64 {
        self.0.lock().data.len() as u64
    }
}

#[test]
fn writer_appends_once_per_record_and_writes_behind_contiguously() {
    let file = RecordingFile::default();
    let mut w = LogWriter::new(Box::new(file.clone()), LOG, 4096);
    for i in 0..100 {
        w.add_record(&record(1000 + i * 7, i as u8)).expect("add");
    }
    w.add_record(&record(3 * BLOCK_SIZE, 9))
        .expect("add spanning record");
    let s = file.0.lock();
    assert_eq!(s.appends, 101, "one append per record");
    let mut next = 0;
    for &(off, len) in &s.behind {
        assert_eq!(off, next, "ranges are contiguous");
        assert!(len >= 4096, "ranges reach bytes_per_sync");
        next = off + len;
    }
    assert!(next > s.data.len() as u64 - 4096 - 3 * BLOCK_SIZE as u64);
    assert!(
        s.flushes >= s.behind.len(),
        "bytes are handed to the OS before write-behind"
    );
}

#[test]
fn huge_records_are_appended_in_bounded_pieces() {
    let file = RecordingFile::default();
    let mut w = LogWriter::new(Box::new(file.clone()), LOG, 0);
    let big = record(3 * MAX_APPEND_BYTES, 5);
    w.add_record(&big).expect("add");
    assert!((3..=5).contains(&file.0.lock().appends));
    let bytes = file.0.lock().data.clone();
    let (read, err) = read_strict(&bytes, LOG);
    assert!(err.is_none());
    assert_eq!(read[0].data, big);
}

#[test]
fn writer_is_poisoned_after_a_failed_append() {
    let file = RecordingFile::default();
    let mut w = LogWriter::new(Box::new(file.clone()), LOG, 0);
    w.add_record(b"ok").expect("add");
    file.0.lock().fail_appends = true;
    assert!(w.add_record(b"fails").expect_err("append fails").is_io());
    file.0.lock().fail_appends = false;
    assert!(matches!(w.add_record(b"refused"), Err(Error::Poisoned(_))));
    assert!(matches!(w.sync(), Err(Error::Poisoned(_))));
    assert!(w.is_poisoned());
}

#[test]
fn writer_resumes_mid_block_on_a_reopened_file() {
    let fs = MemFs::new();
    let path = Path::new("/000009.log");
    let mut w = LogWriter::new(fs.create(path).expect("create"), 9, 0);
    w.add_record(&record(BLOCK_SIZE - 20, 1)).expect("add");
    drop(w);
    let mut w = LogWriter::new(fs.open_append(path).expect("reopen"), 9, 0);
    w.add_record(&record(100, 2)).expect("add after reopen");
    drop(w);
    let bytes = crate::fs::read_all(&fs, path).expect("read");
    let (read, err) = read_strict(&bytes, 9);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(read.len(), 2);
    assert_eq!(read[1].offset, BLOCK_SIZE as u64, "9-byte tail was padded");
}

/// Offsets at which cutting the file leaves only whole records (plus nothing or padding).
fn clean_cuts(handles: &[RecordHandle]) -> Vec<u64> {
    let mut cuts = vec![0];
    for h in handles {
        cuts.push(h.offset);
        cuts.push(h.offset + h.len);
    }
    cuts
}

#[test]
fn truncation_at_every_length_is_a_torn_tail() {
    let records: Vec<Vec<u8>> = [10, 0, 500, 20_000, 15_000, 3, 40_000, 100]
        .iter()
        .enumerate()
        .map(|(i, &n)| record(n, i as u8))
        .collect();
    let (bytes, handles) = write_log(&records, LOG);
    let cuts = clean_cuts(&handles);
    for len in 0..=bytes.len() {
        // Dense near the start and the block boundaries, sampled in between to bound run time.
        if len > 200
            && len % 13 != 0
            && (len % BLOCK_SIZE) > 40
            && (len % BLOCK_SIZE) < BLOCK_SIZE - 40
        {
            continue;
        }
        let (read, damages) = read_events(&bytes[..len], LOG);
        let whole = handles
            .iter()
            .take_while(|h| h.offset + h.len <= len as u64)
            .count();
        assert_eq!(read.len(), whole, "cut at {len}");
        assert_no_wrong_record(&read, &records, &handles);
        let clean = cuts.contains(&(len as u64));
        assert_eq!(
            damages.len(),
            usize::from(!clean),
            "cut at {len}: {damages:?}"
        );
        for d in &damages {
            assert_eq!(d.kind, DamageKind::TornTail, "cut at {len}: {d:?}");
            assert_eq!(d.offset + d.bytes_dropped, len as u64);
        }
    }
}

#[test]
fn every_bit_flip_is_detected_or_harmless() {
    let records = mixed_records();
    let (bytes, handles) = write_log(&records, LOG);
    let in_fragment = |pos: u64| {
        handles
            .iter()
            .any(|h| pos >= h.offset && pos < h.offset + h.len)
    };
    let mut flipped = bytes.clone();
    for pos in 0..bytes.len() {
        // Every byte in the first two blocks, then every 5th byte.
        if pos >= 2 * BLOCK_SIZE && pos % 5 != 0 {
            continue;
        }
        flipped[pos] ^= 1 << (pos % 8);
        let (read, damages) = read_events(&flipped, LOG);
        assert_no_wrong_record(&read, &records, &handles);
        let padding = !in_fragment(pos as u64);
        // A trailer byte (zero padding) is not covered by any checksum and holds no data.
        assert_eq!(
            read.len() == records.len(),
            padding,
            "flip at {pos}: {damages:?}"
        );
        assert_eq!(damages.is_empty(), padding, "flip at {pos}");
        let (strict, err) = read_strict(&flipped, LOG);
        assert_no_wrong_record(&strict, &records, &handles);
        if let Some(e) = err {
            let c = e.as_corruption().expect("corruption");
            assert_eq!(c.file, PathBuf::from("/000007.log"));
            assert!(
                c.offset <= pos as u64 && pos as u64 - c.offset < BLOCK_SIZE as u64,
                "{e}"
            );
        } else {
            assert!(padding, "flip at {pos} undetected in strict mode");
        }
        flipped[pos] = bytes[pos];
    }
}

#[test]
fn torn_tail_is_tolerated_and_reported() {
    let records = mixed_records();
    let (mut bytes, handles) = write_log(&records, LOG);
    let end = bytes.len() as u64;
    // A crash during the next append: a header and part of its payload reached the disk.
    let (next, _) = write_log(&[record(500, 42)], LOG);
    bytes.extend_from_slice(&next[..100]);
    let (read, damages) = read_events(&bytes, LOG);
    assert_eq!(read.len(), records.len());
    assert_eq!(damages.len(), 1);
    assert_eq!(
        (damages[0].kind, damages[0].offset, damages[0].bytes_dropped),
        (DamageKind::TornTail, end, 100)
    );
    let action = WalRecoveryMode::TolerateCorruptedTailRecords.on_damage(&damages[0]);
    assert_eq!(action, DamageAction::StopHere);
    assert_eq!(
        WalRecoveryMode::AbsoluteConsistency.on_damage(&damages[0]),
        DamageAction::Fail
    );
    let (strict, err) = read_strict(&bytes, LOG);
    assert_eq!(strict.len(), records.len());
    assert!(err.expect("strict reading fails").is_corruption());
    assert_eq!(handles.len(), records.len());
}

#[test]
fn unfinished_multi_block_record_at_eof_is_torn_from_its_start() {
    let records = vec![record(100, 1), record(3 * BLOCK_SIZE, 2)];
    let (bytes, handles) = write_log(&records, LOG);
    let cut = &bytes[..2 * BLOCK_SIZE + 50];
    let (read, damages) = read_events(cut, LOG);
    assert_eq!(read.len(), 1);
    assert_eq!(damages.len(), 1);
    assert_eq!(damages[0].kind, DamageKind::TornTail);
    assert_eq!(
        damages[0].offset, handles[1].offset,
        "dropped from the record's start"
    );
}

#[test]
fn zero_filled_tail_is_torn() {
    let records = mixed_records();
    let (mut bytes, _) = write_log(&records, LOG);
    bytes.resize(bytes.len() + 3 * BLOCK_SIZE + 5, 0);
    let (read, damages) = read_events(&bytes, LOG);
    assert_eq!(read.len(), records.len());
    assert_eq!(damages.len(), 1);
    assert_eq!(damages[0].kind, DamageKind::TornTail);
    assert!(damages[0].reason.contains("zero"), "{}", damages[0].reason);
}

#[test]
fn corruption_in_the_middle_is_an_error_and_skippable() {
    let records: Vec<Vec<u8>> = (0..60).map(|i| record(1500, i as u8)).collect();
    let (bytes, handles) = write_log(&records, LOG);
    let mut damaged = bytes.clone();
    let victim = handles[3];
    damaged[victim.offset as usize + HEADER_SIZE + 10] ^= 0x40;

    let (strict, err) = read_strict(&damaged, LOG);
    assert_eq!(strict.len(), 3);
    let err = err.expect("strict reading fails");
    let c = err.as_corruption().expect("corruption");
    assert_eq!(c.offset, victim.offset);
    assert!(
        c.expected_checksum.is_some(),
        "checksum mismatch is reported as such"
    );

    let (read, damages) = read_events(&damaged, LOG);
    assert_eq!(damages.len(), 1);
    let d = &damages[0];
    assert_eq!((d.kind, d.offset), (DamageKind::Corruption, victim.offset));
    assert_eq!(
        d.offset + d.bytes_dropped,
        handles
            .iter()
            .find(|h| h.offset > BLOCK_SIZE as u64)
            .expect("h")
            .offset
    );
    assert_no_wrong_record(&read, &records, &handles);
    let after = handles
        .iter()
        .filter(|h| h.offset > BLOCK_SIZE as u64)
        .count();
    assert_eq!(read.len(), 3 + after, "salvage resumes at the next block");
    assert_eq!(
        WalRecoveryMode::TolerateCorruptedTailRecords.on_damage(d),
        DamageAction::Fail
    );
    assert_eq!(
        WalRecoveryMode::SkipAnyCorruptedRecords.on_damage(d),
        DamageAction::Skip
    );
    assert_eq!(
        WalRecoveryMode::PointInTimeRecovery.on_damage(d),
        DamageAction::StopHere
    );
}

#[test]
fn bad_length_in_the_last_block_with_valid_data_after_is_corruption() {
    let records: Vec<Vec<u8>> = (0..10).map(|i| record(200, i as u8)).collect();
    let (mut bytes, handles) = write_log(&records, LOG);
    // A huge length in record 5 hides records 6..9 from sequential parsing, but they are valid.
    bytes[handles[5].offset as usize + 5] = 0x7f;
    let (read, damages) = read_events(&bytes, LOG);
    assert_eq!(read.len(), 5);
    assert_eq!(damages.len(), 1);
    assert_eq!(damages[0].kind, DamageKind::Corruption, "{:?}", damages[0]);
}

#[test]
fn fragment_of_another_log_ends_the_log() {
    // A recycled file: the new log (9) overwrote the start of an old one (5) with records of the
    // same sizes, so the old records that follow start exactly where the new ones end.
    let old: Vec<Vec<u8>> = (0..30).map(|i| record(2000, i as u8)).collect();
    let new: Vec<Vec<u8>> = (0..4).map(|i| record(2000, 100 + i as u8)).collect();
    let (old_bytes, _) = write_log(&old, 5);
    let (new_bytes, _) = write_log(&new, 9);
    let mut bytes = new_bytes.clone();
    bytes.extend_from_slice(&old_bytes[new_bytes.len()..]);
    let (read, damages) = read_events(&bytes, 9);
    assert_eq!(read.iter().map(|r| r.data.clone()).collect::<Vec<_>>(), new);
    assert_eq!(damages.len(), 1);
    assert_eq!(damages[0].kind, DamageKind::OldLogNumber);
    assert_eq!(damages[0].offset, new_bytes.len() as u64);
    assert_eq!(
        WalRecoveryMode::AbsoluteConsistency.on_damage(&damages[0]),
        DamageAction::StopHere
    );
    let (_, err) = read_strict(&bytes, 9);
    assert!(err
        .expect("strict fails on an old record")
        .to_string()
        .contains("log 5"));
    // A misplaced file: every fragment carries another number.
    let (read, damages) = read_events(&old_bytes, 6);
    assert!(read.is_empty());
    assert_eq!(
        (damages[0].kind, damages[0].offset),
        (DamageKind::OldLogNumber, 0)
    );
}

#[test]
fn a_new_log_ending_inside_an_old_fragment_ends_at_the_old_log() {
    // A recycled file whose new records (log 9) are shorter than the old ones (log 5): the new
    // log stops inside an old fragment, so the bytes there are no fragment at all, and the old
    // log's fragments follow, within the block and at the start of the next one.
    let old: Vec<Vec<u8>> = (0..30).map(|i| record(3000, i as u8)).collect();
    let (old_bytes, _) = write_log(&old, 5);
    for new_len in [700, 2900, 5000, 20_000] {
        let new: Vec<Vec<u8>> = (0..3).map(|i| record(new_len, 100 + i as u8)).collect();
        let (new_bytes, _) = write_log(&new, 9);
        let mut bytes = new_bytes.clone();
        bytes.extend_from_slice(&old_bytes[new_bytes.len()..]);
        let (read, damages) = read_events(&bytes, 9);
        assert_eq!(read.iter().map(|r| r.data.clone()).collect::<Vec<_>>(), new);
        assert_eq!(damages.len(), 1, "{new_len}");
        assert_eq!(
            (damages[0].kind, damages[0].offset),
            (DamageKind::OldLogNumber, new_bytes.len() as u64),
            "{new_len}"
        );
    }
    // The same garbage with nothing of another log after it stays a torn tail.
    let (new_bytes, _) = write_log(&[record(700, 1)], 9);
    let mut bytes = new_bytes.clone();
    bytes.extend_from_slice(&[0x5a; 300]);
    let (_, damages) = read_events(&bytes, 9);
    assert_eq!(damages[0].kind, DamageKind::TornTail);
}

#[test]
fn valid_fragment_of_this_log_after_an_old_one_is_corruption() {
    let mut bytes = write_log(&[record(100, 1)], 5).0;
    bytes.resize(BLOCK_SIZE, 0);
    bytes.extend_from_slice(&write_log(&[record(100, 2)], 9).0);
    let (read, damages) = read_events(&bytes, 9);
    assert_eq!(read.len(), 1);
    assert_eq!(damages[0].kind, DamageKind::Corruption);
}

#[test]
fn skippable_fragment_types_are_skipped() {
    let (first, _) = write_log(&[record(10, 1)], LOG);
    let mut bytes = first.clone();
    let mut meta = Vec::new();
    let tag = log_number_tag(LOG);
    let payload = b"future metadata";
    meta.extend_from_slice(&fragment_checksum(0x81, tag, payload).to_le_bytes());
    meta.extend_from_slice(&(payload.len() as u16).to_le_bytes());
    meta.push(0x81);
    meta.extend_from_slice(&tag.to_le_bytes());
    meta.extend_from_slice(payload);
    bytes.extend_from_slice(&meta);
    bytes.extend_from_slice(&first);
    let (read, err) = read_strict(&bytes, LOG);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(read.len(), 2);
    // The same fragment with a required (unknown) type is damage.
    bytes[first.len() + 6] = 0x11;
    let (_, err) = read_strict(&bytes, LOG);
    assert!(err.expect("unknown type").is_corruption());
}

#[test]
fn crash_clones_read_back_a_prefix_with_every_synced_record() {
    for seed in 0..40u64 {
        let fs = MemFs::new();
        let path = Path::new("/000007.log");
        let mut w = LogWriter::new(fs.create(path).expect("create"), LOG, 0);
        let records: Vec<Vec<u8>> = (0..80)
            .map(|i| record((i * 977 + seed as usize * 13) % 9000, i as u8))
            .collect();
        let mut synced = 0;
        for (i, r) in records.iter().enumerate() {
            w.add_record(r).expect("add");
            if i % 7 == 3 {
                w.sync().expect("sync");
                synced = i + 1;
            }
        }
        fs.sync_dir(Path::new("/")).expect("sync dir");
        let crashed = fs.crash_clone(CrashOptions::random(seed));
        let mut r = LogReader::open(&crashed, path, LOG).expect("open");
        let mut read = Vec::new();
        while let Some(e) = r.next_event().expect("read") {
            match e {
                LogEvent::Record(rec) => read.push(rec.data),
                LogEvent::Damage(d) => {
                    assert_eq!(d.kind, DamageKind::TornTail, "seed {seed}: {d:?}")
                }
            }
        }
        assert!(read.len() >= synced, "seed {seed}: synced records lost");
        assert_eq!(read[..], records[..read.len()], "seed {seed}: not a prefix");
    }
}

/// Writes seed inputs for `fuzz/fuzz_targets/wal_reader.rs` from valid logs. Run by hand:
/// `cargo test -p cairndb --lib write_wal_fuzz_seeds -- --ignored`.
#[test]
#[ignore = "writes into fuzz/corpus; run by hand"]
fn write_wal_fuzz_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/wal_reader");
    let fs = crate::fs::RealFs::new();
    fs.create_dir_all(&dir).expect("mkdir");
    let spanning = record(BLOCK_SIZE + 100, 9);
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("one-record", write_log(&[b"hello".to_vec()], LOG).0),
        (
            "small-records",
            write_log(
                &(0..20).map(|i| record(i * 3, i as u8)).collect::<Vec<_>>(),
                LOG,
            )
            .0,
        ),
        (
            "empty-record",
            write_log(&[Vec::new(), b"x".to_vec()], LOG).0,
        ),
        (
            "spanning-record",
            write_log(&[record(50, 1), spanning, record(10, 2)], LOG).0,
        ),
        (
            "torn-tail",
            write_log(&[record(300, 3), record(300, 4)], LOG).0[..400].to_vec(),
        ),
        ("other-log", write_log(&[record(30, 5)], 8).0),
    ];
    for (name, bytes) in seeds {
        crate::fs::write_atomic(&fs, &dir.join(name), &bytes).expect("write seed");
    }
}

#[test]
fn read_errors_are_returned_and_finish_the_reader() {
    use crate::fs::{FaultFs, FaultKind, FaultRule, OpKind};
    let mem = MemFs::new();
    let path = Path::new("/000007.log");
    let mut w = LogWriter::new(mem.create(path).expect("create"), LOG, 0);
    for i in 0..40 {
        w.add_record(&record(2000, i)).expect("add");
    }
    drop(w);
    let fs = FaultFs::new(mem.shared(), 1);
    fs.add_rule(FaultRule::nth(OpKind::Read, 2, FaultKind::Eio));
    let mut r = LogReader::open(&fs, path, LOG).expect("open");
    let mut n = 0;
    let err = loop {
        match r.next_event() {
            Ok(Some(LogEvent::Record(_))) => n += 1,
            Ok(other) => panic!("unexpected {other:?}"),
            Err(e) => break e,
        }
    };
    assert!(err.is_io(), "{err}");
    assert!(n > 0 && n < 40);
    assert!(r.next_event().expect("finished").is_none());
}

#[test]
fn corrupted_reads_are_damage_never_wrong_records() {
    use crate::fs::{FaultFs, FaultKind, FaultRule, OpKind};
    let records: Vec<Vec<u8>> = (0..40).map(|i| record(2000, i as u8)).collect();
    let (bytes, handles) = write_log(&records, LOG);
    let mem = MemFs::new();
    let path = Path::new("/000007.log");
    let mut f = mem.create(path).expect("create");
    f.append(&bytes).expect("append");
    drop(f);
    for nth in 1..=3 {
        let fs = FaultFs::new(mem.shared(), nth);
        fs.add_rule(FaultRule::nth(OpKind::Read, nth, FaultKind::CorruptRead));
        let mut r = LogReader::open(&fs, path, LOG).expect("open");
        let (mut read, mut damages) = (Vec::new(), 0);
        while let Some(e) = r.next_event().expect("read") {
            match e {
                LogEvent::Record(rec) => read.push(rec),
                LogEvent::Damage(_) => damages += 1,
            }
        }
        assert_no_wrong_record(&read, &records, &handles);
        assert!(
            damages > 0 || read.len() == records.len(),
            "read {nth}: flip undetected"
        );
    }
}
