//! Names of the files in a database directory, and parsing them back.
//!
//! Called by the database (open, recovery, obsolete-file deletion), the version set and tools.
//! Pure functions; no I/O.
//!
//! Invariants:
//! 1. Numbered names are canonical: at least 6 digits, zero-padded, no extra leading zeros
//!    (`000042.log`, `1234567.sst`). [`parse_file_name`] accepts exactly the names the `*_name`
//!    functions produce, so the engine never mistakes a foreign file (`42.log`, `0000042.log`) for
//!    one of its own and deletes it.
//! 2. File numbers are never 0: 0 means "no file" in version edits.

/// The kinds of file the engine keeps in its directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    /// `NNNNNN.log`: a write-ahead log.
    Log,
    /// `NNNNNN.sst`: a table file.
    Table,
    /// `MANIFEST-NNNNNN`: a log of version edits.
    Manifest,
    /// `CURRENT`: names the live MANIFEST.
    Current,
    /// `LOCK`: held while a process has the database open.
    Lock,
    /// `LOG`: the human-readable info log.
    InfoLog,
    /// `LOG.old.<timestamp>`: a rotated info log; its number is the timestamp.
    OldInfoLog,
    /// `OPTIONS-NNNNNN`: the options the database was opened with.
    Options,
    /// `*.dbtmp`: a temporary file being written atomically (number 0 unless the name is
    /// `NNNNNN.dbtmp`).
    Temp,
}

/// Name of the lock file.
pub const LOCK_FILE_NAME: &str = "LOCK";
/// Name of the file that names the live MANIFEST.
pub const CURRENT_FILE_NAME: &str = "CURRENT";
/// Name of the info log.
pub const INFO_LOG_FILE_NAME: &str = "LOG";
/// Suffix of temporary files.
pub const TEMP_SUFFIX: &str = ".dbtmp";
/// Prefix of MANIFEST file names.
pub const MANIFEST_PREFIX: &str = "MANIFEST-";
/// Prefix of OPTIONS file names.
pub const OPTIONS_PREFIX: &str = "OPTIONS-";
const OLD_INFO_LOG_PREFIX: &str = "LOG.old.";

/// `NNNNNN.log`.
pub fn log_file_name(number: u64) -> String {
    format!("{number:06}.log")
}

/// `NNNNNN.sst`.
pub fn table_file_name(number: u64) -> String {
    format!("{number:06}.sst")
}

/// `MANIFEST-NNNNNN`.
pub fn manifest_file_name(number: u64) -> String {
    format!("{MANIFEST_PREFIX}{number:06}")
}

/// `OPTIONS-NNNNNN`.
pub fn options_file_name(number: u64) -> String {
    format!("{OPTIONS_PREFIX}{number:06}")
}

/// `NNNNNN.dbtmp`.
pub fn temp_file_name(number: u64) -> String {
    format!("{number:06}{TEMP_SUFFIX}")
}

/// `LOG.old.<timestamp>`, the name a rotated info log gets.
pub fn old_info_log_name(timestamp_micros: u64) -> String {
    format!("{OLD_INFO_LOG_PREFIX}{timestamp_micros}")
}

/// Parses a canonical 6-digit-or-wider file number; `None` for 0, non-digits, overflow or a
/// non-canonical spelling.
pub fn parse_file_number(digits: &str) -> Option<u64> {
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    (n != 0 && format!("{n:06}") == digits).then_some(n)
}

