//! Database properties under RocksDB's names (`DB::GetProperty`): `rocksdb.stats` with the
//! "Compaction Stats" table and the DB-wide cumulative and interval lines, `rocksdb.levelstats`,
//! `rocksdb.num-files-at-level<N>`, sizes, key estimates, memtable and cache usage, and the
//! pending-compaction estimate. `cairndb.` is accepted as a prefix too.
//!
//! # Contract
//! - Any thread; each property takes the state lock briefly (and `estimate-num-keys` opens the
//!   tables of the current version through the table cache, without the lock).
//! - An unknown name, or a level past the tree, is `None`, as RocksDB's `GetProperty` returns
//!   false. Integer properties also have [`Db::property_int_cf`].
//! - The formats follow RocksDB's `db/internal_stats.cc` column for column, so tools and eyes
//!   trained on RocksDB's LOG read them unchanged; columns CairnDB does not track (CPU time of
//!   compactions, pre-compression bytes, blob files) print 0. `docs/design/operability.md`.

use std::fmt::Write as _;
use std::time::Duration;

use super::compact::LevelStats;
use super::internal_stats::{CounterSnapshot, FlushStats};
use super::{ColumnFamily, Db, DbInner, DbState};
use crate::compaction::compaction_report;

const KB: f64 = 1024.0;
const MB: f64 = KB * 1024.0;
const GB: f64 = MB * 1024.0;

/// The property names [`Db::property`] answers, without the prefix; `num-files-at-level` takes
/// a level number suffix.
pub const PROPERTY_NAMES: &[&str] = &[
    "stats",
    "cfstats",
    "dbstats",
    "levelstats",
    "num-files-at-level<N>",
    "estimate-num-keys",
    "total-sst-files-size",
    "live-sst-files-size",
    "estimate-live-data-size",
    "estimate-table-readers-mem",
    "cur-size-all-mem-tables",
    "cur-size-active-mem-table",
    "size-all-mem-tables",
    "num-immutable-mem-table",
    "num-entries-active-mem-table",
    "memtable-prefix-bloom-useful",
    "memtable-prefix-bloom-passed",
    "block-cache-usage",
    "block-cache-capacity",
    "table-cache-capacity",
    "table-cache-shards",
    "estimate-pending-compaction-bytes",
    "background-errors",
    "num-snapshots",
    "filter-false-positives-per-lookup",
];

impl Db {
    /// The property `name` of the default column family (`rocksdb.stats`,
    /// `rocksdb.num-files-at-level0`, ...; see [`PROPERTY_NAMES`]); `None` for an unknown name.
    pub fn property(&self, name: &str) -> Option<String> {
        self.property_cf(&self.default_column_family(), name)
    }

    /// The property `name` of column family `cf`; `None` for an unknown name or a dropped
    /// family.
    pub fn property_cf(&self, cf: &ColumnFamily, name: &str) -> Option<String> {
        if let Some(n) = self.property_int_cf(cf, name) {
            return Some(n.to_string());
        }
        let name = strip_prefix(name)?;
        let inner = &*self.inner;
        cf.data.check_live().ok()?;
        match name {
            "stats" => {
                let mut out = inner.cf_stats(cf.id())?;
                out.push_str(&inner.db_stats());
                Some(out)
            }
            "cfstats" => inner.cf_stats(cf.id()),
            "dbstats" => Some(inner.db_stats()),
            "levelstats" => inner.level_stats(cf.id()),
            // CairnDB's own: Db::expected_filter_false_positives_cf.
            "filter-false-positives-per-lookup" => self
                .expected_filter_false_positives_cf(cf)
                .ok()
                .map(|r| format!("{r:.6}")),
            _ => None,
        }
    }

    /// The tables of each level of `cf`'s current version, L0 first (newest first within L0);
    /// empty for a dropped family.
    pub fn level_files_cf(
        &self,
        cf: &ColumnFamily,
    ) -> Vec<Vec<std::sync::Arc<crate::version::FileMetaData>>> {
        if cf.data.check_live().is_err() {
            return Vec::new();
        }
        let version = cf.data.read_view().version.clone();
        (0..version.num_levels())
            .map(|l| version.files(l).to_vec())
            .collect()
    }

