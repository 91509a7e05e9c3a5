//! Offline verification of a whole database directory: `cairn verify --db DIR`.
//!
//! [`verify`] reads without writing anything (it takes no lock and may run beside a live
//! process, though files that process deletes meanwhile are then reported missing):
//! 1. CURRENT, which must name an existing MANIFEST;
//! 2. the MANIFEST, every record strictly (a torn final record is reported too: after a clean
//!    shutdown there is none, and a flipped bit in the last record looks the same);
//! 3. every live table file of every column family: its size against the MANIFEST's, then every
//!    block (footer, metaindex, properties, filter, range deletions, index and every data block
//!    with its entries) against its checksum, and that the blocks tile the file;
//! 4. every live WAL (numbered at or above the oldest log a family still needs): every record's
//!    checksum and every record's write batch.
//!
//! It stops at the first damage and returns it as an [`Error::Corruption`] naming the file and
//! the offset; the [`VerifyReport`] of a clean database says what was checked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::sstable::{Table, TableOptions};
use crate::version::filenames::{log_file_name, manifest_file_name, table_file_name};
use crate::version::{
    parse_file_name, read_current, FileType, ManifestEntry, ManifestReader, VersionSet,
    VersionSetOptions, MAX_LEVELS,
};
use crate::wal::{DamageKind, LogEvent, LogReader};

/// What [`verify`] checked in a database without damage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// The MANIFEST named by CURRENT.
    pub manifest: PathBuf,
    /// Edits (or atomic groups) read from it.
    pub manifest_entries: u64,
    /// Live table files checked.
    pub tables: u64,
    /// Their bytes.
    pub table_bytes: u64,
    /// Data blocks checked (each with every entry decoded).
    pub data_blocks: u64,
    /// Live WAL files checked.
    pub wals: u64,
    /// WAL records checked.
    pub wal_records: u64,
}

/// Verifies the database in directory `dir` on the real file system. See the module contract.
///
/// # Errors
/// The first damage found, as [`Error::Corruption`] naming the file and offset; I/O errors
/// (NotFound when `dir` holds no database).
pub fn verify(dir: impl AsRef<Path>) -> Result<VerifyReport> {
    verify_with_fs(Arc::new(RealFs::new()), dir.as_ref())
}

/// [`verify`] on any file system.
///
/// # Errors
/// As [`verify`].
pub fn verify_with_fs(fs: Arc<dyn FileSystem>, dir: &Path) -> Result<VerifyReport> {
    let mut report = VerifyReport::default();
    let number = read_current(&*fs, dir)?;
    let manifest = dir.join(manifest_file_name(number));
    check_manifest(&*fs, &manifest, number, &mut report)?;
    report.manifest = manifest;
    let opts = VersionSetOptions {
        num_levels: usize::from(MAX_LEVELS),
        adopt_recorded_comparators: true,
        ..VersionSetOptions::default()
    };
    let (set, _) = VersionSet::recover(Arc::clone(&fs), dir, opts)?;
    for cf in set.column_families() {
        let Some(version) = set.current(cf.id) else {
            continue;
        };
        for (_, meta) in version.all_files() {
            let path = dir.join(table_file_name(meta.number));
            check_table(&*fs, &path, meta.size, &mut report)?;
        }
    }
    let min_log = set.min_log_number_to_keep();
    let mut logs: Vec<u64> = fs
        .list(dir)?
        .iter()
        .filter_map(|name| parse_file_name(name))
        .filter(|&(t, n)| t == FileType::Log && n >= min_log)
        .map(|(_, n)| n)
        .collect();
    logs.sort_unstable();
    for n in logs {
        check_wal(&*fs, &dir.join(log_file_name(n)), n, &mut report)?;
    }
    Ok(report)
}

