//! Version edits: one change of the set of live files and of the database's counters, and its
//! self-describing encoding. Byte-level specification: `docs/format/manifest.md`.
//!
//! Called by the version set (to log changes), recovery (to replay them) and tools. Owns no
//! state beyond the edit value; encoding and decoding are pure.
//!
//! Invariants:
//! 1. An encoded edit is a sequence of fields `varint32 tag | varint64 length | payload`. Tag
//!    numbers are persisted: never renumbered, 0 invalid. A reader skips an unknown tag only if
//!    its [`SAFE_IGNORE_MASK`] bit is set, and fails with [`Error::NotSupported`] otherwise,
//!    because ignoring a required field (a deleted file, an atomic group) would be silently wrong.
//! 2. Every field's payload is consumed exactly; a singular field appears at most once.
//! 3. [`VersionEdit::decode`] never panics and never allocates more than its input's size; what it
//!    returns passes [`VersionEdit::validate`], the same check the writer applies before encoding.
//! 4. `decode(encode(e)) == e` for every valid edit.

use crate::error::{Error, Result};
use crate::types::{SequenceNumber, MAX_SEQUENCE, TRAILER_LEN};
use crate::util::coding::{put_length_prefixed, put_varint32, put_varint64, varint_len, Decoder};

/// Tags with this bit set may be skipped by a reader that does not know them.
pub const SAFE_IGNORE_MASK: u32 = 1 << 13;

/// The highest MANIFEST format version this build reads and the one it writes.
pub const FORMAT_VERSION: u32 = 1;

/// Levels are numbered `0..MAX_LEVELS`.
pub const MAX_LEVELS: u8 = 64;

/// Field tags of a version edit. Persisted: never renumbered; 0 is invalid.
mod tag {
    pub const COMPARATOR: u32 = 1;
    pub const LOG_NUMBER: u32 = 2;
    pub const PREV_LOG_NUMBER: u32 = 3;
    pub const NEXT_FILE_NUMBER: u32 = 4;
    pub const LAST_SEQUENCE: u32 = 5;
    pub const COLUMN_FAMILY: u32 = 6;
    pub const COLUMN_FAMILY_ADD: u32 = 7;
    pub const COLUMN_FAMILY_DROP: u32 = 8;
    pub const MAX_COLUMN_FAMILY: u32 = 9;
    pub const NEW_FILE: u32 = 10;
    pub const DELETED_FILE: u32 = 11;
    pub const FORMAT_VERSION: u32 = 12;
    pub const ATOMIC_GROUP: u32 = 13;
    /// Advisory (a reader that drops it only restarts round-robin compaction at each level's
    /// first file), hence the safe-to-ignore bit.
    pub const COMPACT_CURSOR: u32 = 14 | super::SAFE_IGNORE_MASK;
    /// Not safe to ignore: a reader that dropped it would start WAL replay above a WAL that
    /// holds a prepared transaction and lose it.
    pub const MIN_LOG_NUMBER_TO_KEEP: u32 = 15;
}

/// Tags of the optional fields inside a new-file field. Persisted, like [`tag`].
mod file_tag {
    pub const CREATION_TIME: u32 = 1;
    pub const OLDEST_ANCESTER_TIME: u32 = 2;
    pub const FILE_CHECKSUM: u32 = 3;
    /// Advisory (an older reader may skip it), hence the safe-to-ignore bit.
    pub const MARKED_FOR_COMPACTION: u32 = 4 | super::SAFE_IGNORE_MASK;
    /// Advisory too: without it compaction weighs the file by its size alone.
    pub const ENTRY_STATS: u32 = 5 | super::SAFE_IGNORE_MASK;
}

/// A whole-file checksum and the name of the function that computed it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileChecksum {
    /// Name of the checksum function (e.g. `"crc32c"`).
    pub function: String,
    /// The checksum bytes.
    pub value: Vec<u8>,
}

/// Entry counts of a table, from its properties, kept with the file so compaction can weigh its
/// deletions without opening it (RocksDB's `FileMetaData` holds the same counts, read from the
/// table's properties).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntryStats {
    /// Entries of every kind, range tombstones included.
    pub num_entries: u64,
    /// Deletions: `Delete` and `SingleDelete` entries and range tombstones.
    pub num_deletions: u64,
    /// Range tombstones (also counted in the two above).
    pub num_range_deletions: u64,
    /// Sum of the internal-key lengths.
    pub raw_key_bytes: u64,
    /// Sum of the value lengths.
    pub raw_value_bytes: u64,
}

