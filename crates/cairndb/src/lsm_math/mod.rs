//! LSM math: closed forms and small optimisations that tuning uses, as pure functions.
//!
//! - [`lambert`]: the Lambert W function (its principal branch), which gives the number of
//!   levels that minimises write amplification when each level costs `w + 1`.
//! - [`levels`]: total write amplification of `n` levels under four per-level cost models, and
//!   the number of levels (and growth factor) that minimises it.
//! - [`monkey`]: Bloom filter bits per run that minimise the expected false positives of a
//!   lookup for a given filter memory (Monkey), for the ideal Bloom curve and for CairnDB's
//!   cache-local filter.
//!
//! The derivations are in `docs/design/lsm_math.md`.

pub mod lambert;
pub mod levels;
pub mod monkey;
