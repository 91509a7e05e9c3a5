//! `cairn compact`, `cairn stats`, `cairn lsm`, `cairn options` and `cairn checkpoint`:
//! administer a database from a terminal.
//!
//! Each opens an existing database (never creates one) with every column family and closes it
//! when done, so it must not run while another process has it open (the LOCK file makes that
//! an error, not a corruption), except `cairn options`, which only reads the OPTIONS file.
//! Every verb that opens the database takes `--options "<RocksDB option string>"`.

use std::path::{Path, PathBuf};

use cairndb::db::ColumnFamily;
use cairndb::fs::RealFs;
use cairndb::options::{OptionsFile, ParseConfig};
use cairndb::types::ParsedKey;
use cairndb::{Db, Error, Result};
use clap::Args;

use crate::dbopts::{require_db, OptionsArgs};

/// Arguments of `cairn compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    /// Compact only this column family (default: every family).
    #[arg(long)]
    cf: Option<String>,
    #[command(flatten)]
    opts: OptionsArgs,
}

/// Arguments of `cairn stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    /// Print one property instead (RocksDB's name, e.g. rocksdb.estimate-num-keys).
    #[arg(long)]
    property: Option<String>,
    #[command(flatten)]
    opts: OptionsArgs,
}

/// Arguments of `cairn lsm`.
#[derive(Debug, Args)]
pub struct LsmArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    #[command(flatten)]
    opts: OptionsArgs,
}

/// Arguments of `cairn options`.
#[derive(Debug, Args)]
pub struct OptionsVerbArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
}

/// Arguments of `cairn checkpoint`.
#[derive(Debug, Args)]
pub struct CheckpointArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    /// The checkpoint directory to create (must not exist).
    out: PathBuf,
    #[command(flatten)]
    opts: OptionsArgs,
}

/// Opens without automatic compactions: `stats` and `lsm` must not start rewriting the database
/// they look at, and `compact` runs its own.
fn open(dir: &Path, opts: &OptionsArgs) -> Result<Db> {
    require_db(dir)?;
    let mut options = opts.build()?;
    options.db.create_if_missing = false;
    options.cf.disable_auto_compactions = true;
    Db::open(dir, options)
}

/// Compacts every level of the chosen families down to the last level, then prints the levels.
pub fn compact(args: &CompactArgs) -> Result<()> {
    let db = open(&args.db, &args.opts)?;
    let families = match &args.cf {
        Some(name) => vec![db.column_family(name).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "no column family {name:?} in {}",
                args.db.display()
            ))
        })?],
        None => db.column_families(),
    };
    for cf in &families {
        db.compact_range_cf(cf, None, None)?;
    }
    print_levels(&db, &families);
    db.close()
}

/// Prints RocksDB's `rocksdb.stats` for every family (the Compaction Stats table), the DB
/// stats, and the score and target of every level; or one property with `--property`.
pub fn stats(args: &StatsArgs) -> Result<()> {
    let db = open(&args.db, &args.opts)?;
    if let Some(name) = &args.property {
        let value = db.property(name);
        db.close()?;
        let value = value.ok_or_else(|| {
            Error::InvalidArgument(format!(
                "unknown property {name:?}; known (with the rocksdb. or cairndb. prefix): {}",
                cairndb::db::PROPERTY_NAMES.join(", ")
            ))
        })?;
        println!("{}", value.trim_end());
        return Ok(());
    }
    let families = db.column_families();
    for cf in &families {
        if let Some(s) = db.property_cf(cf, "rocksdb.cfstats") {
            print!("{s}");
        }
    }
    if let Some(s) = db.property("rocksdb.dbstats") {
        print!("{s}");
    }
    println!();
    print_levels(&db, &families);
    db.close()
}

/// Prints every table of every level with its size, entries and key range.
pub fn lsm(args: &LsmArgs) -> Result<()> {
    let db = open(&args.db, &args.opts)?;
    for cf in db.column_families() {
        println!("** Column family {} **", cf.name());
        for (level, files) in db.level_files_cf(&cf).iter().enumerate() {
            if files.is_empty() {
                continue;
            }
            let bytes: u64 = files.iter().map(|f| f.size).sum();
            println!("L{level}: {} files, {bytes} bytes", files.len());
            for f in files {
                println!(
                    "  {:06}.sst {:>10} bytes  seq {}..{}  [{} .. {}]",
                    f.number,
                    f.size,
                    f.smallest_seqno,
                    f.largest_seqno,
                    show_ikey(&f.smallest),
                    show_ikey(&f.largest)
                );
            }
        }
    }
    db.close()
}

/// Prints the newest OPTIONS file of the database (without opening the database).
pub fn options(args: &OptionsVerbArgs) -> Result<()> {
    require_db(&args.db)?;
    let fs = RealFs::shared();
    let path = OptionsFile::latest(&*fs, &args.db)?.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{} has no OPTIONS file (it was last opened by an older CairnDB)",
            args.db.display()
        ))
    })?;
    // Parsed first, so a damaged file is reported, not printed as if it were fine.
    let (file, _) = OptionsFile::load(&*fs, &path, &ParseConfig::default())?;
    println!("# {}", path.display());
    print!("{}", file.render());
    Ok(())
}

/// Writes a checkpoint of the database into OUT.
pub fn checkpoint(args: &CheckpointArgs) -> Result<()> {
    let db = open(&args.db, &args.opts)?;
    let r = db.checkpoint(&args.out)?;
    db.close()?;
    println!(
        "checkpoint {}: {} tables linked, {} copied, {} WALs copied, {} bytes copied, \
         sequence {}",
        r.dir.display(),
        r.tables_linked,
        r.tables_copied,
        r.wals_copied,
        r.bytes_copied,
        r.sequence
    );
    Ok(())
}

/// A user key with its sequence number and kind, printable.
pub fn show_ikey(ikey: &[u8]) -> String {
    match ParsedKey::parse(ikey) {
        Ok(p) => format!("'{}' @ {} : {:?}", escape(p.user_key), p.seq, p.kind),
        Err(_) => format!("<malformed key {}>", escape(ikey)),
    }
}

/// Printable ASCII as is, `\\` and `\xNN` for the rest.
pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

fn print_levels(db: &Db, families: &[ColumnFamily]) {
    for cf in families {
        println!("** Column family {} **", cf.name());
        println!(
            "{:<6} {:>7} {:>12} {:>8} {:>12}",
            "Level", "Files", "Size(MB)", "Score", "Target(MB)"
        );
        let mb = |b: u64| b as f64 / (1 << 20) as f64;
        let mut files = 0;
        let mut bytes = 0;
        for (level, l) in db.level_summary_cf(cf).iter().enumerate() {
            files += l.files;
            bytes += l.bytes;
            if l.files == 0 && l.target_bytes == 0 {
                continue;
            }
            println!(
                "L{level:<5} {:>7} {:>12.2} {:>8.2} {:>12.2}",
                l.files,
                mb(l.bytes),
                l.score,
                mb(l.target_bytes)
            );
        }
        println!("{:<6} {files:>7} {:>12.2}", "Sum", mb(bytes));
        println!(
            "Pending compaction bytes: {:.2} MB",
            mb(db.pending_compaction_bytes_cf(cf))
        );
    }
}
