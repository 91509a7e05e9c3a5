//! `cairn advise`: tuning advice from the LSM math (`cairndb::lsm_math`,
//! docs/design/lsm_math.md): the number of levels and growth factor that minimise write
//! amplification for a database's size, and Monkey's filter bits per level for its filter
//! memory, each with its prediction beside the current options' and the option string to apply.
//!
//! Inputs: a database directory (its newest OPTIONS file and the size of its `.sst` files; the
//! database is not opened) and/or flags, which win. What it does not do yet (issue 21): weigh
//! reads, space and memory against writes, read workload statistics, advise per-level
//! compaction policies or a blob threshold.

use std::path::PathBuf;

use cairndb::fs::RealFs;
use cairndb::lsm_math::levels::{best_levels, continuous_optimum, with_growth, LevelCost};
use cairndb::lsm_math::monkey::{
    cache_local_fpr, expected_false_positives, leveled_tree, MAX_L0_RUNS,
};
use cairndb::options::{CfOptions, OptionsFile, ParseConfig};
use cairndb::{Error, Result};
use clap::{Args, ValueEnum};

/// Arguments of `cairn advise`.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// A database directory: its newest OPTIONS file (default column family) gives the current
    /// options, its `.sst` files the size.
    #[arg(long)]
    db: Option<PathBuf>,
    /// The database size in bytes (default: the `.sst` files of --db).
    #[arg(long)]
    db_size: Option<u64>,
    /// The memtable size in bytes (default: --db's write_buffer_size, else 64 MiB).
    #[arg(long)]
    write_buffer_size: Option<u64>,
    /// The current growth factor (default: --db's max_bytes_for_level_multiplier, else 10).
    #[arg(long)]
    multiplier: Option<f64>,
    /// Filter bits per key on average (default: --db's filter_policy bits, else 10).
    #[arg(long)]
    bits_per_key: Option<f64>,
    /// L0 files a lookup probes (default: --db's level0_file_num_compaction_trigger, else 4).
    #[arg(long)]
    l0_files: Option<u32>,
    /// The per-level cost model the advice minimises (all are printed).
    #[arg(long, value_enum, default_value_t = Model::WPlusOne)]
    model: Model,
    /// Most levels below L0 to consider.
    #[arg(long, default_value_t = 12)]
    max_levels: u32,
}

/// The per-level write cost models of `lsm_math::levels`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Model {
    /// `w`: some-to-some merges, the next level's rewrites only.
    W,
    /// `w + 1`: some-to-some merges with the byte's own write (RocksDB's leveled compaction
    /// is between `w` and `w + 1`).
    #[value(name = "w+1")]
    WPlusOne,
    /// `(w + 1)/2`: all-to-all merges.
    #[value(name = "all-to-all")]
    AllToAll,
}

impl Model {
    fn cost(self) -> LevelCost {
        match self {
            Model::W => LevelCost::SomeToSome,
            Model::WPlusOne => LevelCost::SomeToSomeWithOwnWrite,
            Model::AllToAll => LevelCost::AllToAll,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Model::W => "w",
            Model::WPlusOne => "w+1",
            Model::AllToAll => "(w+1)/2",
        }
    }
}

/// The inputs once the directory and the flags are combined.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Inputs {
    db_size: f64,
    write_buffer_size: f64,
    multiplier: f64,
    bits_per_key: f64,
    l0_files: u32,
}

