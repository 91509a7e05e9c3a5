//! An error an iterator keeps after it stopped, so that every later `status()` call can return
//! it again (contract 5 of [`crate::iter`]): [`Error`] is not `Clone` because `std::io::Error`
//! is not.
//!
//! Used by the iterators of this module from their own thread only. Invariant: the copy has the
//! same variant, context chain, corruption details, I/O operation, path and OS error code (or
//! kind and message) as the original, so `is_corruption`, `is_io` and `raw_os_error` answer the
//! same for both.

use crate::error::Error;

/// An error that can be handed out any number of times.
#[derive(Debug)]
pub(crate) struct StoredError(Error);

impl StoredError {
    pub(crate) fn new(e: Error) -> Self {
        StoredError(e)
    }

    /// A copy of the stored error.
    pub(crate) fn get(&self) -> Error {
        self.0.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_keep_their_kind() {
        let io = Error::io(
            "read",
            "/x.sst",
            std::io::Error::from_raw_os_error(libc::EIO),
        )
        .context("iterating");
        let s = StoredError::new(io);
        assert!(s.get().is_io());
        assert_eq!(s.get().raw_os_error(), Some(libc::EIO));
        let c = StoredError::new(Error::corruption("/x.sst", 9, "bad"));
        assert_eq!(c.get().as_corruption().map(|c| c.offset), Some(9));
    }
}
