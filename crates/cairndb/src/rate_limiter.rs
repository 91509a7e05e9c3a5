//! [`RateLimiter`]: a token bucket that bounds the bytes per second background jobs write, read,
//! or both (RocksDB's `GenericRateLimiter`, made by `NewGenericRateLimiter`).
//!
//! Who calls it: flush and compaction threads, through [`RateLimitedFile`], before each write of
//! a table file, and compaction threads, through [`RateLimitedReader`], before each read of an
//! input table. The limiter's [`RateLimiterMode`] (RocksDB's `RateLimiter::Mode`) says which of
//! the two it charges: writes only (the default, as RocksDB's), reads only, or all I/O. Any
//! number of threads (and databases) may share one limiter.
//!
//! The model, as RocksDB's:
//! - Every `refill_period_us` the bucket is refilled with `rate_bytes_per_sec ×
//!   refill_period_us / 10^6` bytes (the *burst*; at least 1). Tokens do not pile up across idle
//!   periods: the bucket never holds more than one burst.
//! - A request no larger than the tokens available, with nobody queued, is granted at once.
//!   Otherwise it queues at its priority and is granted, in whole or in part, at later refills:
//!   the high-priority queue (flushes) is served first, except at every `fairness`-th refill
//!   where the low-priority queue (compactions) goes first, so compactions are not starved.
//!   (RocksDB draws that turn at random with probability `1/fairness`; a counter makes it
//!   deterministic.)
//! - A request larger than one burst is split into bursts by [`RateLimiter::request`].
//!
//! Invariants:
//! 1. `available <= burst` after every refill; tokens are only taken, never created, between
//!    refills.
//! 2. A queued request is granted only from the front of its queue, and queues are served whole
//!    refills at a time, so requests of one priority are served first-come first-served.
//!
//! The arithmetic is in [`Bucket`], a pure function of the times it is given, so tests drive it
//! with explicit clocks; [`RateLimiter`] adds the waiting.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::fs::{AccessPattern, FileSyncer, RandomAccessFile, WritableFile};
use crate::options::{Clock, SystemClock};

/// RocksDB's default refill period: 100 ms.
pub const DEFAULT_REFILL_PERIOD_US: u64 = 100_000;
/// RocksDB's default fairness: the low-priority queue goes first at one refill in 10.
pub const DEFAULT_FAIRNESS: u32 = 10;

/// Whose bytes a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoPriority {
    /// Compactions (RocksDB's `IO_LOW`).
    Low = 0,
    /// Flushes (RocksDB's `IO_HIGH`).
    High = 1,
}

/// Which I/O a [`RateLimiter`] charges (RocksDB's `RateLimiter::Mode`, spelled as its
/// `kReadsOnly`, `kWritesOnly`, `kAllIo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateLimiterMode {
    /// Only reads of compaction inputs (RocksDB's `kReadsOnly`).
    ReadsOnly,
    /// Only writes of flush and compaction outputs (RocksDB's `kWritesOnly`, its default).
    #[default]
    WritesOnly,
    /// Both (RocksDB's `kAllIo`).
    AllIo,
}

impl RateLimiterMode {
    /// Whether reads are charged (RocksDB's `IsRateLimited(OpType::kRead)`).
    pub fn limits_reads(self) -> bool {
        matches!(self, RateLimiterMode::ReadsOnly | RateLimiterMode::AllIo)
    }

    /// Whether writes are charged (RocksDB's `IsRateLimited(OpType::kWrite)`).
    pub fn limits_writes(self) -> bool {
        matches!(self, RateLimiterMode::WritesOnly | RateLimiterMode::AllIo)
    }

    /// RocksDB's spelling: `kReadsOnly`, `kWritesOnly` or `kAllIo`.
    pub fn name(self) -> &'static str {
        match self {
            RateLimiterMode::ReadsOnly => "kReadsOnly",
            RateLimiterMode::WritesOnly => "kWritesOnly",
            RateLimiterMode::AllIo => "kAllIo",
        }
    }
}

