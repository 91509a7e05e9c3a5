//! `--options "<RocksDB option string>"` and `--ignore-unknown-options`, taken by every verb that
//! opens a database, and the check that a directory holds a database before a verb that must
//! not create one opens it.

use std::path::Path;

use cairndb::options::{Options, ParseConfig};
use cairndb::{Error, Result};
use clap::Args;

/// Options for opening a database from the command line.
#[derive(Debug, Clone, Default, Args)]
pub struct OptionsArgs {
    /// A RocksDB option string applied over the defaults, with database and column-family
    /// options mixed as RocksDB's GetOptionsFromString takes them, e.g.
    /// "write_buffer_size=256m;block_based_table_factory={filter_policy=bloomfilter:10:false}".
    #[arg(long = "options", value_name = "STRING")]
    pub options: Option<String>,
    /// Skip options in --options that CairnDB does not know or support, with a warning on
    /// stderr, instead of failing.
    #[arg(long)]
    pub ignore_unknown_options: bool,
}

impl OptionsArgs {
    /// The default options updated by `--options`; warnings for skipped options go to stderr.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming a malformed pair, a bad value, or (without
    /// `--ignore-unknown-options`) an unknown option.
    pub fn build(&self) -> Result<Options> {
        let mut options = Options::default();
        if let Some(s) = &self.options {
            let cfg = ParseConfig {
                ignore_unknown_options: self.ignore_unknown_options,
            };
            let warnings = options.apply_options_string(s, &cfg).map_err(|e| match e {
                Error::InvalidArgument(m) => Error::InvalidArgument(format!("--options: {m}")),
                other => other,
            })?;
            for w in warnings {
                eprintln!("cairn: warning: {w}");
            }
        }
        Ok(options)
    }
}

/// Fails unless `dir` holds a database (a CURRENT file), so that verbs other than `put` never
/// create one by accident.
///
/// # Errors
/// [`Error::InvalidArgument`] saying whether the directory is missing or holds no database.
pub fn require_db(dir: &Path) -> Result<()> {
    if dir.join("CURRENT").is_file() {
        return Ok(());
    }
    let what = if dir.is_dir() {
        "holds no CairnDB database (no CURRENT file)"
    } else {
        "does not exist, so it holds no CairnDB database"
    };
    Err(Error::InvalidArgument(format!("{} {what}", dir.display())))
}
