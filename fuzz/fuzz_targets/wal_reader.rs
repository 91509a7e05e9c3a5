//! Arbitrary bytes as a log file: reading must never panic, hang or allocate without bound, in
//! strict mode (`next_record`) and in reporting mode (`next_event`), and every record returned in
//! strict mode is also returned in reporting mode.
#![no_main]

use std::path::Path;

use cairndb::fs::{FileSystem, MemFs};
use cairndb::wal::{LogEvent, LogReader};
use libfuzzer_sys::fuzz_target;

const LOG_NUMBER: u64 = 7;

fuzz_target!(|data: &[u8]| {
    let fs = MemFs::new();
    let path = Path::new("/000007.log");
    let Ok(mut f) = fs.create(path) else { return };
    if f.append(data).is_err() {
        return;
    }
    drop(f);

    let mut strict = Vec::new();
    let mut reader = LogReader::open(&fs, path, LOG_NUMBER).expect("open");
    while let Ok(Some(record)) = reader.next_record() {
        strict.push(record);
    }

    let mut reader = LogReader::open(&fs, path, LOG_NUMBER).expect("open");
    let mut events = 0usize;
    let mut reported = Vec::new();
    while let Some(event) = reader.next_event().expect("no I/O error in memory") {
        events += 1;
        assert!(events <= data.len() + 2, "reader does not terminate");
        if let LogEvent::Record(r) = event {
            reported.push(r);
        }
    }
    // Strict reading stops at the first damage, so it returns a prefix of the reported records.
    assert!(strict.len() <= reported.len());
    assert_eq!(strict[..], reported[..strict.len()]);
});