    /// An integer property of the default column family (`rocksdb.estimate-num-keys`, ...).
    pub fn property_int(&self, name: &str) -> Option<u64> {
        self.property_int_cf(&self.default_column_family(), name)
    }

    /// An integer property of `cf`; `None` for an unknown or non-integer name.
    pub fn property_int_cf(&self, cf: &ColumnFamily, name: &str) -> Option<u64> {
        let name = strip_prefix(name)?;
        cf.data.check_live().ok()?;
        let inner = &*self.inner;
        if let Some(level) = name.strip_prefix("num-files-at-level") {
            let level: usize = parse_level(level)?;
            let version = cf.data.read_view().version.clone();
            return (level < version.num_levels()).then(|| version.num_files(level) as u64);
        }
        let view = cf.data.read_view();
        let mem_usage = |m: &crate::memtable::MemTable| m.approximate_memory_usage() as u64;
        Some(match name {
            "estimate-num-keys" => inner.estimate_num_keys(cf),
            "total-sst-files-size" => inner.total_sst_files_size(cf.id()),
            "live-sst-files-size" => view.version.total_bytes(),
            // RocksDB discounts the key ranges a lower level repeats; CairnDB's estimate is the
            // bytes of the live tables, the upper bound of the live data.
            "estimate-live-data-size" => view.version.total_bytes(),
            // Index and filter blocks held outside the block cache, and the tables themselves.
            "estimate-table-readers-mem" => cf.data.table_cache.readers_memory() as u64,
            "cur-size-active-mem-table" => mem_usage(&view.mem),
            "cur-size-all-mem-tables" | "size-all-mem-tables" => {
                mem_usage(&view.mem) + view.imms.iter().map(|m| mem_usage(m)).sum::<u64>()
            }
            "num-immutable-mem-table" => view.imms.len() as u64,
            "memtable-prefix-bloom-useful" | "memtable-prefix-bloom-passed" => {
                let useful = name.ends_with("useful");
                std::iter::once(&view.mem)
                    .chain(view.imms.iter())
                    .filter_map(|m| m.prefix_bloom())
                    .map(|b| if useful { b.stats().0 } else { b.stats().1 })
                    .sum()
            }
            "num-entries-active-mem-table" => view.mem.num_entries(),
            "block-cache-usage" => cf.data.options.table.block_cache.as_ref()?.usage() as u64,
            "block-cache-capacity" => cf.data.options.table.block_cache.as_ref()?.capacity() as u64,
            // Tables the family's table cache keeps open (0: no limit, `max_open_files = -1`)
            // and its shards (`table_cache_numshardbits`). CairnDB's own properties.
            "table-cache-capacity" => cf.data.table_cache.capacity().map_or(0, |c| c as u64),
            "table-cache-shards" => cf.data.table_cache.shard_count() as u64,
            "estimate-pending-compaction-bytes" => self.pending_compaction_bytes_cf(cf),
            "background-errors" => self.background_error_count(),
            "num-snapshots" => self.live_snapshots().len() as u64,
            _ => return None,
        })
    }
}

/// `rocksdb.x` / `cairndb.x` to `x`; `None` without either prefix.
fn strip_prefix(name: &str) -> Option<&str> {
    name.strip_prefix("rocksdb.")
        .or_else(|| name.strip_prefix("cairndb."))
}

