//! OPTIONS files: the effective options of a database, written at every open as
//! `OPTIONS-NNNNNN` in the database directory, in RocksDB's INI layout so people and RocksDB's
//! tools read them, and parsed back by [`OptionsFile::parse`] / [`Options::from_file`].
//!
//! ```text
//! # CairnDB option file.
//! [Version]
//!   cairndb_version=0.1.0
//!   options_file_version=1.1
//!
//! [DBOptions]
//!   create_if_missing=false
//!   ...
//!
//! [CFOptions "default"]
//!   write_buffer_size=67108864
//!   ...
//!
//! [TableOptions/BlockBasedTable "default"]
//!   block_size=4096
//!   ...
//! ```
//!
//! Invariants:
//! 1. Every value is printed by the option-string printers (`parse.rs`), so a file parses back
//!    to equal options (tested), with the exceptions the option strings have (a custom prefix
//!    extractor, a block cache's identity).
//! 2. Parsing is strict: an unknown section, a line outside a section, a table section for a
//!    family without a `CFOptions` section, or an unknown option name is an
//!    [`Error::InvalidArgument`] naming the line, unless [`ParseConfig::ignore_unknown_options`]
//!    turns unknown names into warnings.
//! 3. Writing is atomic (temporary file, sync, rename, directory sync); the two newest files
//!    are kept, older ones deleted, as RocksDB does.

use std::path::{Path, PathBuf};

use super::parse::split_options;
use super::{CfOptions, DbOptions, Options, ParseConfig, ParseWarning};
use crate::error::{Error, Result};
use crate::fs::{read_all, write_atomic, FileSystem, RealFs};
use crate::version::filenames::{options_file_name, parse_file_name, FileType};
use crate::version::DEFAULT_CF_NAME;

/// The name of the nested block-based table options in option strings.
const TABLE_FACTORY: &str = "block_based_table_factory";
/// The version of this file layout (RocksDB's `options_file_version`).
const OPTIONS_FILE_VERSION: &str = "1.1";
/// OPTIONS files kept in a database directory.
const OPTIONS_FILES_KEPT: usize = 2;

/// The content of an OPTIONS file: database options and each column family's options, in
/// the order the file lists them (the default family first when written by CairnDB).
#[derive(Debug, Clone, Default)]
pub struct OptionsFile {
    /// The `[DBOptions]` section.
    pub db: DbOptions,
    /// `[CFOptions "name"]` sections with their table sections, in file order.
    pub families: Vec<(String, CfOptions)>,
}