impl EntryStats {
    /// The counts of a table with properties `p`.
    pub fn of(p: &crate::sstable::TableProperties) -> EntryStats {
        EntryStats {
            num_entries: p.num_entries,
            num_deletions: p.num_deletions,
            num_range_deletions: p.num_range_deletions,
            raw_key_bytes: p.raw_key_bytes,
            raw_value_bytes: p.raw_value_bytes,
        }
    }

    /// Point deletions (`Delete` and `SingleDelete`).
    pub fn point_deletions(&self) -> u64 {
        self.num_deletions.saturating_sub(self.num_range_deletions)
    }

    /// Entries that are not deletions.
    pub fn non_deletions(&self) -> u64 {
        self.num_entries.saturating_sub(self.num_deletions)
    }
}

/// What the version set knows about one table file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileMetaData {
    /// The file's number (`NNNNNN.sst`); never 0.
    pub number: u64,
    /// The file's size in bytes.
    pub size: u64,
    /// The smallest internal key in the file.
    pub smallest: Vec<u8>,
    /// The largest internal key in the file.
    pub largest: Vec<u8>,
    /// The smallest sequence number of any entry.
    pub smallest_seqno: SequenceNumber,
    /// The largest sequence number of any entry.
    pub largest_seqno: SequenceNumber,
    /// When the file was created, in seconds since the Unix epoch.
    pub creation_time: Option<u64>,
    /// The oldest creation time of the files this one was compacted from (RocksDB's spelling).
    pub oldest_ancester_time: Option<u64>,
    /// A checksum of the whole file, if one was computed.
    pub file_checksum: Option<FileChecksum>,
    /// The file should be compacted soon although no level needs it by size (many deletions;
    /// RocksDB's `marked_for_compaction`, persisted as its `kNeedCompaction`).
    pub marked_for_compaction: bool,
    /// The table's entry counts; `None` for files recorded before CairnDB kept them (they are
    /// then weighed by size alone).
    pub entry_stats: Option<EntryStats>,
}

/// A table file added at a level.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewFile {
    /// The level, `< MAX_LEVELS`.
    pub level: u8,
    /// The file.
    pub meta: FileMetaData,
}

/// A table file removed from a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeletedFile {
    /// The level, `< MAX_LEVELS`.
    pub level: u8,
    /// The file's number.
    pub number: u64,
}

/// Where the next round-robin compaction out of a level starts (`compaction_pri = kRoundRobin`,
/// RocksDB's compact cursor): the smallest internal key of the file that follows the last
/// compaction's inputs in the level, wrapping around. The picker starts at the first file whose
/// smallest user key is not below the cursor's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompactCursor {
    /// The level, `< MAX_LEVELS`.
    pub level: u8,
    /// An internal key (at least the 8-byte trailer long).
    pub key: Vec<u8>,
}

/// One change to the database's file set and counters. Absent fields leave the state unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VersionEdit {
    /// The MANIFEST format version (written in a MANIFEST's first edit).
    pub format_version: Option<u32>,
    /// Name of the comparator that orders the keys; must match on reopen.
    pub comparator: Option<String>,
    /// Logs with a smaller number are no longer needed by this column family.
    pub log_number: Option<u64>,
    /// The log being compacted when this edit was written (kept for RocksDB compatibility).
    pub prev_log_number: Option<u64>,
    /// The floor of two-phase commit: no WAL numbered at or above it may be deleted or skipped
    /// by replay, whatever the column families' log numbers say, because it may hold a prepared
    /// transaction not yet durably resolved; 0 for none. The latest value wins.
    pub min_log_number_to_keep: Option<u64>,
    /// The next file number to hand out.
    pub next_file_number: Option<u64>,
    /// The last sequence number used.
    pub last_sequence: Option<SequenceNumber>,
    /// The column family this edit applies to (0 is the default family).
    pub column_family: u32,
    /// Creates column family `column_family` with this name.
    pub column_family_add: Option<String>,
    /// Drops column family `column_family`.
    pub column_family_drop: bool,
    /// The largest column family id handed out.
    pub max_column_family: Option<u32>,
    /// Set on every edit of an atomic group: how many edits of the group follow this one.
    pub atomic_group_remaining: Option<u32>,
    /// Files removed, in order.
    pub deleted_files: Vec<DeletedFile>,
    /// Files added, in order.
    pub new_files: Vec<NewFile>,
    /// Round-robin compaction cursors set by this edit, at most one per level; levels not named
    /// keep their cursor.
    pub compact_cursors: Vec<CompactCursor>,
}