/// A level number: decimal digits only.
fn parse_level(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// RocksDB's `BytesToHumanString`: KB at least, two decimals.
pub(crate) fn human_bytes(bytes: u64) -> String {
    let mut size = bytes as f64 / KB;
    let mut unit = 0;
    let units = ["KB", "MB", "GB", "TB"];
    while unit < 3 && size >= 1024.0 {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.2} {}", units[unit])
}

/// RocksDB's `NumberToHumanString`: K, M, G past 10,000 of each.
fn human_number(n: u64) -> String {
    match n {
        n if n < 10_000 => n.to_string(),
        n if n < 10_000_000 => format!("{}K", n / 1_000),
        n if n < 10_000_000_000 => format!("{}M", n / 1_000_000),
        n => format!("{}G", n / 1_000_000_000),
    }
}

/// `HH:MM:SS.mmm H:M:S` as RocksDB prints stall time.
fn human_micros(micros: u64) -> String {
    let secs = micros / 1_000_000;
    format!(
        "{:02}:{:02}:{:02}.{:03} H:M:S",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60,
        (micros % 1_000_000) / 1000
    )
}

/// One row of the compaction-stats table.
#[derive(Debug, Default, Clone, Copy)]
struct Row {
    files: usize,
    being_compacted: usize,
    size: u64,
    score: f64,
    read: u64,
    read_output: u64,
    written: u64,
    moved: u64,
    w_amp: f64,
    seconds: f64,
    count: u64,
    keys_in: u64,
    keys_drop: u64,
}

impl Row {
    fn add_stats(&mut self, s: &LevelStats) {
        self.read += s.bytes_read;
        self.read_output += s.bytes_read_output_level;
        self.written += s.bytes_written;
        self.moved += s.bytes_moved;
        self.seconds += s.seconds;
        self.count += s.compactions;
        self.keys_in += s.keys_in;
        self.keys_drop += s.keys_dropped;
    }

    fn add_flush(&mut self, f: &FlushStats) {
        self.written += f.bytes;
        self.seconds += f.seconds;
        self.count += f.count;
    }

    fn add(&mut self, o: &Row) {
        self.files += o.files;
        self.being_compacted += o.being_compacted;
        self.size += o.size;
        self.read += o.read;
        self.read_output += o.read_output;
        self.written += o.written;
        self.moved += o.moved;
        self.seconds += o.seconds;
        self.count += o.count;
        self.keys_in += o.keys_in;
        self.keys_drop += o.keys_drop;
    }

    /// One line in RocksDB's `PrintLevelStats` layout.
    fn print(&self, out: &mut String, name: &str) {
        let rn = self.read - self.read_output.min(self.read);
        let wnew = self.written as f64 - self.read_output as f64;
        let elapsed = self.seconds + 1e-6;
        let avg = if self.count == 0 {
            0.0
        } else {
            self.seconds / self.count as f64
        };
        let _ = writeln!(
            out,
            "{name:>4} {:>6}/{:<3} {:>10} {:5.1} {:8.1} {:7.1} {:8.1} {:9.1} {:9.1} {:8.1} \
             {:9.1} {:5.1} {:8.1} {:8.1} {:9.2} {:17.2} {:9} {:8.3} {:>7} {:>6} {:9.1} {:9.1}",
            self.files,
            self.being_compacted,
            human_bytes(self.size),
            self.score,
            self.read as f64 / GB,
            rn as f64 / GB,
            self.read_output as f64 / GB,
            self.written as f64 / GB,
            0.0,
            wnew / GB,
            self.moved as f64 / GB,
            self.w_amp,
            self.read as f64 / MB / elapsed,
            self.written as f64 / MB / elapsed,
            self.seconds,
            0.0,
            self.count,
            avg,
            human_number(self.keys_in),
            human_number(self.keys_drop),
            0.0,
            0.0,
        );
    }
}

/// RocksDB's `PrintLevelStatsHeader`.
fn print_header(out: &mut String, cf_name: &str, group_by: &str) {
    let _ = writeln!(out, "\n** Compaction Stats [{cf_name}] **");
    let line = format!(
        "{group_by}    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) WPreComp(GB) \
         Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) \
         Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)"
    );
    let _ = writeln!(out, "{line}");
    let _ = writeln!(out, "{}", "-".repeat(line.len()));
}

impl DbInner {
    /// The total write delay so far (compaction debt and memtable waits).
    fn stall_time(st: &DbState) -> Duration {
        let mut total = st.memtable_waits.0;
        for c in [
            super::write_control::Cause::L0Files,
            super::write_control::Cause::PendingCompactionBytes,
        ] {
            total += st.write_control.delayed(c).0;
        }
        total
    }

    /// The database-wide counters now.
    pub(super) fn counter_snapshot(&self) -> CounterSnapshot {
        let stall = Self::stall_time(&self.state.lock());
        self.counters.snapshot(stall)
    }

    /// RocksDB's `DumpDBStats`: uptime, cumulative and interval writes, WAL and stall lines.
    pub(super) fn db_stats(&self) -> String {
        let now = self.counter_snapshot();
        let interval = now.since(&self.counters.interval_base());
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n** DB Stats **\nUptime(secs): {:.1} total, {:.1} interval",
            now.uptime_secs, interval.uptime_secs
        );
        write_db_lines(&mut out, "Cumulative", &now, GB, "GB");
        write_db_lines(&mut out, "Interval", &interval, MB, "MB");
        out
    }

    /// RocksDB's `levelstats`: files and MB per level.
    fn level_stats(&self, cf: u32) -> Option<String> {
        let st = self.state.lock();
        let version = st.versions.current(cf)?;
        let mut out = String::from("Level Files Size(MB)\n--------------------\n");
        for level in 0..version.num_levels() {
            let _ = writeln!(
                out,
                "{level:3} {:8} {:8.0}",
                version.num_files(level),
                version.level_bytes(level) as f64 / MB
            );
        }
        Some(out)
    }

    /// RocksDB's `DumpCFStats`: the compaction-stats table of family `cf` (flushes count as
    /// writes into L0, as in RocksDB) and its cumulative lines.
    pub(super) fn cf_stats(&self, cf: u32) -> Option<String> {
        let st = self.state.lock();
        let state = st.cfs.get(&cf)?;
        let version = st.versions.current(cf)?;
        let report = compaction_report(&version, &state.options, &state.running);
        let flush = self.counters.flush_stats(cf);
        let mut rows: Vec<Row> = (0..version.num_levels())
            .map(|level| {
                let files = version.files(level);
                let mut row = Row {
                    files: files.len(),
                    being_compacted: files
                        .iter()
                        .filter(|f| state.running.is_being_compacted(f.number))
                        .count(),
                    size: version.level_bytes(level),
                    score: report.levels.get(level).map_or(0.0, |l| l.score),
                    ..Row::default()
                };
                if let Some(s) = state.stats.levels.get(level) {
                    row.add_stats(s);
                }
                if level == 0 {
                    row.add_flush(&flush);
                }
                // RocksDB: bytes written per byte read from the level above.
                let rn = row.read.saturating_sub(row.read_output);
                row.w_amp = if level == 0 || rn == 0 {
                    0.0
                } else {
                    row.written as f64 / rn as f64
                };
                row
            })
            .collect();
        if let Some(r0) = rows.first_mut() {
            r0.w_amp = if flush.bytes == 0 { 0.0 } else { 1.0 };
        }
        let mut out = String::new();
        print_header(&mut out, &state.data.name, "Level");
        let mut sum = Row::default();
        for (level, row) in rows.iter().enumerate() {
            sum.add(row);
            if row.files > 0 || row.count > 0 {
                row.print(&mut out, &format!("L{level}"));
            }
        }
        sum.w_amp = sum.written as f64 / (flush.bytes as f64 + 1.0);
        sum.print(&mut out, "Sum");
        let up = self.counters.uptime().as_secs_f64().max(0.001);
        let compact_read: u64 = state.stats.levels.iter().map(|l| l.bytes_read).sum();
        let compact_write: u64 = state.stats.levels.iter().map(|l| l.bytes_written).sum();
        let compact_secs: f64 = state.stats.levels.iter().fold(0.0, |s, l| s + l.seconds);
        let _ = writeln!(out, "\nUptime(secs): {up:.1} total");
        let _ = writeln!(out, "Flush(GB): cumulative {:.3}", flush.bytes as f64 / GB);
        let _ = writeln!(
            out,
            "Cumulative compaction: {:.2} GB write, {:.2} MB/s write, {:.2} GB read, \
             {:.2} MB/s read, {compact_secs:.1} seconds",
            compact_write as f64 / GB,
            compact_write as f64 / MB / up,
            compact_read as f64 / GB,
            compact_read as f64 / MB / up,
        );
        let _ = writeln!(
            out,
            "Estimated pending compaction bytes: {}",
            report.pending_compaction_bytes
        );
        let mut stalls = String::new();
        let (mut delays, mut stops) = (0, 0);
        for c in [
            super::write_control::Cause::L0Files,
            super::write_control::Cause::PendingCompactionBytes,
        ] {
            let (_, n) = st.write_control.delayed(c);
            let s = st.write_control.stops(c);
            delays += n;
            stops += s;
            let _ = write!(
                stalls,
                "{}-delays: {n}, {}-stops: {s}, ",
                c.name(),
                c.name()
            );
        }
        let _ = writeln!(
            out,
            "Stalls(count): {stalls}memtable-limit-waits: {}, total-delays: {delays}, \
             total-stops: {stops}",
            st.memtable_waits.1
        );
        Some(out)
    }

    /// Bytes of the tables of `cf`'s current version plus those of older versions that
    /// readers still hold (RocksDB's `total-sst-files-size`; tables being written count too).
    fn total_sst_files_size(&self, cf: u32) -> u64 {
        use crate::version::filenames::table_file_name;
        let st = self.state.lock();
        let Some(current) = st.versions.current(cf) else {
            return 0;
        };
        let in_some_current: std::collections::BTreeSet<u64> = st
            .cfs
            .keys()
            .filter_map(|&id| st.versions.current(id))
            .flat_map(|v| v.all_files().map(|(_, f)| f.number).collect::<Vec<_>>())
            .collect();
        let held: u64 = st
            .versions
            .live_files()
            .into_iter()
            .filter(|n| !in_some_current.contains(n))
            .map(|n| {
                self.fs
                    .size(&self.dir.join(table_file_name(n)))
                    .unwrap_or(0)
            })
            .sum();
        current.total_bytes() + held
    }

    /// The sum over the current version's tables of entries minus twice the deletions (a
    /// deletion hides one older entry), plus the memtables' entries minus their deletions:
    /// RocksDB's estimate.
    fn estimate_num_keys(&self, cf: &ColumnFamily) -> u64 {
        let view = cf.data.read_view();
        let mut n: i128 = 0;
        for m in std::iter::once(&view.mem).chain(view.imms.iter()) {
            n += i128::from(m.num_entries()) - i128::from(m.num_deletes());
        }
        for (_, f) in view.version.all_files() {
            if let Ok(t) = cf.data.table_cache.get_table(f.number, f.size) {
                let p = t.properties();
                n += i128::from(p.num_entries) - 2 * i128::from(p.num_deletions);
            }
        }
        u64::try_from(n.max(0)).unwrap_or(u64::MAX)
    }
}

