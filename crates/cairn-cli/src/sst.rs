//! `cairn sst`: inspect and verify one SST file, in the spirit of RocksDB's `sst_dump`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use cairndb::fs::{FileSystem, RealFs};
use cairndb::iter::InternalIterator;
use cairndb::sstable::{Table, TableOptions};
use cairndb::types::ParsedKey;
use clap::Subcommand;

/// `cairn sst` subcommands.
#[derive(Debug, Subcommand)]
pub enum SstCommand {
    /// Prints the footer, the properties and the index of an SST file; with --entries, every entry.
    ///
    /// Example: cairn sst dump /data/db/000012.sst --entries --hex
    Dump {
        /// The SST file.
        file: PathBuf,
        /// Also print every entry (user key, sequence number, kind, value).
        #[arg(long)]
        entries: bool,
        /// Print keys and values in hex instead of escaped text.
        #[arg(long)]
        hex: bool,
    },
    /// Checks the checksum of every block; exits non-zero naming the file and the offset of the
    /// first corruption.
    ///
    /// Example: cairn sst verify /data/db/000012.sst
    Verify {
        /// The SST file.
        file: PathBuf,
    },
}

/// Runs an `sst` subcommand.
pub fn run(cmd: &SstCommand) -> cairndb::Result<ExitCode> {
    match cmd {
        SstCommand::Dump { file, entries, hex } => dump(file, *entries, *hex),
        SstCommand::Verify { file } => verify(file),
    }
}

fn open(path: &Path) -> cairndb::Result<Arc<Table>> {
    let fs = RealFs::new();
    let size = fs.size(path)?;
    let file = fs.open_read(path)?;
    Ok(Arc::new(Table::open_recorded(
        file,
        path,
        size,
        &TableOptions::default(),
    )?))
}

/// Shows bytes as text when they are printable, else as escapes (or always hex with `hex`).
fn show(bytes: &[u8], hex: bool) -> String {
    if hex {
        return bytes.iter().map(|b| format!("{b:02x}")).collect();
    }
    bytes.escape_ascii().to_string()
}

fn show_internal_key(ikey: &[u8], hex: bool) -> String {
    match ParsedKey::parse(ikey) {
        Ok(k) => format!(
            "'{}' seq:{} kind:{:?}",
            show(k.user_key, hex),
            k.seq,
            k.kind
        ),
        Err(_) => format!("<malformed key {}>", show(ikey, true)),
    }
}

fn dump(path: &Path, entries: bool, hex: bool) -> cairndb::Result<ExitCode> {
    let table = open(path)?;
    println!("File: {}", path.display());
    println!("Size: {} bytes", table.file_size());
    println!("Footer: {:?}", table.footer());
    println!("Properties:");
    for (name, value) in table.properties().to_display_pairs() {
        println!("  {name}: {value}");
    }
    println!("Index (separator key -> data block offset, size):");
    for (key, handle) in table.index_entries()? {
        println!(
            "  {} -> {} {}",
            show_internal_key(&key, hex),
            handle.offset,
            handle.size
        );
    }
    if entries {
        println!("Entries:");
        let mut it = table.iter_without_cache_fill();
        it.seek_to_first();
        while it.valid() {
            println!(
                "  {} => '{}'",
                show_internal_key(it.key(), hex),
                show(it.value(), hex)
            );
            it.next();
        }
        it.status()?;
    }
    Ok(ExitCode::SUCCESS)
}

fn verify(path: &Path) -> cairndb::Result<ExitCode> {
    match open(path).and_then(|t| t.verify_checksums()) {
        Ok(()) => {
            println!("{}: OK, every block checksum verified", path.display());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            match e.as_corruption() {
                Some(c) => println!(
                    "{}: CORRUPTION at offset {}: {}",
                    path.display(),
                    c.offset,
                    e
                ),
                None => println!("{}: ERROR: {e}", path.display()),
            }
            Ok(ExitCode::FAILURE)
        }
    }
}
