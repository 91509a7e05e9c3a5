//! `cairn ldb`: RocksDB's `ldb` command lines on CairnDB databases, for operators' scripts.
//!
//! `cairn ldb --db=DIR [--hex|--key_hex|--value_hex] [--column_family=CF] COMMAND ARGS...`,
//! options as `--name=value` anywhere on the line, as ldb takes them. Commands and their output,
//! as ldb prints it:
//! - `get KEY`: the value, or `Key not found`.
//! - `put KEY VALUE`, `delete KEY`, `deleterange BEGIN END`, `batchput K V [K V ...]`: `OK`
//!   (`--create_if_missing` lets `put` and `batchput` create the database).
//! - `scan [--from=K] [--to=K] [--max_keys=N] [--no_value]`: `KEY ==> VALUE` lines.
//! - `dump [--from] [--to] [--max_keys] [--count_only]`: `KEY ==> VALUE` lines, then
//!   `Keys in range: N`.
//! - `list_column_families`: `Column families in DIR: ` then `{default, cf1}`.
//! - `compact [--from] [--to]`: compacts the range down the tree.
//! - `checkpoint --checkpoint_dir=DIR`: `OK`.
//! - `manifest_dump [--path=MANIFEST]`, `dump_wal --walfile=FILE [--print_value]`: CairnDB's
//!   own dumps of those files (`cairn manifest dump`, `cairn wal dump`), not ldb's format.
//!
//! With `--hex` (or `--key_hex`/`--value_hex`) keys and values are taken and printed as `0x`
//! followed by upper-case hex digits. Errors print `Failed: <status>` and exit 1, as ldb does.
//! Not provided: ldb's other commands (idump, load, reduce_levels, repair, backup, ...) and
//! options; they are refused with a message naming them.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{ColumnFamily, Db, Error, Result, WriteBatch};

/// Options every command takes.
const COMMON: &[&str] = &["db", "hex", "key_hex", "value_hex", "column_family"];

/// The options each command takes besides the common ones.
fn command_options(command: &str) -> Option<&'static [&'static str]> {
    Some(match command {
        "get" | "delete" | "deleterange" => &[],
        "put" | "batchput" => &["create_if_missing"],
        "scan" => &["from", "to", "max_keys", "no_value"],
        "dump" => &["from", "to", "max_keys", "count_only"],
        "list_column_families" => &[],
        "compact" => &["from", "to"],
        "checkpoint" => &["checkpoint_dir"],
        "manifest_dump" => &["path"],
        "dump_wal" => &["walfile", "print_value"],
        _ => return None,
    })
}

struct Line {
    command: String,
    args: Vec<String>,
    options: BTreeMap<String, String>,
}

impl Line {
    fn parse(argv: &[String]) -> Result<Line> {
        let mut options = BTreeMap::new();
        let mut positional = Vec::new();
        for a in argv {
            match a.strip_prefix("--") {
                Some(o) => {
                    let (k, v) = o.split_once('=').unwrap_or((o, ""));
                    options.insert(k.to_string(), v.to_string());
                }
                None => positional.push(a.clone()),
            }
        }
        if positional.is_empty() {
            return Err(Error::InvalidArgument("no command given".into()));
        }
        let command = positional.remove(0);
        let allowed = command_options(&command).ok_or_else(|| {
            Error::NotSupported(format!(
                "ldb command {command} is not provided by cairn ldb"
            ))
        })?;
        for k in options.keys() {
            if !COMMON.contains(&k.as_str()) && !allowed.contains(&k.as_str()) {
                return Err(Error::InvalidArgument(format!(
                    "option --{k} is not taken by cairn ldb {command}"
                )));
            }
        }
        Ok(Line {
            command,
            args: positional,
            options,
        })
    }

    fn flag(&self, name: &str) -> bool {
        self.options
            .get(name)
            .is_some_and(|v| v.is_empty() || v == "true" || v == "1")
    }

    fn key_hex(&self) -> bool {
        self.flag("hex") || self.flag("key_hex")
    }

    fn value_hex(&self) -> bool {
        self.flag("hex") || self.flag("value_hex")
    }

    fn db(&self) -> Result<&str> {
        self.options
            .get("db")
            .map(String::as_str)
            .filter(|d| !d.is_empty())
            .ok_or_else(|| Error::InvalidArgument("--db=DIR is required".into()))
    }

    fn arg(&self, i: usize, what: &str) -> Result<&str> {
        self.args
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| Error::InvalidArgument(format!("{} needs {what}", self.command)))
    }
}

/// Upper-case hex digits of `bytes` (ldb prints them after `0x`; sst_dump without).
pub(crate) fn upper_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// ldb's `0x` followed by upper-case hex.
fn to_hex(bytes: &[u8]) -> String {
    format!("0x{}", upper_hex(bytes))
}

/// A key or value from the command line: the argument's bytes, or hex (`0x` optional).
pub(crate) fn input(arg: &str, hex: bool) -> Result<Vec<u8>> {
    let digits = if hex {
        arg.strip_prefix("0x")
            .or_else(|| arg.strip_prefix("0X"))
            .unwrap_or(arg)
    } else {
        arg
    };
    crate::kv::decode(digits, hex, "argument")
}

fn output(bytes: &[u8], hex: bool) -> String {
    if hex {
        to_hex(bytes)
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    }
}

fn open(line: &Line, create: bool) -> Result<Db> {
    let mut o = Options::default();
    o.db.create_if_missing = create;
    Db::open(line.db()?, o)
}