/// The type and number of a file name of the engine, or `None` for any other name. Files
/// without a number (`CURRENT`, `LOCK`, `LOG`) have number 0.
pub fn parse_file_name(name: &str) -> Option<(FileType, u64)> {
    match name {
        CURRENT_FILE_NAME => return Some((FileType::Current, 0)),
        LOCK_FILE_NAME => return Some((FileType::Lock, 0)),
        INFO_LOG_FILE_NAME => return Some((FileType::InfoLog, 0)),
        _ => {}
    }
    if let Some(stem) = name.strip_suffix(TEMP_SUFFIX) {
        return (!stem.is_empty()).then(|| (FileType::Temp, parse_file_number(stem).unwrap_or(0)));
    }
    if let Some(ts) = name.strip_prefix(OLD_INFO_LOG_PREFIX) {
        let canonical = !ts.is_empty() && ts.bytes().all(|b| b.is_ascii_digit());
        let n: u64 = ts
            .parse()
            .ok()
            .filter(|n: &u64| canonical && n.to_string() == ts)?;
        return Some((FileType::OldInfoLog, n));
    }
    if let Some(digits) = name.strip_prefix(MANIFEST_PREFIX) {
        return parse_file_number(digits).map(|n| (FileType::Manifest, n));
    }
    if let Some(digits) = name.strip_prefix(OPTIONS_PREFIX) {
        return parse_file_number(digits).map(|n| (FileType::Options, n));
    }
    let (digits, ext) = name.split_once('.')?;
    let kind = match ext {
        "log" => FileType::Log,
        "sst" => FileType::Table,
        _ => return None,
    };
    parse_file_number(digits).map(|n| (kind, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn numbered_names_round_trip(n in 1u64..=u64::MAX) {
            prop_assert_eq!(parse_file_name(&log_file_name(n)), Some((FileType::Log, n)));
            prop_assert_eq!(parse_file_name(&table_file_name(n)), Some((FileType::Table, n)));
            prop_assert_eq!(parse_file_name(&manifest_file_name(n)), Some((FileType::Manifest, n)));
            prop_assert_eq!(parse_file_name(&options_file_name(n)), Some((FileType::Options, n)));
            prop_assert_eq!(parse_file_name(&temp_file_name(n)), Some((FileType::Temp, n)));
            prop_assert_eq!(parse_file_name(&old_info_log_name(n)), Some((FileType::OldInfoLog, n)));
        }

        #[test]
        fn parsing_accepts_only_canonical_names(name in "[A-Za-z0-9.\\-]{0,24}") {
            if let Some((kind, n)) = parse_file_name(&name) {
                let canonical = match kind {
                    FileType::Log => log_file_name(n),
                    FileType::Table => table_file_name(n),
                    FileType::Manifest => manifest_file_name(n),
                    FileType::Options => options_file_name(n),
                    FileType::OldInfoLog => old_info_log_name(n),
                    FileType::Temp | FileType::Current | FileType::Lock | FileType::InfoLog => name.clone(),
                };
                prop_assert_eq!(canonical, name);
            }
        }
    }

    #[test]
    fn known_names() {
        assert_eq!(log_file_name(7), "000007.log");
        assert_eq!(manifest_file_name(1234567), "MANIFEST-1234567");
        assert_eq!(parse_file_name("CURRENT"), Some((FileType::Current, 0)));
        assert_eq!(parse_file_name("LOCK"), Some((FileType::Lock, 0)));
        assert_eq!(parse_file_name("LOG"), Some((FileType::InfoLog, 0)));
        assert_eq!(
            parse_file_name("LOG.old.1700000000123456"),
            Some((FileType::OldInfoLog, 1_700_000_000_123_456))
        );
        assert_eq!(parse_file_name("CURRENT.dbtmp"), Some((FileType::Temp, 0)));
        assert_eq!(parse_file_name("000012.dbtmp"), Some((FileType::Temp, 12)));
        for foreign in [
            "42.log",
            "0000042.log",
            "000000.sst",
            "000042.txt",
            "MANIFEST-",
            "MANIFEST-12",
            "MANIFEST-00001x",
            "LOG.old.",
            "LOG.old.01",
            ".dbtmp",
            "000042.log.bak",
            "+00042.log",
        ] {
            assert_eq!(parse_file_name(foreign), None, "{foreign}");
        }
    }
}