/// Why a field did not decode: damage, or a feature of a newer version.
enum FieldError {
    Corrupt(String),
    Unsupported(String),
}

type FieldResult<T> = std::result::Result<T, FieldError>;

fn corrupt<T>(message: impl Into<String>) -> FieldResult<T> {
    Err(FieldError::Corrupt(message.into()))
}

impl VersionEdit {
    /// Records that `meta` was added at `level`.
    pub fn add_file(&mut self, level: u8, meta: FileMetaData) {
        self.new_files.push(NewFile { level, meta });
    }

    /// Records that file `number` was removed from `level`.
    pub fn delete_file(&mut self, level: u8, number: u64) {
        self.deleted_files.push(DeletedFile { level, number });
    }

    /// Records that the next round-robin compaction out of `level` starts at `key` (an internal
    /// key), replacing a cursor this edit already set for the level.
    pub fn set_compact_cursor(&mut self, level: u8, key: Vec<u8>) {
        match self.compact_cursors.iter_mut().find(|c| c.level == level) {
            Some(c) => c.key = key,
            None => self.compact_cursors.push(CompactCursor { level, key }),
        }
    }

    /// Checks the rules every persisted edit obeys; the message says which one failed.
    ///
    /// # Errors
    /// A description of the first broken rule.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.column_family_add.is_some() && self.column_family_drop {
            return Err("an edit cannot both add and drop a column family".into());
        }
        if self.last_sequence.is_some_and(|s| s > MAX_SEQUENCE) {
            return Err("last sequence exceeds 56 bits".into());
        }
        if self.format_version.is_some_and(|v| v == 0) {
            return Err("format version 0 is invalid".into());
        }
        for d in &self.deleted_files {
            check_level(d.level)?;
        }
        check_cursors(&self.compact_cursors)?;
        self.new_files
            .iter()
            .try_for_each(|f| check_level(f.level).and_then(|()| check_file(&f.meta)))
    }

    /// Appends the encoding of the edit to `out`.
    ///
    /// # Panics
    /// If the edit breaks a rule of [`validate`](Self::validate): writing it would be a bug.
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.encode_with_group(out, self.atomic_group_remaining);
    }

    /// The encoding of the edit.
    ///
    /// # Panics
    /// As [`encode`](Self::encode).
    pub fn encoded(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }

    /// Encodes the edit with `group` in place of its atomic-group field.
    pub(super) fn encode_with_group(&self, out: &mut Vec<u8>, group: Option<u32>) {
        if let Err(why) = self.validate() {
            panic!("encoding an invalid version edit: {why}");
        }
        if let Some(v) = self.format_version {
            varint_field(out, tag::FORMAT_VERSION, u64::from(v));
        }
        if let Some(name) = &self.comparator {
            bytes_field(out, tag::COMPARATOR, name.as_bytes());
        }
        let counters = [
            (tag::LOG_NUMBER, self.log_number),
            (tag::PREV_LOG_NUMBER, self.prev_log_number),
            (tag::MIN_LOG_NUMBER_TO_KEEP, self.min_log_number_to_keep),
            (tag::NEXT_FILE_NUMBER, self.next_file_number),
            (tag::LAST_SEQUENCE, self.last_sequence),
            (
                tag::MAX_COLUMN_FAMILY,
                self.max_column_family.map(u64::from),
            ),
            (tag::ATOMIC_GROUP, group.map(u64::from)),
        ];
        for (t, v) in counters {
            if let Some(v) = v {
                varint_field(out, t, v);
            }
        }
        self.encode_column_family(out);
        for d in &self.deleted_files {
            let mut payload = Vec::with_capacity(12);
            put_varint32(&mut payload, u32::from(d.level));
            put_varint64(&mut payload, d.number);
            bytes_field(out, tag::DELETED_FILE, &payload);
        }
        for f in &self.new_files {
            bytes_field(out, tag::NEW_FILE, &encode_new_file(f));
        }
        for c in &self.compact_cursors {
            let mut payload = Vec::with_capacity(c.key.len() + 6);
            put_varint32(&mut payload, u32::from(c.level));
            put_length_prefixed(&mut payload, &c.key);
            bytes_field(out, tag::COMPACT_CURSOR, &payload);
        }
    }

    fn encode_column_family(&self, out: &mut Vec<u8>) {
        if self.column_family != 0 {
            varint_field(out, tag::COLUMN_FAMILY, u64::from(self.column_family));
        }
        if let Some(name) = &self.column_family_add {
            bytes_field(out, tag::COLUMN_FAMILY_ADD, name.as_bytes());
        }
        if self.column_family_drop {
            bytes_field(out, tag::COLUMN_FAMILY_DROP, &[]);
        }
    }

    /// Decodes an edit.
    ///
    /// # Errors
    /// [`Error::Corruption`] for malformed bytes (its offset is the byte of `bytes` where the bad
    /// field starts; the file is left empty for the caller to fill in), [`Error::NotSupported`]
    /// for an unknown required tag or a newer format version.
    pub fn decode(bytes: &[u8]) -> Result<VersionEdit> {
        let mut edit = VersionEdit::default();
        let mut seen = 0u64;
        let mut d = Decoder::new(bytes);
        while !d.is_empty() {
            let at = d.position();
            let field = read_field(&mut d).and_then(|(t, payload)| {
                check_repeat(&mut seen, t)?;
                edit.apply_field(t, payload)
            });
            field.map_err(|e| into_error(e, at as u64))?;
        }
        edit.validate()
            .map_err(|why| Error::corruption("", 0, why))?;
        Ok(edit)
    }

    fn apply_field(&mut self, t: u32, p: &[u8]) -> FieldResult<()> {
        match t {
            0 => return corrupt("field tag 0 is invalid"),
            tag::COMPARATOR => self.comparator = Some(utf8(p)?),
            tag::LOG_NUMBER => self.log_number = Some(whole_varint(p)?),
            tag::PREV_LOG_NUMBER => self.prev_log_number = Some(whole_varint(p)?),
            tag::MIN_LOG_NUMBER_TO_KEEP => self.min_log_number_to_keep = Some(whole_varint(p)?),
            tag::NEXT_FILE_NUMBER => self.next_file_number = Some(whole_varint(p)?),
            tag::LAST_SEQUENCE => self.last_sequence = Some(whole_varint(p)?),
            tag::COLUMN_FAMILY => self.column_family = whole_varint32(p)?,
            tag::COLUMN_FAMILY_ADD => self.column_family_add = Some(utf8(p)?),
            tag::COLUMN_FAMILY_DROP if p.is_empty() => self.column_family_drop = true,
            tag::COLUMN_FAMILY_DROP => return corrupt("column family drop carries a payload"),
            tag::MAX_COLUMN_FAMILY => self.max_column_family = Some(whole_varint32(p)?),
            tag::ATOMIC_GROUP => self.atomic_group_remaining = Some(whole_varint32(p)?),
            tag::FORMAT_VERSION => self.format_version = Some(format_version(p)?),
            tag::DELETED_FILE => self.deleted_files.push(decode_deleted_file(p)?),
            tag::NEW_FILE => self.new_files.push(decode_new_file(p)?),
            tag::COMPACT_CURSOR => self.compact_cursors.push(decode_compact_cursor(p)?),
            t if t & SAFE_IGNORE_MASK != 0 => {}
            t => return unknown_required(t, "version edit field"),
        }
        Ok(())
    }
}

