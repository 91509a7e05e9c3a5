//! `cairn manifest dump` and `cairn wal dump`: print the records of a MANIFEST (version edits)
//! or of a WAL (write batches) in order, as RocksDB's `ldb manifest_dump` and `ldb dump_wal` do.
//!
//! Neither opens the database, so both may run while another process has it open (they read
//! what was written so far). Damage is reported with its file, offset and kind; a torn tail is
//! printed and ends the dump normally (it is what a crash leaves), any other damage makes the
//! command fail after printing what came before it.

use std::path::{Path, PathBuf};

use cairndb::batch::WriteBatch;
use cairndb::fs::RealFs;
use cairndb::version::filenames::manifest_file_name;
use cairndb::version::{parse_file_name, read_current, FileType, ManifestEntry, ManifestReader};
use cairndb::wal::{DamageKind, LogEvent, LogReader};
use cairndb::{Error, Result};
use clap::{Args, Subcommand};

use crate::admin::{escape, show_ikey};

/// `cairn manifest ...`.
#[derive(Debug, Subcommand)]
pub enum ManifestCommand {
    /// Prints every version edit of a MANIFEST: column families, log numbers, sequence numbers,
    /// files added (level, number, size, key range) and deleted.
    ///
    /// Example: cairn manifest dump /data/db            (the MANIFEST CURRENT names)
    ///          cairn manifest dump /data/db/MANIFEST-000005
    Dump(ManifestDumpArgs),
}

/// `cairn wal ...`.
#[derive(Debug, Subcommand)]
pub enum WalCommand {
    /// Prints every record of a WAL file: offset, sequence number, entry count and each entry
    /// (column family, kind, key, and the value with --values).
    ///
    /// Example: cairn wal dump /data/db/000012.log --values
    Dump(WalDumpArgs),
}

/// Arguments of `cairn manifest dump`.
#[derive(Debug, Args)]
pub struct ManifestDumpArgs {
    /// A MANIFEST-NNNNNN file, or a database directory (its CURRENT MANIFEST).
    path: PathBuf,
}

/// Arguments of `cairn wal dump`.
#[derive(Debug, Args)]
pub struct WalDumpArgs {
    /// An NNNNNN.log file.
    file: PathBuf,
    /// Print values too (keys only by default).
    #[arg(long)]
    values: bool,
}

/// The number in a file name of `kind`, or an error naming the file.
fn number_of(path: &Path, kind: FileType) -> Result<u64> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match parse_file_name(name) {
        Some((k, n)) if k == kind => Ok(n),
        _ => Err(Error::InvalidArgument(format!(
            "{} is not named as a {kind:?} file of a database",
            path.display()
        ))),
    }
}

/// Runs `cairn manifest dump`.
pub fn manifest(cmd: &ManifestCommand) -> Result<()> {
    let ManifestCommand::Dump(args) = cmd;
    dump_manifest(&args.path)
}

/// Prints the MANIFEST `path` names (a MANIFEST file, or a database directory's current one).
pub fn dump_manifest(path: &Path) -> Result<()> {
    let fs = RealFs::shared();
    let path = if path.is_dir() {
        let n = read_current(&*fs, path)?;
        path.join(manifest_file_name(n))
    } else {
        path.to_path_buf()
    };
    let number = number_of(&path, FileType::Manifest)?;
    let mut reader = ManifestReader::open(&*fs, &path, number)?;
    println!("{} ({} bytes)", path.display(), fs.size(&path)?);
    let mut count = 0u64;
    while let Some(entry) = reader.next_entry()? {
        match entry {
            ManifestEntry::Edits(edits) => {
                let group = edits.len() > 1;
                for (i, e) in edits.iter().enumerate() {
                    count += 1;
                    let at = if group {
                        format!(" (atomic group {}/{})", i + 1, edits.len())
                    } else {
                        String::new()
                    };
                    println!("edit #{count} at offset {}{at}:", reader.entry_offset());
                    print_edit(e);
                }
            }
            ManifestEntry::TornTail(d) => {
                println!(
                    "torn tail at offset {}: {} bytes dropped ({})",
                    d.offset, d.bytes_dropped, d.reason
                );
            }
        }
    }
    println!("{count} edits");
    Ok(())
}

fn print_edit(e: &cairndb::version::VersionEdit) {
    let mut fields = vec![format!("cf {}", e.column_family)];
    if let Some(n) = &e.column_family_add {
        fields.push(format!("add column family {n:?}"));
    }
    if e.column_family_drop {
        fields.push("drop column family".to_string());
    }
    let mut opt = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            fields.push(format!("{name} {v}"));
        }
    };
    opt("comparator", e.comparator.clone());
    opt("log_number", e.log_number.map(|v| v.to_string()));
    opt("prev_log_number", e.prev_log_number.map(|v| v.to_string()));
    opt(
        "next_file_number",
        e.next_file_number.map(|v| v.to_string()),
    );
    opt("last_sequence", e.last_sequence.map(|v| v.to_string()));
    opt(
        "max_column_family",
        e.max_column_family.map(|v| v.to_string()),
    );
    println!("  {}", fields.join(", "));
    for d in &e.deleted_files {
        println!("  delete L{} {:06}.sst", d.level, d.number);
    }
    for f in &e.new_files {
        let m = &f.meta;
        println!(
            "  add L{} {:06}.sst {} bytes seq {}..{} [{} .. {}]",
            f.level,
            m.number,
            m.size,
            m.smallest_seqno,
            m.largest_seqno,
            show_ikey(&m.smallest),
            show_ikey(&m.largest)
        );
    }
}

/// Runs `cairn wal dump`.
pub fn wal(cmd: &WalCommand) -> Result<()> {
    let WalCommand::Dump(args) = cmd;
    dump_wal(&args.file, args.values)
}

/// Prints every record of the WAL `file` (values too with `values`).
pub fn dump_wal(file: &Path, values: bool) -> Result<()> {
    let fs = RealFs::shared();
    let number = number_of(file, FileType::Log)?;
    let mut reader = LogReader::open(&*fs, file, number)?;
    println!("{} ({} bytes)", file.display(), reader.file_size());
    let (mut records, mut entries) = (0u64, 0u64);
    let mut failure = None;
    while let Some(event) = reader.next_event()? {
        match event {
            LogEvent::Record(r) => {
                records += 1;
                let batch = WriteBatch::from_bytes(r.data).map_err(|e| {
                    Error::corruption(file, r.offset, format!("record is no batch: {e}"))
                })?;
                println!(
                    "record at offset {}: sequence {}, {} entries",
                    r.offset,
                    batch.sequence(),
                    batch.count()
                );
                for entry in batch.iter() {
                    let e = entry?;
                    entries += 1;
                    let value = if values || e.value.is_empty() {
                        format!(" => '{}'", escape(e.value))
                    } else {
                        format!(" ({} value bytes)", e.value.len())
                    };
                    println!("  cf {} {:?} '{}'{value}", e.cf, e.kind, escape(e.key));
                }
            }
            LogEvent::Damage(d) => {
                println!(
                    "{:?} at offset {}: {} bytes dropped ({})",
                    d.kind, d.offset, d.bytes_dropped, d.reason
                );
                if d.kind != DamageKind::TornTail {
                    failure.get_or_insert(d.to_error());
                }
            }
        }
    }
    println!("{records} records, {entries} entries");
    failure.map_or(Ok(()), Err)
}
