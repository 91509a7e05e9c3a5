//! `cairn sst_dump`: RocksDB's `sst_dump` command lines on CairnDB's table files.
//!
//! `cairn sst_dump --file=PATH [--command=check|scan|verify|raw] [--show_properties]
//! [--from=K] [--to=K] [--output_hex] [--input_key_hex] [--read_num=N]`. PATH is a table file or
//! a directory (every `*.sst` in it). Output as sst_dump prints it: `Process PATH` and
//! `Sst file format: block-based` per file; `from [..] to [..]` (hex) before the first file for
//! check and scan; scan prints `'KEY' seq:N, type:T => VALUE` per entry with RocksDB's type
//! numbers (0 deletion, 1 value, 2 merge, 7 single deletion, 15 range deletion); verify prints
//! `The file is ok` or, on stderr, `PATH is corrupted: ...`; raw writes `PATH_dump.txt` (CairnDB's
//! own dump: properties, index and entries) and says so; `--show_properties` prints
//! `Table Properties:` with CairnDB's property names, then `Raw user collected properties`.
//! Other commands and options are refused, naming them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use cairndb::fs::{FileSystem, RealFs};
use cairndb::iter::InternalIterator;
use cairndb::sstable::Table;
use cairndb::types::ParsedKey;
use cairndb::{Error, Result, ValueKind};

const OPTIONS: &[&str] = &[
    "file",
    "command",
    "show_properties",
    "from",
    "to",
    "output_hex",
    "input_key_hex",
    "read_num",
];

/// Runs `cairn sst_dump ARGS...`.
pub fn run(argv: &[String]) -> ExitCode {
    match execute(argv) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    crate::ldb::upper_hex(bytes)
}