fn check_level(level: u8) -> std::result::Result<(), String> {
    if level < MAX_LEVELS {
        Ok(())
    } else {
        Err(format!("level {level} is not below {MAX_LEVELS}"))
    }
}

/// Cursor levels are valid and unique, and every cursor is an internal key.
fn check_cursors(cursors: &[CompactCursor]) -> std::result::Result<(), String> {
    let mut seen = 0u64;
    for c in cursors {
        check_level(c.level)?;
        if seen & (1 << c.level) != 0 {
            return Err(format!("two compact cursors for level {}", c.level));
        }
        seen |= 1 << c.level;
        if c.key.len() < TRAILER_LEN {
            return Err(format!(
                "level {}: compact cursor is shorter than an internal key trailer",
                c.level
            ));
        }
    }
    Ok(())
}

fn check_file(f: &FileMetaData) -> std::result::Result<(), String> {
    let n = f.number;
    if n == 0 {
        return Err("file number 0 is invalid".into());
    }
    if f.smallest.len() < TRAILER_LEN || f.largest.len() < TRAILER_LEN {
        return Err(format!(
            "file {n}: a bound is shorter than an internal key trailer"
        ));
    }
    // `smallest <= largest` depends on the column family's comparator, which an edit does not
    // know: the version checks it when the file is installed.
    if f.smallest_seqno > f.largest_seqno || f.largest_seqno > MAX_SEQUENCE {
        return Err(format!("file {n}: bad sequence range"));
    }
    if let Some(e) = &f.entry_stats {
        if e.num_range_deletions > e.num_deletions || e.num_deletions > e.num_entries {
            return Err(format!("file {n}: inconsistent entry stats"));
        }
    }
    Ok(())
}

