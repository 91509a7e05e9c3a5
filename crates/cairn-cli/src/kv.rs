//! `cairn get`, `cairn put`, `cairn delete`, `cairn scan`: read and write a CairnDB database
//! from a terminal.
//!
//! Keys and values are taken from the command line as the bytes of the argument, or as hex with
//! `--hex`. Output shows printable ASCII as is, `\\` for a backslash and `\xNN` for every other
//! byte, or lowercase hex with `--hex`. Writes are synced before the command returns.
//!
//! Exit status: 0 on success; 1 when `get` finds no value (with "not found" on stderr); 2 on
//! any error (a directory that holds no database, a damaged one, bad hex, ...).
//!
//! Every verb takes `--options "<RocksDB option string>"` (see `dbopts.rs`).
//!
//! `get`, `delete` and `scan` never create a database: they open with `create_if_missing` false
//! and refuse a directory that holds none. `put` creates one when missing.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cairndb::options::{ReadOptions, WriteOptions};

use crate::dbopts::OptionsArgs;
use cairndb::{Db, Error, Result};
use clap::{Args, Subcommand};

/// Exit status of a command that failed with an error (1 is "not found").
const EXIT_ERROR: u8 = 2;

/// The key-value subcommands.
#[derive(Debug, Subcommand)]
pub enum KvCommand {
    /// Prints the value of KEY; exits 1 with "not found" on stderr when it has none.
    ///
    /// Example: cairn get --db /data/db user:42
    Get(GetArgs),
    /// Sets KEY to VALUE (synced); creates the database when the directory holds none.
    ///
    /// Example: cairn put --db /data/db user:42 '{"name":"Ada"}'
    Put(PutArgs),
    /// Deletes KEY (synced). Deleting a key that has no value is not an error.
    ///
    /// Example: cairn delete --db /data/db user:42
    Delete(DeleteArgs),
    /// Prints `key => value` for each key in [--from, --to), in order, at most --limit of them.
    ///
    /// Example: cairn scan --db /data/db --from user: --to user; --limit 10
    Scan(ScanArgs),
}

/// Arguments of `cairn get`.
#[derive(Debug, Args)]
pub struct GetArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    #[command(flatten)]
    opts: OptionsArgs,
    /// The key.
    key: String,
    /// Take the key and print the value as hex.
    #[arg(long)]
    hex: bool,
}

/// Arguments of `cairn put`.
#[derive(Debug, Args)]
pub struct PutArgs {
    /// The database directory (created with the database when missing).
    #[arg(long)]
    db: PathBuf,
    #[command(flatten)]
    opts: OptionsArgs,
    /// The key.
    key: String,
    /// The value.
    value: String,
    /// Take the key and the value as hex.
    #[arg(long)]
    hex: bool,
}

/// Arguments of `cairn delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    #[command(flatten)]
    opts: OptionsArgs,
    /// The key.
    key: String,
    /// Take the key as hex.
    #[arg(long)]
    hex: bool,
}

/// Arguments of `cairn scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    #[command(flatten)]
    opts: OptionsArgs,
    /// First key (inclusive); from the first key of the database when absent.
    #[arg(long)]
    from: Option<String>,
    /// End key (exclusive); to the last key of the database when absent.
    #[arg(long)]
    to: Option<String>,
    /// Print at most this many entries.
    #[arg(long)]
    limit: Option<u64>,
    /// Take --from and --to as hex, and print keys and values as hex.
    #[arg(long)]
    hex: bool,
}

/// Runs a key-value subcommand and returns its exit status; errors are printed to stderr.
pub fn run(cmd: &KvCommand) -> ExitCode {
    let (verb, result) = match cmd {
        KvCommand::Get(a) => ("get", get(a)),
        KvCommand::Put(a) => ("put", put(a).map(|()| ExitCode::SUCCESS)),
        KvCommand::Delete(a) => ("delete", delete(a).map(|()| ExitCode::SUCCESS)),
        KvCommand::Scan(a) => ("scan", scan(a).map(|()| ExitCode::SUCCESS)),
    };
    result.unwrap_or_else(|e| {
        eprintln!("cairn {verb}: {e}");
        ExitCode::from(EXIT_ERROR)
    })
}

/// Opens the database in `dir`; without `create`, a directory that holds none is an error.
fn open(dir: &Path, opts: &OptionsArgs, create: bool) -> Result<Db> {
    if !create && !dir.join("CURRENT").is_file() {
        let what = if dir.is_dir() {
            "holds no CairnDB database (no CURRENT file)"
        } else {
            "does not exist"
        };
        return Err(Error::InvalidArgument(format!(
            "{} {what}; `cairn put` creates a database",
            dir.display()
        )));
    }
    let mut options = opts.build()?;
    options.db.create_if_missing = create;
    Db::open(dir, options)
}

