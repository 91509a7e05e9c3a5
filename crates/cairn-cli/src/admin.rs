//! `cairn compact` and `cairn stats`: administer a database from a terminal.
//!
//! Both open an existing database (never create one) with every column family, as `cairn get`
//! does, and close it when done, so they must not run while another process has it open (the
//! LOCK file makes that an error, not a corruption).

use std::path::PathBuf;

use cairndb::options::Options;
use cairndb::{Db, Error, Result};
use clap::Args;

/// Arguments of `cairn compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    /// Compact only this column family (default: every family).
    #[arg(long)]
    cf: Option<String>,
}

/// Arguments of `cairn stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
}

/// Opens without automatic compactions: `stats` must not start rewriting the database it looks
/// at, and `compact` runs its own.
fn open(dir: &std::path::Path) -> Result<Db> {
    if !dir.join("CURRENT").is_file() {
        return Err(Error::InvalidArgument(format!(
            "{} holds no CairnDB database (no CURRENT file)",
            dir.display()
        )));
    }
    let mut options = Options::default();
    options.cf.disable_auto_compactions = true;
    Db::open(dir, options)
}

/// Compacts every level of the chosen families down to the last level, then prints the levels.
pub fn compact(args: &CompactArgs) -> Result<()> {
    let db = open(&args.db)?;
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

/// Prints files, size, score and target per level of every family.
pub fn stats(args: &StatsArgs) -> Result<()> {
    let db = open(&args.db)?;
    print_levels(&db, &db.column_families());
    db.close()
}

fn print_levels(db: &Db, families: &[cairndb::db::ColumnFamily]) {
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