fn varint_field(out: &mut Vec<u8>, t: u32, v: u64) {
    put_varint32(out, t);
    put_varint64(out, varint_len(v) as u64);
    put_varint64(out, v);
}

fn bytes_field(out: &mut Vec<u8>, t: u32, payload: &[u8]) {
    put_varint32(out, t);
    put_length_prefixed(out, payload);
}

fn encode_new_file(f: &NewFile) -> Vec<u8> {
    let m = &f.meta;
    let mut p = Vec::with_capacity(40 + m.smallest.len() + m.largest.len());
    put_varint32(&mut p, u32::from(f.level));
    put_varint64(&mut p, m.number);
    put_varint64(&mut p, m.size);
    put_length_prefixed(&mut p, &m.smallest);
    put_length_prefixed(&mut p, &m.largest);
    put_varint64(&mut p, m.smallest_seqno);
    put_varint64(&mut p, m.largest_seqno);
    if let Some(t) = m.creation_time {
        varint_field(&mut p, file_tag::CREATION_TIME, t);
    }
    if let Some(t) = m.oldest_ancester_time {
        varint_field(&mut p, file_tag::OLDEST_ANCESTER_TIME, t);
    }
    if m.marked_for_compaction {
        bytes_field(&mut p, file_tag::MARKED_FOR_COMPACTION, &[1]);
    }
    if let Some(e) = &m.entry_stats {
        let mut payload = Vec::with_capacity(5 * 4);
        for v in [
            e.num_entries,
            e.num_deletions,
            e.num_range_deletions,
            e.raw_key_bytes,
            e.raw_value_bytes,
        ] {
            put_varint64(&mut payload, v);
        }
        bytes_field(&mut p, file_tag::ENTRY_STATS, &payload);
    }
    if let Some(c) = &m.file_checksum {
        let mut payload = Vec::with_capacity(c.function.len() + c.value.len() + 4);
        put_length_prefixed(&mut payload, c.function.as_bytes());
        put_length_prefixed(&mut payload, &c.value);
        bytes_field(&mut p, file_tag::FILE_CHECKSUM, &payload);
    }
    p
}

/// Reads one `tag | length | payload` field.
fn read_field<'a>(d: &mut Decoder<'a>) -> FieldResult<(u32, &'a [u8])> {
    let Some(t) = d.varint32() else {
        return corrupt("truncated or overlong field tag");
    };
    match d.length_prefixed() {
        Some(payload) => Ok((t, payload)),
        None => corrupt(format!("field {t} runs past the end of the edit")),
    }
}

/// Rejects a second occurrence of a singular field.
fn check_repeat(seen: &mut u64, t: u32) -> FieldResult<()> {
    if t == tag::NEW_FILE || t == tag::DELETED_FILE || t >= 64 {
        return Ok(());
    }
    if *seen & (1 << t) != 0 {
        return corrupt(format!("field {t} appears twice"));
    }
    *seen |= 1 << t;
    Ok(())
}

fn unknown_required<T>(t: u32, what: &str) -> FieldResult<T> {
    Err(FieldError::Unsupported(format!(
        "unknown required {what} tag {t} (written by a newer version?)"
    )))
}

fn into_error(e: FieldError, at: u64) -> Error {
    match e {
        FieldError::Corrupt(m) => Error::corruption("", at, format!("version edit: {m}")),
        FieldError::Unsupported(m) => Error::NotSupported(format!("version edit byte {at}: {m}")),
    }
}

fn whole_varint(p: &[u8]) -> FieldResult<u64> {
    let mut d = Decoder::new(p);
    match d.varint64() {
        Some(v) if d.is_empty() => Ok(v),
        _ => corrupt("malformed varint field"),
    }
}

fn whole_varint32(p: &[u8]) -> FieldResult<u32> {
    u32::try_from(whole_varint(p)?).or_else(|_| corrupt("32-bit field out of range"))
}

fn utf8(p: &[u8]) -> FieldResult<String> {
    String::from_utf8(p.to_vec()).or_else(|_| corrupt("name is not UTF-8"))
}