impl std::str::FromStr for RateLimiterMode {
    type Err = Error;

    /// Parses RocksDB's spelling (`kReadsOnly`, `kWritesOnly`, `kAllIo`).
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kReadsOnly" => Ok(RateLimiterMode::ReadsOnly),
            "kWritesOnly" => Ok(RateLimiterMode::WritesOnly),
            "kAllIo" => Ok(RateLimiterMode::AllIo),
            _ => Err(Error::InvalidArgument(format!(
                "rate limiter mode {s:?}: expected kReadsOnly, kWritesOnly or kAllIo"
            ))),
        }
    }
}

/// One queued request.
#[derive(Debug, Clone, Copy)]
struct Waiter {
    id: u64,
    remaining: u64,
}

/// The token arithmetic of a [`RateLimiter`], without waiting. Times are microseconds.
#[derive(Debug)]
pub struct Bucket {
    rate_bytes_per_sec: u64,
    refill_period_us: u64,
    fairness: u32,
    available: u64,
    next_refill_us: u64,
    refills: u64,
    queues: [VecDeque<Waiter>; 2],
    next_id: u64,
    /// Ids of requests granted whole, not yet collected by their waiter.
    granted: Vec<u64>,
    total_bytes: [u64; 2],
    total_requests: [u64; 2],
}

/// What [`Bucket::request`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// The bytes may be written now.
    Now,
    /// The request waits in its queue under this id; see [`Bucket::is_granted`].
    Queued(u64),
}

impl Bucket {
    /// A full bucket at time `now_us`.
    pub fn new(rate_bytes_per_sec: u64, refill_period_us: u64, fairness: u32, now_us: u64) -> Self {
        let mut b = Bucket {
            rate_bytes_per_sec,
            refill_period_us: refill_period_us.max(1),
            fairness: fairness.max(1),
            available: 0,
            next_refill_us: now_us.saturating_add(refill_period_us.max(1)),
            refills: 0,
            queues: [VecDeque::new(), VecDeque::new()],
            next_id: 1,
            granted: Vec::new(),
            total_bytes: [0; 2],
            total_requests: [0; 2],
        };
        b.available = b.burst();
        b
    }

    /// Bytes added per refill, and the most a request may ask for at once (at least 1).
    pub fn burst(&self) -> u64 {
        let bytes =
            u128::from(self.rate_bytes_per_sec) * u128::from(self.refill_period_us) / 1_000_000;
        u64::try_from(bytes).unwrap_or(u64::MAX).max(1)
    }

    /// Tokens available now.
    pub fn available(&self) -> u64 {
        self.available
    }

    /// When the next refill is due.
    pub fn next_refill_us(&self) -> u64 {
        self.next_refill_us
    }

    /// Changes the rate; takes effect at the next refill.
    pub fn set_rate(&mut self, rate_bytes_per_sec: u64) {
        self.rate_bytes_per_sec = rate_bytes_per_sec.max(1);
        self.available = self.available.min(self.burst());
    }

    /// The rate in bytes per second.
    pub fn rate(&self) -> u64 {
        self.rate_bytes_per_sec
    }