fn check_manifest(
    fs: &dyn FileSystem,
    path: &Path,
    number: u64,
    report: &mut VerifyReport,
) -> Result<()> {
    if !fs.exists(path)? {
        let why = format!("CURRENT names {}, which does not exist", path.display());
        return Err(Error::corruption(path, 0, why));
    }
    let mut reader = ManifestReader::open(fs, path, number)?;
    while let Some(entry) = reader.next_entry()? {
        match entry {
            ManifestEntry::Edits(_) => report.manifest_entries += 1,
            ManifestEntry::TornTail(damage) => return Err(damage.to_error()),
        }
    }
    Ok(())
}

fn check_table(
    fs: &dyn FileSystem,
    path: &Path,
    expected_size: u64,
    report: &mut VerifyReport,
) -> Result<()> {
    let size = fs.size(path)?;
    if size != expected_size {
        let why = format!("the MANIFEST records {expected_size} bytes, the file has {size}");
        return Err(Error::corruption(path, size.min(expected_size), why));
    }
    let file = fs.open_read(path)?;
    let table = Arc::new(Table::open_recorded(
        file,
        path,
        size,
        &TableOptions::default(),
    )?);
    table.verify_checksums()?;
    report.tables += 1;
    report.table_bytes += size;
    report.data_blocks += table.properties().num_data_blocks;
    Ok(())
}

fn check_wal(
    fs: &dyn FileSystem,
    path: &Path,
    number: u64,
    report: &mut VerifyReport,
) -> Result<()> {
    let mut reader = LogReader::open(fs, path, number)?;
    while let Some(event) = reader.next_event()? {
        match event {
            LogEvent::Record(record) => {
                WriteBatch::from_bytes(record.data).map_err(|e| {
                    Error::corruption(path, record.offset, format!("WAL record: {e}"))
                })?;
                report.wal_records += 1;
            }
            // The rest of a recycled file: not this log's records.
            LogEvent::Damage(d) if d.kind == DamageKind::OldLogNumber => break,
            LogEvent::Damage(d) => return Err(d.to_error()),
        }
    }
    report.wals += 1;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::options::{Options, WriteOptions};
    use crate::Db;

    fn db_with_tables(fs: &MemFs) {
        let mut o = Options::default();
        o.db.create_if_missing = true;
        let db = Db::open_with_fs(fs.shared(), "/db", o).expect("open");
        for i in 0..2000u32 {
            let w = WriteOptions::default();
            db.put(&w, &i.to_be_bytes(), &[7; 100]).expect("put");
            if i == 1000 {
                db.flush().expect("flush");
            }
        }
        db.close().expect("close");
    }

    #[test]
    fn clean_database_verifies() {
        let fs = MemFs::new();
        db_with_tables(&fs);
        let r = verify_with_fs(fs.shared(), Path::new("/db")).expect("verify");
        assert_eq!(r.tables, 1, "{r:?}");
        assert!(r.data_blocks > 10, "{r:?}");
        assert!(r.wal_records > 0, "{r:?}");
        assert!(r.manifest_entries > 0, "{r:?}");
    }

    #[test]
    fn a_flipped_bit_in_a_table_is_reported_with_file_and_offset() {
        let fs = MemFs::new();
        db_with_tables(&fs);
        let sst = fs
            .list(Path::new("/db"))
            .expect("list")
            .into_iter()
            .find(|n| n.ends_with(".sst"))
            .expect("a table");
        let path = Path::new("/db").join(&sst);
        fs.corrupt_byte(&path, 5000, |b| b ^ 0x10).expect("corrupt");
        let e = verify_with_fs(fs.shared(), Path::new("/db")).expect_err("damage found");
        let c = e.as_corruption().expect("corruption");
        assert_eq!(c.file, path);
        assert!(c.offset <= 5000, "{e}");
    }

    #[test]
    fn a_missing_database_is_an_io_error() {
        let fs = MemFs::new();
        let e = verify_with_fs(fs.shared(), Path::new("/nothing")).expect_err("no db");
        assert!(e.is_io(), "{e}");
    }
}