fn family(db: &Db, line: &Line) -> Result<ColumnFamily> {
    let name = line
        .options
        .get("column_family")
        .map_or("default", String::as_str);
    db.column_family(name)
        .ok_or_else(|| Error::InvalidArgument(format!("no column family named {name}")))
}

/// Runs `cairn ldb ARGS...`.
pub fn run(argv: &[String]) -> ExitCode {
    match Line::parse(argv).and_then(|line| execute(&line)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn execute(line: &Line) -> Result<()> {
    let w = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    let (kh, vh) = (line.key_hex(), line.value_hex());
    match line.command.as_str() {
        "get" => {
            let db = open(line, false)?;
            let key = input(line.arg(0, "a key")?, kh)?;
            match db.get_cf(&ReadOptions::default(), &family(&db, line)?, &key)? {
                Some(v) => println!("{}", output(&v, vh)),
                None => println!("Key not found"),
            }
            db.close()
        }
        "put" => {
            let db = open(line, line.flag("create_if_missing"))?;
            let key = input(line.arg(0, "a key")?, kh)?;
            let value = input(line.arg(1, "a value")?, vh)?;
            db.put_cf(&w, &family(&db, line)?, &key, &value)?;
            println!("OK");
            db.close()
        }
        "delete" => {
            let db = open(line, false)?;
            let key = input(line.arg(0, "a key")?, kh)?;
            db.delete_cf(&w, &family(&db, line)?, &key)?;
            println!("OK");
            db.close()
        }
        "deleterange" => {
            let db = open(line, false)?;
            let begin = input(line.arg(0, "a begin key")?, kh)?;
            let end = input(line.arg(1, "an end key")?, kh)?;
            db.delete_range_cf(&w, &family(&db, line)?, &begin, &end)?;
            println!("OK");
            db.close()
        }
        "batchput" => {
            if line.args.is_empty() || line.args.len() % 2 != 0 {
                return Err(Error::InvalidArgument(
                    "batchput needs key value pairs".into(),
                ));
            }
            let db = open(line, line.flag("create_if_missing"))?;
            let cf = family(&db, line)?;
            let mut b = WriteBatch::new();
            for pair in line.args.chunks(2) {
                b.put_cf(cf.id(), &input(&pair[0], kh)?, &input(&pair[1], vh)?)?;
            }
            db.write(&w, b)?;
            println!("OK");
            db.close()
        }
        "scan" | "dump" => scan(line, kh, vh),
        "list_column_families" => {
            let dir = line.db()?;
            let families = Db::list_column_families(dir)?;
            println!("Column families in {dir}: ");
            println!("{{{}}}", families.join(", "));
            Ok(())
        }
        "compact" => {
            let db = open(line, false)?;
            let from = line.options.get("from").map(|k| input(k, kh)).transpose()?;
            let to = line.options.get("to").map(|k| input(k, kh)).transpose()?;
            db.compact_range_cf(&family(&db, line)?, from.as_deref(), to.as_deref())?;
            db.close()
        }
        "checkpoint" => {
            let dir = line
                .options
                .get("checkpoint_dir")
                .filter(|d| !d.is_empty())
                .ok_or_else(|| Error::InvalidArgument("--checkpoint_dir=DIR is required".into()))?;
            let db = open(line, false)?;
            db.checkpoint(dir)?;
            println!("OK");
            db.close()
        }
        "manifest_dump" => match line.options.get("path").filter(|p| !p.is_empty()) {
            Some(p) => crate::logdump::dump_manifest(Path::new(p)),
            None => crate::logdump::dump_manifest(Path::new(line.db()?)),
        },
        "dump_wal" => {
            let file = line
                .options
                .get("walfile")
                .filter(|p| !p.is_empty())
                .ok_or_else(|| Error::InvalidArgument("--walfile=FILE is required".into()))?;
            crate::logdump::dump_wal(Path::new(file), line.flag("print_value"))
        }
        other => Err(Error::NotSupported(format!("ldb command {other}"))),
    }
}

/// `scan` and `dump`: the entries in `[--from, --to)`, at most `--max_keys`.
fn scan(line: &Line, kh: bool, vh: bool) -> Result<()> {
    let db = open(line, false)?;
    let cf = family(&db, line)?;
    let from = line.options.get("from").map(|k| input(k, kh)).transpose()?;
    let to = line.options.get("to").map(|k| input(k, kh)).transpose()?;
    let max = match line.options.get("max_keys") {
        Some(n) => n
            .parse::<u64>()
            .map_err(|_| Error::InvalidArgument(format!("--max_keys={n} is not a number")))?,
        None => u64::MAX,
    };
    let ro = ReadOptions {
        iterate_upper_bound: to,
        ..ReadOptions::default()
    };
    let mut it = db.iter_cf(&ro, &cf)?;
    match &from {
        Some(k) => it.seek(k),
        None => it.seek_to_first(),
    }
    let (no_value, count_only) = (line.flag("no_value"), line.flag("count_only"));
    let mut count = 0u64;
    while it.valid() && count < max {
        if !count_only {
            if no_value {
                println!("{}", output(it.key(), kh));
            } else {
                println!("{} ==> {}", output(it.key(), kh), output(it.value(), vh));
            }
        }
        count += 1;
        it.next();
    }
    it.status()?;
    if line.command == "dump" {
        println!("Keys in range: {count}");
    }
    drop(it);
    db.close()
}
