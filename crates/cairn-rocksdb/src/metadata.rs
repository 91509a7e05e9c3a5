//! What a database is made of: its live table files (`live_files`), a family's size and file
//! count (`get_column_family_metadata`) and key ranges for `get_approximate_sizes`.

/// A key range `[start_key, end_key)`.
#[derive(Debug, Clone, Copy)]
pub struct Range<'a> {
    pub(crate) start_key: &'a [u8],
    pub(crate) end_key: &'a [u8],
}

impl<'a> Range<'a> {
    /// The range `[start_key, end_key)`.
    pub fn new(start_key: &'a [u8], end_key: &'a [u8]) -> Range<'a> {
        Range { start_key, end_key }
    }
}

/// A column family's table files, in sum.
#[derive(Debug, Clone)]
pub struct ColumnFamilyMetaData {
    /// The bytes of its live table files.
    pub size: u64,
    /// Its name.
    pub name: String,
    /// The number of its live table files.
    pub file_count: usize,
}

/// A live table file.
#[derive(Debug, Clone)]
pub struct LiveFile {
    /// The column family it belongs to.
    pub column_family_name: String,
    /// Its name, with a leading `/` as RocksDB gives it (`/000012.sst`).
    pub name: String,
    /// Its size in bytes.
    pub size: usize,
    /// Its level.
    pub level: i32,
    /// Its smallest user key.
    pub start_key: Option<Vec<u8>>,
    /// Its largest user key.
    pub end_key: Option<Vec<u8>>,
    /// Its entries (of every kind).
    pub num_entries: u64,
    /// Its point deletions.
    pub num_deletions: u64,
}

/// Metadata of `cf`'s current version.
pub(crate) fn family_metadata(
    db: &cairndb::Db,
    cf: &cairndb::ColumnFamily,
) -> ColumnFamilyMetaData {
    let files: Vec<_> = db.level_files_cf(cf).into_iter().flatten().collect();
    ColumnFamilyMetaData {
        size: files.iter().map(|f| f.size).sum(),
        name: cf.name().to_string(),
        file_count: files.len(),
    }
}

/// The live table files of every family, with their entry counts from their properties.
pub(crate) fn live_files(db: &cairndb::Db) -> Result<Vec<LiveFile>, crate::Error> {
    let mut out = Vec::new();
    for cf in db.column_families() {
        let counts: std::collections::HashMap<String, (u64, u64)> = db
            .get_properties_of_all_tables_cf(&cf)?
            .into_iter()
            .map(|t| {
                (
                    t.file_name,
                    (t.properties.num_entries, t.properties.num_deletions),
                )
            })
            .collect();
        for (level, files) in db.level_files_cf(&cf).into_iter().enumerate() {
            for f in files {
                let file_name = format!("{:06}.sst", f.number);
                let (num_entries, num_deletions) =
                    counts.get(&file_name).copied().unwrap_or_default();
                let user = |ikey: &[u8]| cairndb::types::user_key(ikey).to_vec();
                out.push(LiveFile {
                    column_family_name: cf.name().to_string(),
                    name: format!("/{file_name}"),
                    size: f.size as usize,
                    level: level as i32,
                    start_key: Some(user(&f.smallest)),
                    end_key: Some(user(&f.largest)),
                    num_entries,
                    num_deletions,
                });
            }
        }
    }
    Ok(out)
}