fn show(bytes: &[u8], as_hex: bool) -> String {
    if as_hex {
        hex(bytes)
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// RocksDB's value-type number of `kind`.
fn rocksdb_type(kind: ValueKind) -> u8 {
    match kind {
        ValueKind::Delete => 0,
        ValueKind::Put => 1,
        ValueKind::Merge => 2,
        ValueKind::SingleDelete => 7,
        ValueKind::RangeDelete => 15,
    }
}

fn execute(argv: &[String]) -> Result<ExitCode> {
    let mut o = BTreeMap::new();
    for a in argv {
        let Some(opt) = a.strip_prefix("--") else {
            return Err(Error::InvalidArgument(format!("unexpected argument {a}")));
        };
        let (k, v) = opt.split_once('=').unwrap_or((opt, ""));
        if !OPTIONS.contains(&k) {
            return Err(Error::NotSupported(format!(
                "sst_dump option --{k} is not provided by cairn sst_dump"
            )));
        }
        o.insert(k.to_string(), v.to_string());
    }
    let flag = |k: &str| {
        o.get(k)
            .is_some_and(|v| v.is_empty() || v == "true" || v == "1")
    };
    let file = o
        .get("file")
        .filter(|f| !f.is_empty())
        .ok_or_else(|| Error::InvalidArgument("--file=PATH is required".into()))?;
    let command = o.get("command").map_or("check", String::as_str);
    if !["check", "scan", "verify", "raw"].contains(&command) {
        return Err(Error::NotSupported(format!(
            "sst_dump command {command} is not provided by cairn sst_dump"
        )));
    }
    let key = |k: &str| -> Result<Vec<u8>> {
        match o.get(k) {
            Some(v) if flag("input_key_hex") => crate::ldb::input(v, true),
            Some(v) => Ok(v.as_bytes().to_vec()),
            None => Ok(Vec::new()),
        }
    };
    let (from, to) = (key("from")?, key("to")?);
    let read_num: Option<u64> = match o.get("read_num") {
        Some(n) => Some(
            n.parse()
                .map_err(|_| Error::InvalidArgument(format!("--read_num={n} is not a number")))?,
        ),
        None => None,
    };
    let out_hex = flag("output_hex");
    let files = table_files(Path::new(file))?;
    let mut status = ExitCode::SUCCESS;
    let mut read = 0u64;
    for (i, path) in files.iter().enumerate() {
        println!("Process {}", path.display());
        let table = match open(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                status = ExitCode::FAILURE;
                continue;
            }
        };
        println!("Sst file format: block-based");
        if i == 0 && (command == "check" || command == "scan") {
            println!("from [{}] to [{}]", hex(&from), hex(&to));
        }
        match command {
            "raw" => {
                let out = raw_dump(path, &table)?;
                println!("raw dump written to file {}", out.display());
            }
            "verify" => match table.verify_checksums() {
                Ok(()) => println!("The file is ok"),
                Err(e) => {
                    eprintln!("{} is corrupted: {e}", path.display());
                    status = ExitCode::FAILURE;
                }
            },
            _ => {
                let mut it = table.iter_without_cache_fill();
                it.seek_to_first();
                while it.valid() && read_num.is_none_or(|n| read < n) {
                    if let Ok(k) = ParsedKey::parse(it.key()) {
                        let in_range = (from.is_empty() || k.user_key >= from.as_slice())
                            && (to.is_empty() || k.user_key < to.as_slice());
                        if in_range {
                            read += 1;
                            if command == "scan" {
                                println!(
                                    "'{}' seq:{}, type:{} => {}",
                                    show(k.user_key, out_hex),
                                    k.seq,
                                    rocksdb_type(k.kind),
                                    show(it.value(), out_hex)
                                );
                            }
                        }
                    }
                    it.next();
                }
                if let Err(e) = it.status() {
                    eprintln!("{}: {e}", path.display());
                    status = ExitCode::FAILURE;
                }
            }
        }
        if flag("show_properties") {
            let props = table.properties();
            println!("Table Properties:");
            println!("------------------------------");
            for (name, value) in props.to_display_pairs() {
                if !props.user_properties.contains_key(&name) {
                    println!("  {name}: {value}");
                }
            }
            println!("Raw user collected properties");
            println!("------------------------------");
            for (name, value) in &props.user_properties {
                println!("  # {name}: 0x{}", hex(value));
            }
        }
    }
    Ok(status)
}

/// `path` itself, or the `*.sst` files of directory `path` in name order.
fn table_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", path.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sst"))
        .collect();
    files.sort();
    Ok(files)
}

fn open(path: &Path) -> Result<Arc<Table>> {
    let fs = RealFs::new();
    let size = fs.size(path)?;
    let file = fs.open_read(path)?;
    Ok(Arc::new(Table::open_recorded(
        file,
        path,
        size,
        &cairndb::options::TableOptions::default(),
    )?))
}

/// Writes `PATH_dump.txt` (for `PATH.sst`): properties, index entries and every entry.
fn raw_dump(path: &Path, table: &Arc<Table>) -> Result<PathBuf> {
    let name = path.to_string_lossy();
    let out = PathBuf::from(format!(
        "{}_dump.txt",
        name.strip_suffix(".sst").unwrap_or(&name)
    ));
    let mut text = String::new();
    let _ = writeln!(text, "Properties:");
    for (k, v) in table.properties().to_display_pairs() {
        let _ = writeln!(text, "  {k}: {v}");
    }
    let _ = writeln!(text, "Index:");
    for (key, handle) in table.index_entries()? {
        let _ = writeln!(text, "  {} -> {} {}", hex(&key), handle.offset, handle.size);
    }
    let _ = writeln!(text, "Entries:");
    let mut it = table.iter_without_cache_fill();
    it.seek_to_first();
    while it.valid() {
        let _ = writeln!(text, "  {} => {}", hex(it.key()), hex(it.value()));
        it.next();
    }
    it.status()?;
    std::fs::write(&out, text)
        .map_err(|e| Error::InvalidArgument(format!("{}: {e}", out.display())))?;
    Ok(out)
}