fn inputs(args: &AdviseArgs) -> Result<Inputs> {
    let mut cf = CfOptions::default();
    let mut size = None;
    if let Some(dir) = &args.db {
        crate::dbopts::require_db(dir)?;
        let fs = RealFs::shared();
        if let Some(path) = OptionsFile::latest(&*fs, dir)? {
            let (file, _) = OptionsFile::load(&*fs, &path, &ParseConfig::default())?;
            if let Some(o) = file.family("default") {
                cf = o.clone();
            }
        }
        let mut total = 0u64;
        let list = std::fs::read_dir(dir).map_err(|e| Error::io("list", dir, e))?;
        for entry in list {
            let entry = entry.map_err(|e| Error::io("list", dir, e))?;
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "sst") {
                total += entry
                    .metadata()
                    .map_err(|e| Error::io("stat", &path, e))?
                    .len();
            }
        }
        size = Some(total);
    }
    let db_size = args
        .db_size
        .or(size)
        .ok_or_else(|| Error::InvalidArgument("cairn advise needs --db or --db-size".into()))?;
    let i = Inputs {
        db_size: db_size as f64,
        write_buffer_size: args
            .write_buffer_size
            .unwrap_or(cf.write_buffer_size as u64) as f64,
        multiplier: args.multiplier.unwrap_or(cf.max_bytes_for_level_multiplier),
        bits_per_key: args.bits_per_key.unwrap_or(cf.table.bloom_bits_per_key),
        l0_files: args
            .l0_files
            .unwrap_or(cf.level0_file_num_compaction_trigger.max(1)),
    };
    // Written so that NaN fails every check.
    let fine = i.write_buffer_size > 0.0
        && i.multiplier > 1.0
        && i.multiplier.is_finite()
        && (0.0..=100.0).contains(&i.bits_per_key)
        && (1..=MAX_L0_RUNS as u32).contains(&i.l0_files)
        && args.max_levels >= 1;
    if !fine {
        return Err(Error::InvalidArgument(format!(
            "need a positive write buffer size, a finite multiplier above 1, bits per key in \
             0..=100, 1..={MAX_L0_RUNS} L0 files and --max-levels >= 1: {i:?}, --max-levels {}",
            args.max_levels
        )));
    }
    Ok(i)
}

/// Filter bits per key of L0 (first) and of each level below, Monkey's allocation for a tree
/// of `levels` levels growing by `growth` from the memtable (`lsm_math::monkey::leveled_tree`,
/// which `optimize_filters` uses too), and the expected false positives of an absent-key lookup
/// with them and with `bits` everywhere.
fn filter_plan(i: &Inputs, levels: u32, growth: f64) -> (Vec<f64>, f64, f64) {
    let sizes: Vec<f64> = (1..=levels)
        .map(|l| i.write_buffer_size * growth.powi(l as i32))
        .collect();
    let l0 = i.l0_files as usize;
    let (l0_bits, level_bits) = leveled_tree(l0, i.write_buffer_size, &sizes, i.bits_per_key);
    let mut runs = vec![l0_bits; l0];
    runs.extend_from_slice(&level_bits);
    let monkey = expected_false_positives(&runs, cache_local_fpr);
    let uniform = expected_false_positives(&vec![i.bits_per_key; runs.len()], cache_local_fpr);
    let mut per_level = vec![l0_bits];
    per_level.extend(level_bits);
    (per_level, monkey, uniform)
}

/// Prints the advice.
///
/// # Errors
/// Missing or invalid inputs; an unreadable directory or OPTIONS file.
pub fn advise(args: &AdviseArgs) -> Result<()> {
    let i = inputs(args)?;
    let fanout = i.db_size / i.write_buffer_size;
    println!(
        "database {:.0} bytes, write buffer {:.0} bytes: total fanout T = {fanout:.1}",
        i.db_size, i.write_buffer_size
    );
    let current = with_growth(LevelCost::SomeToSome, fanout, i.multiplier);
    println!(
        "current: growth {} -> {} levels below L0 (sized from the bottom, the first takes the \
         rest)",
        i.multiplier, current.levels
    );
    println!();
    println!("model     best levels  growth  write-amp  (continuous optimum)  current write-amp");
    for m in [Model::W, Model::WPlusOne, Model::AllToAll] {
        let best = best_levels(m.cost(), fanout, args.max_levels);
        let cont = continuous_optimum(m.cost(), fanout).map_or("none".to_string(), |c| {
            format!("{:.2} levels, w {:.2}", c.levels, c.growth)
        });
        let now = with_growth(m.cost(), fanout, i.multiplier).write_amp;
        println!(
            "{:<9} {:>11} {:>7.2} {:>10.1}  {:<20}  {now:.1}",
            m.name(),
            best.levels,
            best.growth,
            best.write_amp,
            cont
        );
    }
    let model = args.model;
    let advice = best_levels(model.cost(), fanout, args.max_levels);
    let levels = advice.levels as u32;
    println!();
    println!(
        "advice ({} model): {levels} levels below L0, growth {:.2}: predicted write-amp {:.1} \
         (current {:.1})",
        model.name(),
        advice.growth,
        advice.write_amp,
        with_growth(model.cost(), fanout, i.multiplier).write_amp
    );
    let (bits, monkey, uniform) = filter_plan(&i, levels, advice.growth);
    let shown: Vec<String> = bits.iter().map(|b| format!("{b:.1}")).collect();
    println!(
        "filters at {} bits per key ({} L0 files probed): Monkey's bits per key, L0 first: {}",
        i.bits_per_key,
        i.l0_files,
        shown.join(" ")
    );
    println!(
        "  predicted false positives per absent-key lookup: {monkey:.4} (uniform {uniform:.4})"
    );
    println!(
        "  a lookup probes {} L0 files and {levels} levels (current: {}); the advice weighs \
         writes only",
        i.l0_files, current.levels
    );
    println!();
    println!("options: {}", option_string(&i, levels, advice.growth));
    Ok(())
}