impl OptionsFile {
    /// The options of family `name`, if the file has them.
    pub fn family(&self, name: &str) -> Option<&CfOptions> {
        self.families
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| o)
    }

    /// The database options with the default family's options (or defaults when absent).
    pub fn to_options(&self) -> Options {
        Options {
            db: self.db.clone(),
            cf: self.family(DEFAULT_CF_NAME).cloned().unwrap_or_default(),
        }
    }

    /// The file's text (see the module doc).
    pub fn render(&self) -> String {
        let mut out = String::from(
            "# CairnDB option file. The options the database was last opened with, under \
             RocksDB's names.\n",
        );
        out.push_str("[Version]\n");
        out.push_str(&format!(
            "  cairndb_version={}\n  options_file_version={OPTIONS_FILE_VERSION}\n\n",
            env!("CARGO_PKG_VERSION")
        ));
        out.push_str("[DBOptions]\n");
        push_pairs(&mut out, &self.db.to_options_string());
        for (name, cf) in &self.families {
            out.push_str(&format!("\n[CFOptions {}]\n", quote(name)));
            let s = cf.to_options_string();
            let mut table = String::new();
            for (n, v) in split_options(&s, "").expect("printed options split") {
                if n == TABLE_FACTORY {
                    table = v.to_string();
                } else if v.contains(['=', ';']) {
                    // A nested struct (compaction_options_universal={...}) keeps its braces.
                    out.push_str(&format!("  {n}={{{v}}}\n"));
                } else {
                    out.push_str(&format!("  {n}={v}\n"));
                }
            }
            out.push_str(&format!(
                "\n[TableOptions/BlockBasedTable {}]\n",
                quote(name)
            ));
            push_pairs(&mut out, &table);
        }
        out
    }

    /// Parses the text of an OPTIONS file (CairnDB's, or RocksDB's with
    /// `ignore_unknown_options` for the options CairnDB lacks).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the line for malformed text, an unknown section, or
    /// an unknown option without `cfg.ignore_unknown_options`; bad values always.
    pub fn parse(text: &str, cfg: &ParseConfig) -> Result<(OptionsFile, Vec<ParseWarning>)> {
        let mut file = OptionsFile {
            db: DbOptions::default(),
            families: Vec::new(),
        };
        let mut warnings = Vec::new();
        let mut section = Section::None;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |e: Error| match e {
                Error::InvalidArgument(m) => {
                    Error::InvalidArgument(format!("OPTIONS file line {line_no}: {m}"))
                }
                other => other,
            };
            if line.starts_with('[') {
                section = Section::parse(line, &file).map_err(at)?;
                if let Section::Cf(name) = &section {
                    file.families.push((name.clone(), CfOptions::default()));
                }
                continue;
            }
            let Some((name, value)) = line.split_once('=') else {
                return Err(at(Error::InvalidArgument(format!(
                    "expected name=value, found {line:?}"
                ))));
            };
            let (name, value) = (name.trim(), value.trim());
            let w = match &section {
                Section::None => {
                    return Err(at(Error::InvalidArgument(
                        "an option outside any section".to_string(),
                    )))
                }
                Section::Version => continue,
                Section::Db => file
                    .db
                    .apply_options_string(&pair(name, value), cfg)
                    .map_err(at)?,
                Section::Cf(cf) => family_mut(&mut file, cf)
                    .apply_options_string(&pair(name, value), cfg)
                    .map_err(at)?,
                Section::Table(cf) => family_mut(&mut file, cf)
                    .apply_options_string(
                        &format!("{TABLE_FACTORY}={{{}}}", pair(name, value)),
                        cfg,
                    )
                    .map_err(at)?,
            };
            warnings.extend(w);
        }
        Ok((file, warnings))
    }

    /// Reads and parses the OPTIONS file at `path` on `fs`.
    ///
    /// # Errors
    /// I/O errors; as [`OptionsFile::parse`]; [`Error::InvalidArgument`] for text that is not
    /// UTF-8.
    pub fn load(
        fs: &dyn FileSystem,
        path: &Path,
        cfg: &ParseConfig,
    ) -> Result<(OptionsFile, Vec<ParseWarning>)> {
        let bytes = read_all(fs, path)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::InvalidArgument(format!("{} is not a text file", path.display()))
        })?;
        OptionsFile::parse(&text, cfg)
    }

    /// The newest `OPTIONS-NNNNNN` file in the database directory `dir`, if any.
    ///
    /// # Errors
    /// I/O errors listing the directory.
    pub fn latest(fs: &dyn FileSystem, dir: &Path) -> Result<Option<PathBuf>> {
        Ok(options_file_numbers(fs, dir)?
            .last()
            .map(|&n| dir.join(options_file_name(n))))
    }

    /// Writes this file as `OPTIONS-<number>` in `dir` atomically, then deletes all but the
    /// two newest OPTIONS files (invariant 3). Returns the path written.
    ///
    /// # Errors
    /// I/O errors writing the file (failures deleting old ones are ignored: they are found
    /// again by the next write).
    pub fn write(&self, fs: &dyn FileSystem, dir: &Path, number: u64) -> Result<PathBuf> {
        let path = dir.join(options_file_name(number));
        write_atomic(fs, &path, self.render().as_bytes())?;
        let numbers = options_file_numbers(fs, dir)?;
        let excess = numbers.len().saturating_sub(OPTIONS_FILES_KEPT);
        for &old in &numbers[..excess] {
            let _ = fs.remove(&dir.join(options_file_name(old)));
        }
        Ok(path)
    }
}

