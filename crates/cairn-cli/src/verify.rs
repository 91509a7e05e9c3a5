//! `cairn verify --db DIR`: checks every block of every live file of a database (CURRENT, the
//! MANIFEST, every live SST, every live WAL) against its checksum, without opening the database
//! for writing. Exits 0 when all is well; otherwise prints the first corruption with its file and
//! offset and exits non-zero.

use std::path::PathBuf;

/// Arguments of `cairn verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The database directory.
    #[arg(long)]
    pub db: PathBuf,
}

/// Runs `cairn verify`.
///
/// # Errors
/// The first corruption found (naming file and offset), or an I/O error.
pub fn run(args: &VerifyArgs) -> cairndb::Result<()> {
    let r = cairndb::verify::verify(&args.db).map_err(|e| match e.as_corruption() {
        Some(c) => {
            let at = format!("corruption in {} at offset {}", c.file.display(), c.offset);
            e.context(at)
        }
        None => e,
    })?;
    println!(
        "manifest: {} ({} entries)",
        r.manifest.display(),
        r.manifest_entries
    );
    println!(
        "tables: {} ({} bytes, {} data blocks)",
        r.tables, r.table_bytes, r.data_blocks
    );
    println!("wals: {} ({} records)", r.wals, r.wal_records);
    println!("ok: no corruption found");
    Ok(())
}