/// The option string that applies `levels` levels below L0 and growth `growth`: with dynamic
/// level bytes, a level base of one write buffer times the growth keeps exactly that many
/// levels (the last holds the data, each above `growth` times less). Monkey's filters when
/// there are filter bits, replacing per-level bits and `optimize_filters_for_hits`, which it
/// cannot be combined with.
fn option_string(i: &Inputs, levels: u32, growth: f64) -> String {
    let base = (i.write_buffer_size * growth).round() as u64;
    let filters = if i.bits_per_key > 0.0 {
        ";optimize_filters=true;bloom_bits_per_key_per_level=;optimize_filters_for_hits=false"
    } else {
        ""
    };
    format!(
        "num_levels={};max_bytes_for_level_multiplier={growth:.2};\
         max_bytes_for_level_base={base};level_compaction_dynamic_level_bytes=true{filters}",
        levels + 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(db_size: u64) -> AdviseArgs {
        AdviseArgs {
            db: None,
            db_size: Some(db_size),
            write_buffer_size: Some(64 << 20),
            multiplier: None,
            bits_per_key: None,
            l0_files: None,
            model: Model::WPlusOne,
            max_levels: 12,
        }
    }

    #[test]
    fn inputs_default_to_cairndbs_options_and_need_a_size() {
        let i = inputs(&flags(64 << 30)).unwrap();
        assert_eq!((i.multiplier, i.bits_per_key, i.l0_files), (10.0, 10.0, 4));
        let mut none = flags(1);
        none.db_size = None;
        assert!(inputs(&none).is_err());
        let mut bad = flags(1 << 30);
        bad.multiplier = Some(1.0);
        assert!(inputs(&bad).is_err());
        let mut bad = flags(1 << 30);
        bad.max_levels = 0;
        assert!(inputs(&bad).is_err());
        for nan in [Some(f64::NAN), Some(f64::INFINITY)] {
            let mut bad = flags(1 << 30);
            bad.multiplier = nan;
            assert!(inputs(&bad).is_err());
        }
        let mut bad = flags(1 << 30);
        bad.bits_per_key = Some(f64::NAN);
        assert!(inputs(&bad).is_err());
        let mut bad = flags(1 << 30);
        bad.l0_files = Some(1 << 20);
        assert!(inputs(&bad).is_err());
    }

    /// 64 GiB over 64 MiB buffers: T = 1024, so the w+1 model advises 5 levels of growth 4
    /// (the closed form's test vector), and the filter plan beats uniform bits.
    #[test]
    fn filter_plan_for_the_advised_tree() {
        let i = inputs(&flags(64 << 30)).unwrap();
        let advice = best_levels(LevelCost::SomeToSomeWithOwnWrite, 1024.0, 12);
        assert_eq!(advice.levels, 5.0);
        let (bits, monkey, uniform) = filter_plan(&i, 5, advice.growth);
        assert_eq!(bits.len(), 6, "L0 and five levels");
        assert!(bits.windows(2).all(|w| w[0] > w[1]), "{bits:?}");
        assert!(monkey < uniform, "{monkey} {uniform}");
        // Applied over options that had per-level bits, the advice still validates.
        let mut o = CfOptions::from_options_string(
            "bloom_bits_per_key_per_level=20:10;optimize_filters_for_hits=true",
        )
        .unwrap();
        o.apply_options_string(
            &option_string(&i, 5, advice.growth),
            &ParseConfig::default(),
        )
        .unwrap();
        o.validate().expect("the advised options validate");
        assert_eq!((o.num_levels, o.max_bytes_for_level_multiplier), (6, 4.0));
        assert_eq!(o.max_bytes_for_level_base, 4 * (64 << 20));
        assert!(o.optimize_filters && o.bloom_bits_per_key_per_level.is_empty());
        let mut no_bits = i;
        no_bits.bits_per_key = 0.0;
        assert!(!option_string(&no_bits, 5, 4.0).contains("optimize_filters"));
    }
}