fn format_version(p: &[u8]) -> FieldResult<u32> {
    let v = whole_varint32(p)?;
    if v > FORMAT_VERSION {
        return Err(FieldError::Unsupported(format!(
            "MANIFEST format version {v} is newer than {FORMAT_VERSION}, the newest this build reads"
        )));
    }
    Ok(v)
}

fn level(d: &mut Decoder<'_>) -> FieldResult<u8> {
    match d.varint32() {
        Some(l) if l < u32::from(MAX_LEVELS) => Ok(l as u8),
        Some(l) => corrupt(format!("level {l} is not below {MAX_LEVELS}")),
        None => corrupt("malformed level"),
    }
}

fn decode_deleted_file(p: &[u8]) -> FieldResult<DeletedFile> {
    let mut d = Decoder::new(p);
    let level = level(&mut d)?;
    match d.varint64() {
        Some(number) if d.is_empty() => Ok(DeletedFile { level, number }),
        _ => corrupt("malformed deleted-file field"),
    }
}

fn decode_compact_cursor(p: &[u8]) -> FieldResult<CompactCursor> {
    let mut d = Decoder::new(p);
    let level = level(&mut d)?;
    match d.length_prefixed() {
        Some(key) if d.is_empty() && key.len() >= TRAILER_LEN => Ok(CompactCursor {
            level,
            key: key.to_vec(),
        }),
        _ => corrupt("malformed compact cursor"),
    }
}

fn decode_new_file(p: &[u8]) -> FieldResult<NewFile> {
    let mut d = Decoder::new(p);
    let level = level(&mut d)?;
    let mut m = decode_file_base(&mut d).map_or_else(|| corrupt("malformed new-file field"), Ok)?;
    let mut seen = 0u64;
    while !d.is_empty() {
        let (t, payload) = read_field(&mut d)?;
        check_repeat(&mut seen, t)?;
        apply_file_field(&mut m, t, payload)?;
    }
    Ok(NewFile { level, meta: m })
}

fn decode_file_base(d: &mut Decoder<'_>) -> Option<FileMetaData> {
    Some(FileMetaData {
        number: d.varint64()?,
        size: d.varint64()?,
        smallest: d.length_prefixed()?.to_vec(),
        largest: d.length_prefixed()?.to_vec(),
        smallest_seqno: d.varint64()?,
        largest_seqno: d.varint64()?,
        ..FileMetaData::default()
    })
}

fn apply_file_field(m: &mut FileMetaData, t: u32, p: &[u8]) -> FieldResult<()> {
    match t {
        0 => return corrupt("new-file field tag 0 is invalid"),
        file_tag::CREATION_TIME => m.creation_time = Some(whole_varint(p)?),
        file_tag::OLDEST_ANCESTER_TIME => m.oldest_ancester_time = Some(whole_varint(p)?),
        file_tag::FILE_CHECKSUM => m.file_checksum = Some(decode_checksum(p)?),
        file_tag::MARKED_FOR_COMPACTION => match p {
            [1] => m.marked_for_compaction = true,
            _ => return corrupt("malformed marked-for-compaction field"),
        },
        file_tag::ENTRY_STATS => m.entry_stats = Some(decode_entry_stats(p)?),
        t if t & SAFE_IGNORE_MASK != 0 => {}
        t => return unknown_required(t, "new-file field"),
    }
    Ok(())
}

fn decode_entry_stats(p: &[u8]) -> FieldResult<EntryStats> {
    let mut d = Decoder::new(p);
    let mut v = [0u64; 5];
    for x in &mut v {
        *x = match d.varint64() {
            Some(n) => n,
            None => return corrupt("malformed entry stats"),
        };
    }
    let [num_entries, num_deletions, num_range_deletions, raw_key_bytes, raw_value_bytes] = v;
    if !d.is_empty() || num_range_deletions > num_deletions || num_deletions > num_entries {
        return corrupt("inconsistent entry stats");
    }
    Ok(EntryStats {
        num_entries,
        num_deletions,
        num_range_deletions,
        raw_key_bytes,
        raw_value_bytes,
    })
}

fn decode_checksum(p: &[u8]) -> FieldResult<FileChecksum> {
    let mut d = Decoder::new(p);
    let (Some(function), Some(value)) = (d.length_prefixed(), d.length_prefixed()) else {
        return corrupt("malformed file checksum");
    };
    if !d.is_empty() {
        return corrupt("trailing bytes in file checksum");
    }
    Ok(FileChecksum {
        function: utf8(function)?,
        value: value.to_vec(),
    })
}