/// The writes, WAL and stall lines of `DumpDBStats`, for `label` (Cumulative or Interval);
/// ingest is shown in `unit` (GB cumulative, MB interval, as RocksDB).
fn write_db_lines(out: &mut String, label: &str, c: &CounterSnapshot, unit: f64, uname: &str) {
    let up = c.uptime_secs.max(0.001);
    let _ = writeln!(
        out,
        "{label} writes: {} writes, {} keys, {} commit groups, {:.1} writes per commit group, \
         ingest: {:.2} {uname}, {:.2} MB/s",
        human_number(c.writes()),
        human_number(c.keys),
        human_number(c.writes_self),
        c.writes() as f64 / (c.writes_self as f64).max(1.0),
        c.bytes as f64 / unit,
        c.bytes as f64 / MB / up,
    );
    let _ = writeln!(
        out,
        "{label} WAL: {} writes, {} syncs, {:.2} writes per sync, written: {:.2} GB, {:.2} MB/s",
        human_number(c.wal_writes),
        human_number(c.wal_syncs),
        c.wal_writes as f64 / (c.wal_syncs as f64).max(1.0),
        c.wal_bytes as f64 / GB,
        c.wal_bytes as f64 / MB / up,
    );
    let _ = writeln!(
        out,
        "{label} stall: {}, {:.1} percent",
        human_micros(c.stall_micros),
        c.stall_micros as f64 / 10_000.0 / up,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_formats_match_rocksdb() {
        assert_eq!(human_bytes(0), "0.00 KB");
        assert_eq!(human_bytes(1536), "1.50 KB");
        assert_eq!(human_bytes(3 << 20), "3.00 MB");
        assert_eq!(human_bytes(5 << 30), "5.00 GB");
        assert_eq!(human_number(9999), "9999");
        assert_eq!(human_number(12_345), "12K");
        assert_eq!(human_number(12_345_678), "12M");
        assert_eq!(human_micros(3_723_004_000), "01:02:03.004 H:M:S");
    }

    #[test]
    fn prefixes_and_levels() {
        assert_eq!(strip_prefix("rocksdb.stats"), Some("stats"));
        assert_eq!(strip_prefix("cairndb.stats"), Some("stats"));
        assert_eq!(strip_prefix("stats"), None);
        assert_eq!(parse_level("3"), Some(3));
        assert_eq!(parse_level(""), None);
        assert_eq!(parse_level("x"), None);
        assert_eq!(parse_level("-1"), None);
    }
}