    /// Asks for `bytes` (at most [`Bucket::burst`]) at priority `pri` at time `now_us`.
    pub fn request(&mut self, bytes: u64, pri: IoPriority, now_us: u64) -> Grant {
        let bytes = bytes.min(self.burst());
        self.total_bytes[pri as usize] += bytes;
        self.total_requests[pri as usize] += 1;
        self.refill_if_due(now_us);
        let queued = self.queues.iter().any(|q| !q.is_empty());
        if !queued && self.available >= bytes {
            self.available -= bytes;
            return Grant::Now;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.queues[pri as usize].push_back(Waiter {
            id,
            remaining: bytes,
        });
        Grant::Queued(id)
    }

    /// Whether queued request `id` has been granted; forgets it if so.
    pub fn is_granted(&mut self, id: u64) -> bool {
        match self.granted.iter().position(|&g| g == id) {
            Some(i) => {
                self.granted.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Refills the bucket if the period ended by `now_us`, and grants queued requests from it
    /// (invariant 2). One refill however long the bucket was idle (invariant 1).
    pub fn refill_if_due(&mut self, now_us: u64) {
        if now_us < self.next_refill_us {
            return;
        }
        self.next_refill_us = now_us.saturating_add(self.refill_period_us);
        self.refills += 1;
        self.available = self.burst();
        let low_first = self.refills % u64::from(self.fairness) == 0;
        let order = if low_first {
            [IoPriority::Low, IoPriority::High]
        } else {
            [IoPriority::High, IoPriority::Low]
        };
        for pri in order {
            let q = &mut self.queues[pri as usize];
            while let Some(w) = q.front_mut() {
                if self.available == 0 {
                    break;
                }
                let take = w.remaining.min(self.available);
                w.remaining -= take;
                self.available -= take;
                if w.remaining > 0 {
                    break;
                }
                self.granted.push(w.id);
                q.pop_front();
            }
        }
    }

    /// Bytes requested so far at `pri`.
    pub fn total_bytes(&self, pri: IoPriority) -> u64 {
        self.total_bytes[pri as usize]
    }

    /// Requests made so far at `pri`.
    pub fn total_requests(&self, pri: IoPriority) -> u64 {
        self.total_requests[pri as usize]
    }
}

/// Limits the bytes per second background jobs write. See the module contract.
pub struct RateLimiter {
    bucket: Mutex<Bucket>,
    cond: Condvar,
    clock: Arc<dyn Clock>,
    mode: RateLimiterMode,
    /// Set by [`RateLimiter::backlog_controlled`].
    backlog_control: bool,
    /// Held by the database whose backlog controller sets this limiter's rate.
    controlled_by_a_db: std::sync::atomic::AtomicBool,
}

impl fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimiter")
            .field("bytes_per_second", &self.bytes_per_second())
            .field("mode", &self.mode)
            .field("backlog_control", &self.backlog_control)
            .finish_non_exhaustive()
    }
}

/// Two limiters are equal when they are the same object (options compare them so).
impl PartialEq for RateLimiter {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl RateLimiter {
    /// RocksDB's `NewGenericRateLimiter(rate_bytes_per_sec, refill_period_us, fairness)`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the rate or the refill period is 0, or fairness is 0 or
    /// above 100 (RocksDB's range).
    pub fn new(rate_bytes_per_sec: u64, refill_period_us: u64, fairness: u32) -> Result<Self> {
        Self::with_clock(
            rate_bytes_per_sec,
            refill_period_us,
            fairness,
            Arc::new(SystemClock),
        )
    }

    /// [`RateLimiter::new`] with RocksDB's defaults: 100 ms refill period, fairness 10.
    ///
    /// # Errors
    /// As [`RateLimiter::new`].
    pub fn with_rate(rate_bytes_per_sec: u64) -> Result<Self> {
        Self::new(
            rate_bytes_per_sec,
            DEFAULT_REFILL_PERIOD_US,
            DEFAULT_FAIRNESS,
        )
    }

    /// [`RateLimiter::new`] charging the I/O `mode` names (RocksDB's
    /// `NewGenericRateLimiter(rate, refill_period_us, fairness, mode)`); [`RateLimiter::new`]
    /// is `RateLimiterMode::WritesOnly`, RocksDB's default.
    ///
    /// # Errors
    /// As [`RateLimiter::new`].
    pub fn with_mode(
        rate_bytes_per_sec: u64,
        refill_period_us: u64,
        fairness: u32,
        mode: RateLimiterMode,
    ) -> Result<Self> {
        let mut l = Self::new(rate_bytes_per_sec, refill_period_us, fairness)?;
        l.mode = mode;
        Ok(l)
    }

    /// Which I/O this limiter charges.
    pub fn mode(&self) -> RateLimiterMode {
        self.mode
    }

    /// [`RateLimiter::new`] reading time from `clock`. Waiting still sleeps in real time and
    /// then rereads `clock`: with a clock that never advances, a request that needs a refill
    /// waits until the clock moves (tests drive the token bucket directly instead).
    ///
    /// # Errors
    /// As [`RateLimiter::new`].
    pub fn with_clock(
        rate_bytes_per_sec: u64,
        refill_period_us: u64,
        fairness: u32,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        if rate_bytes_per_sec == 0 || refill_period_us == 0 || !(1..=100).contains(&fairness) {
            return Err(Error::InvalidArgument(format!(
                "rate limiter: rate_bytes_per_sec ({rate_bytes_per_sec}) and refill_period_us \
                 ({refill_period_us}) must be positive and fairness ({fairness}) in 1..=100"
            )));
        }
        let now = clock.now_micros();
        Ok(RateLimiter {
            bucket: Mutex::new(Bucket::new(
                rate_bytes_per_sec,
                refill_period_us,
                fairness,
                now,
            )),
            cond: Condvar::new(),
            clock,
            mode: RateLimiterMode::default(),
            backlog_control: false,
            controlled_by_a_db: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// A limiter whose rate the backlog controller of the database it is given to sets
    /// (`db/backlog_control.rs`): `ceiling_bytes_per_sec` is the highest rate, and once a
    /// second the controller sets the rate between a twentieth of it and all of it, from the
    /// write rate, the measured amplification and the compaction debt. It paces compaction
    /// work, so it charges compaction reads and writes ([`RateLimiterMode::AllIo`]); flushes
    /// are not charged to it (a paced flush keeps a full memtable waiting). A CairnDB
    /// extension (RocksDB's nearest is the `auto_tuned` flag, which follows how often the
    /// bucket drains). One database at a time: opening a second database with the same
    /// controlled limiter is refused while the first is open.
    ///
    /// # Errors
    /// As [`RateLimiter::new`].
    pub fn backlog_controlled(ceiling_bytes_per_sec: u64, refill_period_us: u64) -> Result<Self> {
        let mut l = Self::with_mode(
            ceiling_bytes_per_sec,
            refill_period_us,
            DEFAULT_FAIRNESS,
            RateLimiterMode::AllIo,
        )?;
        l.backlog_control = true;
        Ok(l)
    }

    /// Whether writes at `pri` are charged: the mode limits writes, and a backlog-controlled
    /// limiter does not charge flushes (a paced flush keeps a full memtable waiting).
    fn charges_writes_at(&self, pri: IoPriority) -> bool {
        self.mode.limits_writes() && !(self.backlog_control && pri == IoPriority::High)
    }

    /// Whether the limiter was made by [`RateLimiter::backlog_controlled`].
    pub fn is_backlog_controlled(&self) -> bool {
        self.backlog_control
    }

    /// Takes the limiter for one database's controller; false when another holds it.
    pub(crate) fn claim_backlog_control(&self) -> bool {
        !self
            .controlled_by_a_db
            .swap(true, std::sync::atomic::Ordering::AcqRel)
    }

    /// Gives the limiter back at close.
    pub(crate) fn release_backlog_control(&self) {
        self.controlled_by_a_db
            .store(false, std::sync::atomic::Ordering::Release);
    }

    /// Changes the rate (RocksDB's `SetBytesPerSecond`); takes effect at the next refill.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for 0.
    pub fn set_bytes_per_second(&self, rate_bytes_per_sec: u64) -> Result<()> {
        if rate_bytes_per_sec == 0 {
            return Err(Error::InvalidArgument(
                "rate limiter: rate_bytes_per_sec must be positive".into(),
            ));
        }
        self.bucket.lock().set_rate(rate_bytes_per_sec);
        Ok(())
    }

    /// The current rate in bytes per second.
    pub fn bytes_per_second(&self) -> u64 {
        self.bucket.lock().rate()
    }

    /// The most bytes one refill grants.
    pub fn single_burst_bytes(&self) -> u64 {
        self.bucket.lock().burst()
    }

    /// Bytes requested so far at `pri`.
    pub fn total_bytes_through(&self, pri: IoPriority) -> u64 {
        self.bucket.lock().total_bytes(pri)
    }

    /// Requests made so far at `pri`.
    pub fn total_requests(&self, pri: IoPriority) -> u64 {
        self.bucket.lock().total_requests(pri)
    }

    /// Waits until `bytes` may be written at priority `pri`, in bursts of at most
    /// [`RateLimiter::single_burst_bytes`].
    pub fn request(&self, bytes: u64, pri: IoPriority) {
        let mut left = bytes;
        while left > 0 {
            let mut b = self.bucket.lock();
            let chunk = left.min(b.burst());
            left -= chunk;
            let Grant::Queued(id) = b.request(chunk, pri, self.clock.now_micros()) else {
                continue;
            };
            loop {
                if b.is_granted(id) {
                    break;
                }
                let now = self.clock.now_micros();
                if now >= b.next_refill_us() {
                    b.refill_if_due(now);
                    self.cond.notify_all();
                    continue;
                }
                let wait = Duration::from_micros(b.next_refill_us() - now);
                let _ = self.cond.wait_for(&mut b, wait);
            }
        }
    }
}

/// A table file whose appends first ask a [`RateLimiter`] for their bytes.
#[derive(Debug)]
pub struct RateLimitedFile {
    inner: Box<dyn WritableFile>,
    limiter: Arc<RateLimiter>,
    pri: IoPriority,
}

impl RateLimitedFile {
    /// `file`, limited by `limiter` when there is one and its mode charges writes.
    pub fn wrap(
        file: Box<dyn WritableFile>,
        limiter: Option<&Arc<RateLimiter>>,
        pri: IoPriority,
    ) -> Box<dyn WritableFile> {
        match limiter.filter(|l| l.charges_writes_at(pri)) {
            Some(l) => Box::new(RateLimitedFile {
                inner: file,
                limiter: Arc::clone(l),
                pri,
            }),
            None => file,
        }
    }
}

impl WritableFile for RateLimitedFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.limiter.request(data.len() as u64, self.pri);
        self.inner.append(data)
    }
    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }
    fn sync_data(&mut self) -> Result<()> {
        self.inner.sync_data()
    }
    fn write_behind(&mut self, offset: u64, len: u64) -> Result<()> {
        self.inner.write_behind(offset, len)
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
    fn syncer(&self) -> Option<Arc<dyn FileSyncer>> {
        // Syncs move no bytes the limiter charges (appends are charged when made).
        self.inner.syncer()
    }
}

/// A table file whose reads first ask a [`RateLimiter`] for their bytes (RocksDB's
/// `RandomAccessFileReader` with a rate limiter). Compaction opens its inputs through it, so
/// every byte a compaction reads — footer, index, filter and data blocks — is charged at
/// [`IoPriority::Low`].
#[derive(Debug)]
pub struct RateLimitedReader {
    inner: Arc<dyn RandomAccessFile>,
    limiter: Arc<RateLimiter>,
    pri: IoPriority,
}

impl RateLimitedReader {
    /// `file`, limited by `limiter` when there is one and its mode charges reads.
    pub fn wrap(
        file: Arc<dyn RandomAccessFile>,
        limiter: Option<&Arc<RateLimiter>>,
        pri: IoPriority,
    ) -> Arc<dyn RandomAccessFile> {
        match limiter.filter(|l| l.mode().limits_reads()) {
            Some(l) => Arc::new(RateLimitedReader {
                inner: file,
                limiter: Arc::clone(l),
                pri,
            }),
            None => file,
        }
    }
}

impl RandomAccessFile for RateLimitedReader {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.limiter.request(buf.len() as u64, self.pri);
        self.inner.read_exact_at(offset, buf)
    }
    fn size(&self) -> Result<u64> {
        self.inner.size()
    }
    fn advise(&self, pattern: AccessPattern) -> Result<()> {
        self.inner.advise(pattern)
    }
    fn readahead(&self, offset: u64, len: u64) -> Result<()> {
        // A hint to the OS; the bytes are charged when they are actually read.
        self.inner.readahead(offset, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    #[test]
    fn burst_is_rate_times_period() {
        let b = Bucket::new(10 * MB, 100_000, 10, 0);
        assert_eq!(b.burst(), MB);
        assert_eq!(b.available(), MB);
        assert_eq!(Bucket::new(5, 100_000, 10, 0).burst(), 1);
    }

    #[test]
    fn requests_within_the_tokens_go_now_then_queue_until_a_refill() {
        let mut b = Bucket::new(10 * MB, 100_000, 10, 0);
        assert_eq!(b.request(MB / 2, IoPriority::Low, 0), Grant::Now);
        assert_eq!(b.request(MB / 2, IoPriority::Low, 10), Grant::Now);
        assert_eq!(b.available(), 0);
        let Grant::Queued(id) = b.request(MB / 4, IoPriority::Low, 20) else {
            panic!("granted without tokens");
        };
        b.refill_if_due(99_999);
        assert!(!b.is_granted(id), "granted before the period ended");
        b.refill_if_due(100_000);
        assert!(b.is_granted(id));
        assert_eq!(b.available(), MB - MB / 4);
        assert_eq!(b.next_refill_us(), 200_000);
    }

    #[test]
    fn idle_time_does_not_pile_up_tokens() {
        let mut b = Bucket::new(10 * MB, 100_000, 10, 0);
        assert_eq!(b.request(MB, IoPriority::High, 0), Grant::Now);
        b.refill_if_due(10_000_000);
        assert_eq!(b.available(), MB);
    }

    #[test]
    fn high_priority_first_except_every_fairness_th_refill() {
        let mut b = Bucket::new(10 * MB, 100_000, 3, 0);
        assert_eq!(b.request(MB, IoPriority::Low, 0), Grant::Now);
        let Grant::Queued(low) = b.request(MB, IoPriority::Low, 0) else {
            panic!()
        };
        let Grant::Queued(high1) = b.request(MB, IoPriority::High, 0) else {
            panic!()
        };
        let Grant::Queued(high2) = b.request(MB, IoPriority::High, 0) else {
            panic!()
        };
        // Refill 1 and 2: high first.
        b.refill_if_due(100_000);
        assert!(b.is_granted(high1) && !b.is_granted(low));
        b.refill_if_due(200_000);
        assert!(b.is_granted(high2) && !b.is_granted(low));
        // A new high request arrives; refill 3 (the fairness-th) serves low first.
        let Grant::Queued(high3) = b.request(MB, IoPriority::High, 250_000) else {
            panic!()
        };
        b.refill_if_due(300_000);
        assert!(b.is_granted(low) && !b.is_granted(high3));
        b.refill_if_due(400_000);
        assert!(b.is_granted(high3));
        assert_eq!(b.total_requests(IoPriority::High), 3);
        assert_eq!(b.total_bytes(IoPriority::Low), 2 * MB);
    }

    #[test]
    fn partial_grants_carry_over_refills() {
        let mut b = Bucket::new(10 * MB, 100_000, 10, 0);
        assert_eq!(b.request(MB, IoPriority::Low, 0), Grant::Now);
        let Grant::Queued(a) = b.request(MB, IoPriority::Low, 0) else {
            panic!()
        };
        b.set_rate(5 * MB); // burst now MB / 2
        b.refill_if_due(100_000);
        assert!(!b.is_granted(a));
        assert_eq!(b.available(), 0);
        b.refill_if_due(200_000);
        assert!(b.is_granted(a));
    }

    #[test]
    fn settings_are_checked() {
        assert!(RateLimiter::new(0, 100_000, 10).is_err());
        assert!(RateLimiter::new(1, 0, 10).is_err());
        assert!(RateLimiter::new(1, 1, 0).is_err());
        let l = RateLimiter::with_rate(MB).expect("limiter");
        assert!(l.set_bytes_per_second(0).is_err());
        l.set_bytes_per_second(2 * MB).expect("set");
        assert_eq!(l.bytes_per_second(), 2 * MB);
        assert_eq!(l.single_burst_bytes(), 2 * MB / 10);
    }

    #[test]
    fn modes_parse_in_rocksdb_spelling_and_choose_what_is_charged() {
        for m in [
            RateLimiterMode::ReadsOnly,
            RateLimiterMode::WritesOnly,
            RateLimiterMode::AllIo,
        ] {
            assert_eq!(m.name().parse::<RateLimiterMode>().expect("parse"), m);
        }
        assert!("kAll".parse::<RateLimiterMode>().is_err());
        assert_eq!(RateLimiterMode::default(), RateLimiterMode::WritesOnly);
        assert!(RateLimiterMode::ReadsOnly.limits_reads());
        assert!(!RateLimiterMode::ReadsOnly.limits_writes());
        assert!(!RateLimiterMode::WritesOnly.limits_reads());
        assert!(RateLimiterMode::AllIo.limits_reads() && RateLimiterMode::AllIo.limits_writes());
        let l = RateLimiter::with_mode(MB, 100_000, 10, RateLimiterMode::AllIo).expect("l");
        assert_eq!(l.mode(), RateLimiterMode::AllIo);
        assert_eq!(
            RateLimiter::with_rate(MB).expect("l").mode(),
            RateLimiterMode::WritesOnly
        );
    }

    #[test]
    fn reads_are_charged_only_when_the_mode_limits_reads() {
        use crate::fs::{FileSystem, MemFs};
        let fs = MemFs::new();
        let path = std::path::Path::new("/f");
        let mut w = fs.create(path).expect("create");
        w.append(&[7u8; 1000]).expect("append");
        w.sync().expect("sync");
        for (mode, charged) in [
            (RateLimiterMode::WritesOnly, 0),
            (RateLimiterMode::ReadsOnly, 300),
            (RateLimiterMode::AllIo, 300),
        ] {
            let l = Arc::new(RateLimiter::with_mode(10 * MB, 100_000, 10, mode).expect("l"));
            let r = RateLimitedReader::wrap(
                fs.open_read(path).expect("open"),
                Some(&l),
                IoPriority::Low,
            );
            let mut buf = [0u8; 300];
            r.read_exact_at(100, &mut buf).expect("read");
            assert_eq!(buf, [7u8; 300]);
            assert_eq!(l.total_bytes_through(IoPriority::Low), charged, "{mode:?}");
            let mut out = RateLimitedFile::wrap(
                fs.create(std::path::Path::new("/g")).expect("c"),
                Some(&l),
                IoPriority::High,
            );
            out.append(&[1u8; 50]).expect("append");
            let writes = if mode.limits_writes() { 50 } else { 0 };
            assert_eq!(l.total_bytes_through(IoPriority::High), writes, "{mode:?}");
        }
    }

    #[test]
    fn requests_with_tokens_do_not_wait() {
        let clock = Arc::new(crate::options::ManualClock::new(1));
        let l = RateLimiter::with_clock(10 * MB, 100_000, 10, clock.clone()).expect("limiter");
        // Within the first burst: granted at once, whatever the (frozen) clock says.
        l.request(MB, IoPriority::High);
        assert_eq!(l.total_bytes_through(IoPriority::High), MB);
        // The next burst needs a refill: advance the clock past it first.
        clock.advance(Duration::from_millis(100));
        l.request(MB, IoPriority::Low);
        assert_eq!(l.total_requests(IoPriority::Low), 1);
    }
}
