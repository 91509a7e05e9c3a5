//! WAL throughput: appending records (no sync) and reading them back, for 100-byte and 4 KiB
//! records, on the in-memory file system and on the real one in a temporary directory.
//! Reported twice per case: as bytes/s (MB/s) and as elements/s (records/s).
//!
//! Run: `cargo bench -p cairndb --bench wal`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairndb::fs::{FileSystem, MemFs, RealFs};
use cairndb::wal::{LogReader, LogWriter};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Records appended or read per measured iteration.
const RECORDS_PER_ITER: usize = 1000;
const RECORD_SIZES: [usize; 2] = [100, 4096];
const LOG_NUMBER: u64 = 1;

/// The file systems measured, each with the directory its log goes in.
fn targets(tmp: &Path) -> Vec<(&'static str, Arc<dyn FileSystem>, PathBuf)> {
    vec![
        ("memfs", MemFs::new().shared(), PathBuf::from("/000001.log")),
        ("realfs", RealFs::shared(), tmp.join("000001.log")),
    ]
}

fn payload(size: usize) -> Vec<u8> {
    (0..size).map(|i| (i * 7 + 3) as u8).collect()
}

fn append_records(fs: &dyn FileSystem, path: &Path, record: &[u8]) {
    let mut w = LogWriter::new(fs.create(path).expect("create"), LOG_NUMBER, 0);
    for _ in 0..RECORDS_PER_ITER {
        w.add_record(record).expect("add");
    }
    w.flush().expect("flush");
}

fn read_records(fs: &dyn FileSystem, path: &Path) -> usize {
    let mut r = LogReader::open(fs, path, LOG_NUMBER).expect("open");
    let mut n = 0;
    while let Some(rec) = r.next_record().expect("read") {
        n += black_box(rec.data.len());
    }
    n
}

/// Units each case is reported in: MB/s and records/s.
const UNITS: [&str; 2] = ["bytes", "records"];

fn throughput(unit: &str, size: usize) -> Throughput {
    let records = RECORDS_PER_ITER as u64;
    match unit {
        "bytes" => Throughput::Bytes(records * size as u64),
        _ => Throughput::Elements(records),
    }
}

fn bench_append(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    for unit in UNITS {
        let mut group = c.benchmark_group(format!("wal_append_{unit}"));
        for size in RECORD_SIZES {
            group.throughput(throughput(unit, size));
            let record = payload(size);
            for (name, fs, path) in targets(tmp.path()) {
                group.bench_function(BenchmarkId::new(name, size), |b| {
                    b.iter(|| append_records(fs.as_ref(), &path, &record));
                });
            }
        }
        group.finish();
    }
}

fn bench_read(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    for unit in UNITS {
        let mut group = c.benchmark_group(format!("wal_read_{unit}"));
        for size in RECORD_SIZES {
            group.throughput(throughput(unit, size));
            for (name, fs, path) in targets(tmp.path()) {
                append_records(fs.as_ref(), &path, &payload(size));
                group.bench_function(BenchmarkId::new(name, size), |b| {
                    b.iter(|| read_records(fs.as_ref(), &path));
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench_append, bench_read);
criterion_main!(benches);