/// Writes are synced: a command that returned has its write on stable storage.
fn durable() -> WriteOptions {
    WriteOptions {
        sync: true,
        ..WriteOptions::default()
    }
}

/// The bytes of a command-line argument: as given, or decoded from hex.
pub(crate) fn decode(arg: &str, hex: bool, what: &str) -> Result<Vec<u8>> {
    if !hex {
        return Ok(arg.as_bytes().to_vec());
    }
    let bad = || Error::InvalidArgument(format!("{what} {arg:?} is not hex (pairs of 0-9a-f)"));
    let nibbles: Vec<u8> = arg
        .chars()
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    if nibbles.len() % 2 != 0 {
        return Err(bad());
    }
    Ok(nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

/// Bytes for a terminal: lowercase hex, or printable ASCII with `\\` and `\xNN` escapes.
fn show(bytes: &[u8], hex: bool) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        match b {
            _ if hex => s.push_str(&format!("{b:02x}")),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

/// Writes `line` to stdout; a closed pipe (`cairn scan | head`) ends the output quietly.
fn print_line(out: &mut impl Write, line: &str) -> Result<bool> {
    match writeln!(out, "{line}") {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(Error::io("write", "<stdout>", e)),
    }
}

fn get(a: &GetArgs) -> Result<ExitCode> {
    let key = decode(&a.key, a.hex, "key")?;
    let db = open(&a.db, &a.opts, false)?;
    let value = db.get(&ReadOptions::default(), &key)?;
    db.close()?;
    match value {
        Some(v) => {
            print_line(&mut io::stdout().lock(), &show(&v, a.hex))?;
            Ok(ExitCode::SUCCESS)
        }
        None => {
            eprintln!("cairn get: key '{}' not found", show(&key, a.hex));
            Ok(ExitCode::FAILURE)
        }
    }
}

fn put(a: &PutArgs) -> Result<()> {
    let key = decode(&a.key, a.hex, "key")?;
    let value = decode(&a.value, a.hex, "value")?;
    let db = open(&a.db, &a.opts, true)?;
    db.put(&durable(), &key, &value)?;
    db.close()
}

fn delete(a: &DeleteArgs) -> Result<()> {
    let key = decode(&a.key, a.hex, "key")?;
    let db = open(&a.db, &a.opts, false)?;
    db.delete(&durable(), &key)?;
    db.close()
}

fn scan(a: &ScanArgs) -> Result<()> {
    let from = a
        .from
        .as_deref()
        .map(|k| decode(k, a.hex, "--from"))
        .transpose()?;
    let to =
        a.to.as_deref()
            .map(|k| decode(k, a.hex, "--to"))
            .transpose()?;
    if let (Some(f), Some(t)) = (&from, &to) {
        if f > t {
            return Err(Error::InvalidArgument(
                "--from is after --to: the range is empty".to_string(),
            ));
        }
    }
    let db = open(&a.db, &a.opts, false)?;
    let ro = ReadOptions {
        iterate_lower_bound: from.clone(),
        iterate_upper_bound: to,
        ..ReadOptions::default()
    };
    let mut it = db.iter(&ro)?;
    match &from {
        Some(f) => it.seek(f),
        None => it.seek_to_first(),
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut printed = 0;
    while it.valid() && a.limit.is_none_or(|limit| printed < limit) {
        let line = format!("{} => {}", show(it.key(), a.hex), show(it.value(), a.hex));
        if !print_line(&mut out, &line)? {
            break;
        }
        printed += 1;
        it.next();
    }
    it.status()?;
    match out.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            return Err(Error::io("write", "<stdout>", e))
        }
        _ => {}
    }
    drop(it);
    db.close()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_bad_digits() {
        assert_eq!(decode("00ff10", true, "key").unwrap(), [0, 0xff, 0x10]);
        assert_eq!(show(&[0, 0xff, 0x10], true), "00ff10");
        assert_eq!(decode("ABcd", true, "key").unwrap(), [0xab, 0xcd]);
        assert!(decode("abc", true, "key").is_err(), "odd length");
        assert!(decode("zz", true, "key").is_err(), "not hex");
        assert!(decode("+1", true, "key").is_err(), "sign is not a digit");
        assert_eq!(decode("zz", false, "key").unwrap(), b"zz");
    }

    #[test]
    fn text_output_escapes_what_a_terminal_cannot_show() {
        assert_eq!(show(b"user:42 {\"a\"}", false), "user:42 {\"a\"}");
        assert_eq!(show(b"a\\b\n\0\xff", false), "a\\\\b\\x0a\\x00\\xff");
    }
}