/// The numbers of the OPTIONS files in `dir`, ascending.
pub(crate) fn options_file_numbers(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<u64>> {
    let mut numbers: Vec<u64> = fs
        .list(dir)?
        .iter()
        .filter_map(|n| match parse_file_name(n) {
            Some((FileType::Options, n)) => Some(n),
            _ => None,
        })
        .collect();
    numbers.sort_unstable();
    Ok(numbers)
}

impl Options {
    /// Reads the database and default-family options from the OPTIONS file at `path` (an
    /// `OPTIONS-NNNNNN` file of a database directory), strictly.
    ///
    /// # Errors
    /// As [`OptionsFile::load`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Options> {
        let (file, _) =
            OptionsFile::load(&*RealFs::shared(), path.as_ref(), &ParseConfig::default())?;
        Ok(file.to_options())
    }
}

/// Which section the parser is in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Section {
    None,
    Version,
    Db,
    Cf(String),
    Table(String),
}

impl Section {
    /// Parses a `[...]` header line. A table section must follow its family's section.
    fn parse(line: &str, file: &OptionsFile) -> Result<Section> {
        let inner = line
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'))
            .ok_or_else(|| Error::InvalidArgument(format!("malformed section {line:?}")))?
            .trim();
        let (kind, arg) = match inner.split_once(char::is_whitespace) {
            Some((k, a)) => (k, Some(unquote(a.trim())?)),
            None => (inner, None),
        };
        match (kind, arg) {
            ("Version", None) => Ok(Section::Version),
            ("DBOptions", None) => Ok(Section::Db),
            ("CFOptions", Some(name)) => {
                if file.family(&name).is_some() {
                    return Err(Error::InvalidArgument(format!(
                        "column family {name:?} has two CFOptions sections"
                    )));
                }
                Ok(Section::Cf(name))
            }
            ("TableOptions/BlockBasedTable", Some(name)) => {
                if file.family(&name).is_none() {
                    return Err(Error::InvalidArgument(format!(
                        "table options for column family {name:?} before its CFOptions section"
                    )));
                }
                Ok(Section::Table(name))
            }
            _ => Err(Error::InvalidArgument(format!(
                "unknown section {line:?} (expected Version, DBOptions, CFOptions \"name\" or \
                 TableOptions/BlockBasedTable \"name\")"
            ))),
        }
    }
}

fn family_mut<'f>(file: &'f mut OptionsFile, name: &str) -> &'f mut CfOptions {
    &mut file
        .families
        .iter_mut()
        .find(|(n, _)| n == name)
        .expect("a section's family was added when the section began")
        .1
}

/// One `name=value` option string (a value holding `;` or braces is wrapped in braces when
/// it is not already).
fn pair(name: &str, value: &str) -> String {
    format!("{name}={value}")
}

/// Every pair of the option string `s`, one per indented line.
fn push_pairs(out: &mut String, s: &str) {
    for (n, v) in split_options(s, "").expect("printed options split") {
        if v.contains(['=', ';']) {
            out.push_str(&format!("  {n}={{{v}}}\n"));
        } else {
            out.push_str(&format!("  {n}={v}\n"));
        }
    }
}

/// `"name"` with `\` and `"` escaped.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The inverse of [`quote`].
fn unquote(s: &str) -> Result<String> {
    let body = s
        .strip_prefix('"')
        .and_then(|b| b.strip_suffix('"'))
        .ok_or_else(|| Error::InvalidArgument(format!("expected a quoted name, found {s}")))?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(
                chars
                    .next()
                    .ok_or_else(|| Error::InvalidArgument(format!("dangling escape in {s}")))?,
            ),
            '"' => {
                return Err(Error::InvalidArgument(format!(
                    "unescaped quote inside {s}"
                )))
            }
            c => out.push(c),
        }
    }
    Ok(out)
}
