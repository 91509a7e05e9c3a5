/* CairnDB's C API: a subset of RocksDB's C API (include/rocksdb/c.h of RocksDB 11.8.1) with
   RocksDB's function names, signatures and conventions, implemented over CairnDB by the library
   libcairndb_c (.so or .a, crate cairndb-c). 367 of the 1745 functions of RocksDB's header are
   provided; the others are listed at the end of this file. A program written against RocksDB's
   header that uses only the provided functions builds unchanged against this one (the
   rocksdb/c.h beside it includes this file).

   Conventions (crates/cairn-c/src/lib.rs has the full contract):
   - Errors: functions that can fail take char** errptr. On failure *errptr receives a malloc'ed
     message starting with RocksDB's status name ("Invalid argument: ", "NotFound: ",
     "Corruption: ", "IO error: ", ...); free it with rocksdb_free. On success *errptr is left as
     it was.
   - Ownership: release what *_create / rocksdb_open / rocksdb_create_iterator / ... return with
     the matching *_destroy / rocksdb_close / rocksdb_iter_destroy / ...; char* results are
     malloc'ed copies for rocksdb_free. As in RocksDB, options take ownership of a merge
     operator, prefix extractor or filter policy set on them, and borrow a comparator or
     compaction filter (destroy those after the databases using them are closed).
   - Lifetimes: destroy iterators, snapshots, column-family handles, checkpoint objects and
     transactions before closing their database.
   - Threads: databases may be used from many threads at once; every other object from one
     thread at a time. Callbacks (comparators, merge operators, compaction filters) are called
     from the database's threads and must be thread-safe.
   - Options are honoured or refused: a setter given a value CairnDB does not support (say
     rocksdb_zlib_compression) makes the open with those options fail with "Invalid argument"
     naming the setter. Defaults are CairnDB's (docs/design/options.md), which differ from
     RocksDB's in places (LZ4 compression, for one); block-based table options get RocksDB's
     32 MiB block cache unless another is set or no_block_cache is 1.
   - Differences that remain: rocksdb_flush with wait = 0 is refused ("Not implemented");
     rocksdb_key_may_exist answers with
     a full read; a transaction's iterator sees the transaction's writes made before it, not
     later ones; a batch that refused a record
     (rather than dropping it, as RocksDB does) fails its writes until the record is rolled back
     or the batch cleared; rocksdb_transactiondb_get_prepared_transactions returns the prepared
     transactions no handle holds. A comparator must be a consistent total order: one that is
     not may abort the process. */

#ifndef CAIRNDB_C_H
#define CAIRNDB_C_H

#ifndef CAIRNDB_API
#define CAIRNDB_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Types (opaque) ---- */

typedef struct rocksdb_t rocksdb_t;
typedef struct rocksdb_block_based_table_options_t rocksdb_block_based_table_options_t;
typedef struct rocksdb_cache_t rocksdb_cache_t;
typedef struct rocksdb_checkpoint_t rocksdb_checkpoint_t;
typedef struct rocksdb_column_family_handle_t rocksdb_column_family_handle_t;
typedef struct rocksdb_compactionfilter_t rocksdb_compactionfilter_t;
typedef struct rocksdb_comparator_t rocksdb_comparator_t;
typedef struct rocksdb_filterpolicy_t rocksdb_filterpolicy_t;
typedef struct rocksdb_flushoptions_t rocksdb_flushoptions_t;
typedef struct rocksdb_iterator_t rocksdb_iterator_t;
typedef struct rocksdb_mergeoperator_t rocksdb_mergeoperator_t;
typedef struct rocksdb_optimistictransaction_options_t rocksdb_optimistictransaction_options_t;
typedef struct rocksdb_optimistictransactiondb_t rocksdb_optimistictransactiondb_t;
typedef struct rocksdb_options_t rocksdb_options_t;
typedef struct rocksdb_pinnableslice_t rocksdb_pinnableslice_t;
typedef struct rocksdb_ratelimiter_t rocksdb_ratelimiter_t;
typedef struct rocksdb_readoptions_t rocksdb_readoptions_t;
typedef struct rocksdb_slicetransform_t rocksdb_slicetransform_t;
typedef struct rocksdb_snapshot_t rocksdb_snapshot_t;
typedef struct rocksdb_transaction_options_t rocksdb_transaction_options_t;
typedef struct rocksdb_transaction_t rocksdb_transaction_t;
typedef struct rocksdb_transactiondb_options_t rocksdb_transactiondb_options_t;
typedef struct rocksdb_transactiondb_t rocksdb_transactiondb_t;
typedef struct rocksdb_writebatch_t rocksdb_writebatch_t;
typedef struct rocksdb_writeoptions_t rocksdb_writeoptions_t;

/* ---- Definitions: RocksDB's slice struct and constants as RocksDB numbers them (define
   CAIRNDB_C_NO_DEFINITIONS to leave them out, e.g. when RocksDB's own header is included
   too) ---- */

#ifndef CAIRNDB_C_NO_DEFINITIONS
/* A key or value by pointer and length (no copy), as the *_slice functions return it. */
typedef struct rocksdb_slice_t {
  const char* data;
  size_t size;
} rocksdb_slice_t;

/* Compression types. CairnDB has none, snappy, lz4 and zstd; the others are refused. */
enum {
  rocksdb_no_compression = 0,
  rocksdb_snappy_compression = 1,
  rocksdb_zlib_compression = 2,
  rocksdb_bz2_compression = 3,
  rocksdb_lz4_compression = 4,
  rocksdb_lz4hc_compression = 5,
  rocksdb_xpress_compression = 6,
  rocksdb_zstd_compression = 7
};
enum {
  rocksdb_level_compaction = 0,
  rocksdb_universal_compaction = 1,
  rocksdb_fifo_compaction = 2
};
enum {
  rocksdb_k_by_compensated_size_compaction_pri = 0,
  rocksdb_k_oldest_largest_seq_first_compaction_pri = 1,
  rocksdb_k_oldest_smallest_seq_first_compaction_pri = 2,
  rocksdb_k_min_overlapping_ratio_compaction_pri = 3,
  rocksdb_k_round_robin_compaction_pri = 4
};
enum {
  rocksdb_tolerate_corrupted_tail_records_recovery = 0,
  rocksdb_absolute_consistency_recovery = 1,
  rocksdb_point_in_time_recovery = 2,
  rocksdb_skip_any_corrupted_records_recovery = 3
};
#endif

/* ---- Memory ---- */

/* Frees what this library returned with malloc: values, property strings, error strings. */
extern CAIRNDB_API void rocksdb_free(void* ptr);

/* ---- Options (rocksdb_options_t) ---- */

extern CAIRNDB_API rocksdb_options_t* rocksdb_options_create(void);
extern CAIRNDB_API void rocksdb_options_destroy(rocksdb_options_t*);
extern CAIRNDB_API rocksdb_options_t* rocksdb_options_create_copy(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_disable_auto_compactions(rocksdb_options_t*, int);
extern CAIRNDB_API unsigned char rocksdb_options_get_disable_auto_compactions(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_optimize_filters_for_hits(rocksdb_options_t*, int);
extern CAIRNDB_API unsigned char rocksdb_options_get_optimize_filters_for_hits(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_compaction_readahead_size(rocksdb_options_t*, size_t);
extern CAIRNDB_API size_t rocksdb_options_get_compaction_readahead_size(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_compression(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_compression(rocksdb_options_t*);
/* RocksDB's bottommost compression; kDisableCompressionOption (0xff) turns it off (the bottom
   level then uses compression like the others). */
extern CAIRNDB_API void rocksdb_options_set_bottommost_compression(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_bottommost_compression(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_compression_per_level(rocksdb_options_t* opt, const int* level_values, size_t num_levels);
/* Borrows cmp (RocksDB's rule: the comparator must outlive every database opened with it). */
extern CAIRNDB_API void rocksdb_options_set_comparator(rocksdb_options_t*, rocksdb_comparator_t*);
/* Takes ownership of merge_operator (do not destroy it afterwards), as RocksDB does. */
extern CAIRNDB_API void rocksdb_options_set_merge_operator(rocksdb_options_t*, rocksdb_mergeoperator_t*);
extern CAIRNDB_API void rocksdb_options_set_uint64add_merge_operator(rocksdb_options_t*);
/* Shares filter (RocksDB only borrows it: the caller destroys it after the databases using it are
   closed, which is safe here too). */
extern CAIRNDB_API void rocksdb_options_set_compaction_filter(rocksdb_options_t*, rocksdb_compactionfilter_t*);
/* Takes ownership of prefix_extractor (do not destroy it afterwards), as RocksDB does. */
extern CAIRNDB_API void rocksdb_options_set_prefix_extractor(rocksdb_options_t*, rocksdb_slicetransform_t*);
/* Copies the table options (later changes to table_options do not reach these options). */
extern CAIRNDB_API void rocksdb_options_set_block_based_table_factory(rocksdb_options_t* opt, rocksdb_block_based_table_options_t* table_options);
/* A limiter of rate_bytes_per_sec, refilled every refill_period_us, with RocksDB's fairness.
   Parameters out of range make every open with these options fail, naming them. */
extern CAIRNDB_API rocksdb_ratelimiter_t* rocksdb_ratelimiter_create(int64_t rate_bytes_per_sec, int64_t refill_period_us, int32_t fairness);
extern CAIRNDB_API void rocksdb_ratelimiter_destroy(rocksdb_ratelimiter_t*);
/* Shares limiter (it may be destroyed afterwards, as in RocksDB); NULL changes nothing. */
extern CAIRNDB_API void rocksdb_options_set_ratelimiter(rocksdb_options_t* opt, rocksdb_ratelimiter_t* limiter);
extern CAIRNDB_API void rocksdb_options_enable_statistics(rocksdb_options_t*);
/* RocksDB's Statistics::ToString() of the options' statistics (malloced), or NULL when statistics
   are off. */
extern CAIRNDB_API char* rocksdb_options_statistics_get_string(rocksdb_options_t* opt);
/* RocksDB's IncreaseParallelism: total_threads background jobs (RocksDB also sizes its thread
   pools; CairnDB's pool follows max_background_jobs). */
extern CAIRNDB_API void rocksdb_options_increase_parallelism(rocksdb_options_t* opt, int total_threads);
/* RocksDB's OptimizeLevelStyleCompaction(memtable_memory_budget), with its formulas: memtables of
   a quarter of the budget, up to six of them, merged two at a time; L0 compaction after two files;
   the whole budget for level 1 and an eighth of it per file; no compression in levels 0 and 1, LZ4
   below. */
extern CAIRNDB_API void rocksdb_options_optimize_level_style_compaction(rocksdb_options_t* opt, uint64_t memtable_memory_budget);
/* Parses RocksDB option string opts_str on top of base_options into new_options (RocksDB's
   GetOptionsFromString). On error new_options is unchanged. */
extern CAIRNDB_API void rocksdb_get_options_from_string(const rocksdb_options_t* base_options, const char* opts_str, rocksdb_options_t* new_options, char** errptr);

/* ---- Block-based table options, block caches, filter policies ---- */

extern CAIRNDB_API rocksdb_block_based_table_options_t* rocksdb_block_based_options_create(void);
extern CAIRNDB_API void rocksdb_block_based_options_destroy(rocksdb_block_based_table_options_t* options);
extern CAIRNDB_API void rocksdb_block_based_options_set_block_size(rocksdb_block_based_table_options_t* opt, size_t v);
extern CAIRNDB_API uint64_t rocksdb_block_based_options_get_block_size(rocksdb_block_based_table_options_t* opt);
/* RocksDB's checksum numbers: 1 is kCRC32c, 4 is kXXH3; CairnDB has no other. */
extern CAIRNDB_API void rocksdb_block_based_options_set_checksum(rocksdb_block_based_table_options_t* opt, char v);
extern CAIRNDB_API int rocksdb_block_based_options_get_checksum(rocksdb_block_based_table_options_t* opt);
/* 1: no block cache (every data-block read goes to the file), whatever cache is set. 0 (the
   default): the cache set with rocksdb_block_based_options_set_block_cache, or, as in RocksDB, a
   new 32 MiB cache (clock eviction, like RocksDB's default HyperClockCache) when none is set. */
extern CAIRNDB_API void rocksdb_block_based_options_set_no_block_cache(rocksdb_block_based_table_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_block_based_options_get_no_block_cache(rocksdb_block_based_table_options_t* opt);
/* Shares block_cache (the caller still destroys its handle, as in RocksDB); NULL changes nothing. */
extern CAIRNDB_API void rocksdb_block_based_options_set_block_cache(rocksdb_block_based_table_options_t* options, rocksdb_cache_t* block_cache);
/* A Bloom filter of bits_per_key (RocksDB's NewBloomFilterPolicy; since RocksDB 7 its "bloom" and
   "bloom_full" both build full filters, as CairnDB does). */
extern CAIRNDB_API rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_bloom(double bits_per_key);
extern CAIRNDB_API rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_bloom_full(double bits_per_key);
extern CAIRNDB_API void rocksdb_filterpolicy_destroy(rocksdb_filterpolicy_t*);
/* Takes ownership of filter_policy (do not destroy it afterwards), as RocksDB does. NULL removes
   the filter. */
extern CAIRNDB_API void rocksdb_block_based_options_set_filter_policy(rocksdb_block_based_table_options_t* options, rocksdb_filterpolicy_t* filter_policy);
/* An LRU cache of capacity bytes (RocksDB's NewLRUCache, default shard count). */
extern CAIRNDB_API rocksdb_cache_t* rocksdb_cache_create_lru(size_t capacity);
/* An LRU cache that refuses inserts (the read then fails with Incomplete/busy) rather than exceed
   capacity when pinned blocks fill it. */
extern CAIRNDB_API rocksdb_cache_t* rocksdb_cache_create_lru_with_strict_capacity_limit(size_t capacity);
/* Releases the caller's handle; databases using the cache keep it alive. */
extern CAIRNDB_API void rocksdb_cache_destroy(rocksdb_cache_t* cache);
extern CAIRNDB_API size_t rocksdb_cache_get_capacity(const rocksdb_cache_t* cache);
extern CAIRNDB_API size_t rocksdb_cache_get_usage(const rocksdb_cache_t* cache);
extern CAIRNDB_API size_t rocksdb_cache_get_pinned_usage(const rocksdb_cache_t* cache);

/* ---- Read, write and flush options ---- */

extern CAIRNDB_API rocksdb_readoptions_t* rocksdb_readoptions_create(void);
extern CAIRNDB_API void rocksdb_readoptions_destroy(rocksdb_readoptions_t*);
/* Reads at snapshot; NULL reads the latest state. */
extern CAIRNDB_API void rocksdb_readoptions_set_snapshot(rocksdb_readoptions_t*, const rocksdb_snapshot_t*);
/* Iterators stop before key (exclusive); NULL removes the bound. */
extern CAIRNDB_API void rocksdb_readoptions_set_iterate_upper_bound(rocksdb_readoptions_t*, const char* key, size_t keylen);
/* Iterators start at key (inclusive); NULL removes the bound. */
extern CAIRNDB_API void rocksdb_readoptions_set_iterate_lower_bound(rocksdb_readoptions_t*, const char* key, size_t keylen);
extern CAIRNDB_API rocksdb_writeoptions_t* rocksdb_writeoptions_create(void);
extern CAIRNDB_API void rocksdb_writeoptions_destroy(rocksdb_writeoptions_t*);
extern CAIRNDB_API void rocksdb_writeoptions_disable_WAL(rocksdb_writeoptions_t* opt, int v);
extern CAIRNDB_API unsigned char rocksdb_writeoptions_get_disable_WAL(rocksdb_writeoptions_t* opt);
extern CAIRNDB_API rocksdb_flushoptions_t* rocksdb_flushoptions_create(void);
extern CAIRNDB_API void rocksdb_flushoptions_destroy(rocksdb_flushoptions_t*);
extern CAIRNDB_API void rocksdb_flushoptions_set_wait(rocksdb_flushoptions_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_flushoptions_get_wait(rocksdb_flushoptions_t* opt);

/* ---- Comparators, merge operators, compaction filters, prefix extractors ---- */

extern CAIRNDB_API rocksdb_comparator_t* rocksdb_comparator_create(void* state, void (*destructor)(void*), int (*compare)(void*, const char* a, size_t alen, const char* b, size_t blen), const char* (*name)(void*));
/* Runs the comparator's destructor and releases the handle. Databases opened with it must be
   closed first (RocksDB's rule). */
extern CAIRNDB_API void rocksdb_comparator_destroy(rocksdb_comparator_t*);
extern CAIRNDB_API rocksdb_mergeoperator_t* rocksdb_mergeoperator_create(void* state, void (*destructor)(void*), char* (*full_merge)(void*, const char* key, size_t key_length, const char* existing_value, size_t existing_value_length, const char* const* operands_list, const size_t* operands_list_length, int num_operands, unsigned char* success, size_t* new_value_length), char* (*partial_merge)(void*, const char* key, size_t key_length, const char* const* operands_list, const size_t* operands_list_length, int num_operands, unsigned char* success, size_t* new_value_length), void (*delete_value)(void*, const char* value, size_t value_length), const char* (*name)(void*));
/* Destroys a merge operator that was not given to options (options own the ones set on them). */
extern CAIRNDB_API void rocksdb_mergeoperator_destroy(rocksdb_mergeoperator_t*);
extern CAIRNDB_API rocksdb_compactionfilter_t* rocksdb_compactionfilter_create(void* state, void (*destructor)(void*), unsigned char (*filter)(void*, int level, const char* key, size_t key_length, const char* existing_value, size_t value_length, char** new_value, size_t* new_value_length, unsigned char* value_changed), const char* (*name)(void*));
/* Runs the filter's destructor and releases the handle. Databases using it must be closed first
   (RocksDB's rule). */
extern CAIRNDB_API void rocksdb_compactionfilter_destroy(rocksdb_compactionfilter_t*);
/* The first len bytes of each key; shorter keys are outside its domain. */
extern CAIRNDB_API rocksdb_slicetransform_t* rocksdb_slicetransform_create_fixed_prefix(size_t);
extern CAIRNDB_API void rocksdb_slicetransform_destroy(rocksdb_slicetransform_t*);

/* ---- Database ---- */

/* Opens (with create_if_missing, creates) the database in directory name; NULL on error. A
   database with column families other than default must be opened with
   rocksdb_open_column_families (RocksDB's rule). */
extern CAIRNDB_API rocksdb_t* rocksdb_open(const rocksdb_options_t* options, const char* name, char** errptr);
/* Opens the database in name read-only (RocksDB's OpenForReadOnly): no lock (another handle may
   be writing it), nothing written, the database as it was at the open; writes fail with
   Not implemented. Families other than default need not be named. error_if_wal_file_exists
   fails the open (Corruption) when a live WAL exists. */
extern CAIRNDB_API rocksdb_t* rocksdb_open_for_read_only(const rocksdb_options_t* options, const char* name, unsigned char error_if_wal_file_exists, char** errptr);
/* Opens the database in name as a secondary instance (RocksDB's OpenAsSecondary): read-only, its
   info log in secondary_path, moved to the primary's current state by
   rocksdb_try_catch_up_with_primary. */
extern CAIRNDB_API rocksdb_t* rocksdb_open_as_secondary(const rocksdb_options_t* options, const char* name, const char* secondary_path, char** errptr);
/* Moves a secondary instance to its primary's current state; Not implemented on a database that
   is not a secondary. */
extern CAIRNDB_API void rocksdb_try_catch_up_with_primary(rocksdb_t* db, char** errptr);
/* Closes the database: waits for background work, syncs what sync writes need, and releases the
   directory. Errors of the close itself are not reported (RocksDB's rocksdb_close has no errptr
   either); what was acknowledged stays as durable as its write options asked. */
extern CAIRNDB_API void rocksdb_close(rocksdb_t* db);
/* Deletes the database in name (RocksDB's DestroyDB): fails with an IO error (the held lock)
   while it is open; a missing directory is not an error. */
extern CAIRNDB_API void rocksdb_destroy_db(const rocksdb_options_t* options, const char* name, char** errptr);
extern CAIRNDB_API void rocksdb_put(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen, const char* val, size_t vallen, char** errptr);
extern CAIRNDB_API void rocksdb_delete(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen, char** errptr);
extern CAIRNDB_API void rocksdb_singledelete(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen, char** errptr);
extern CAIRNDB_API void rocksdb_merge(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen, const char* val, size_t vallen, char** errptr);
/* Applies batch atomically. The batch is unchanged and can be written again. */
extern CAIRNDB_API void rocksdb_write(rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_writebatch_t* batch, char** errptr);
/* The value of key as a malloced buffer of *vallen bytes (free it with rocksdb_free), or NULL with
   *vallen = 0 when the key has none or on error. */
extern CAIRNDB_API char* rocksdb_get(rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key, size_t keylen, size_t* vallen, char** errptr);
/* Reads num_keys keys at one snapshot. For each key i: values_list[i] is a malloced value of
   values_list_sizes[i] bytes or NULL when absent; errs[i] is NULL or a malloced error string. The
   caller frees every non-NULL entry. */
extern CAIRNDB_API void rocksdb_multi_get(rocksdb_t* db, const rocksdb_readoptions_t* options, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
/* The value of key pinned in place, or NULL when absent or on error. Destroy it with
   rocksdb_pinnableslice_destroy. */
extern CAIRNDB_API rocksdb_pinnableslice_t* rocksdb_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key, size_t keylen, char** errptr);
extern CAIRNDB_API const char* rocksdb_pinnableslice_value(const rocksdb_pinnableslice_t* t, size_t* vlen);
extern CAIRNDB_API void rocksdb_pinnableslice_destroy(rocksdb_pinnableslice_t* v);
/* A snapshot of the database now, or NULL when the database is closed or failed. */
extern CAIRNDB_API const rocksdb_snapshot_t* rocksdb_create_snapshot(rocksdb_t* db);
extern CAIRNDB_API void rocksdb_release_snapshot(rocksdb_t* db, const rocksdb_snapshot_t* snapshot);
extern CAIRNDB_API uint64_t rocksdb_snapshot_get_sequence_number(const rocksdb_snapshot_t* snapshot);
extern CAIRNDB_API uint64_t rocksdb_get_latest_sequence_number(rocksdb_t* db);
/* The value of property propname (rocksdb.stats, rocksdb.estimate-num-keys, ...) as a malloced
   string, or NULL when the database has no such property. */
extern CAIRNDB_API char* rocksdb_property_value(rocksdb_t* db, const char* propname);
/* 0 with *out_val set when propname is an integer property; -1 otherwise. */
extern CAIRNDB_API int rocksdb_property_int(rocksdb_t* db, const char* propname, uint64_t* out_val);
/* Changes mutable options of the default column family (RocksDB's SetOptions), all or none. */
extern CAIRNDB_API void rocksdb_set_options(rocksdb_t* db, int count, const char* const keys[], const char* const values[], char** errptr);
/* Changes mutable database options (RocksDB's SetDBOptions), all or none. */
extern CAIRNDB_API void rocksdb_set_db_options(rocksdb_t* db, int count, const char* const keys[], const char* const values[], char** errptr);
/* Flushes every column family's memtables to table files and waits for it. */
extern CAIRNDB_API void rocksdb_flush(rocksdb_t* db, const rocksdb_flushoptions_t* options, char** errptr);
/* Compacts the keys in [start_key, limit_key] (NULL: unbounded) down the tree and waits for it.
   Errors are not reported (RocksDB's signature has no errptr). */
extern CAIRNDB_API void rocksdb_compact_range(rocksdb_t* db, const char* start_key, size_t start_key_len, const char* limit_key, size_t limit_key_len);
/* Approximate bytes on disk of each range [start, limit) (table files only, as RocksDB's default). */
extern CAIRNDB_API void rocksdb_approximate_sizes(rocksdb_t* db, int num_ranges, const char* const* range_start_key, const size_t* range_start_key_len, const char* const* range_limit_key, const size_t* range_limit_key_len, uint64_t* sizes, char** errptr);
/* Whether key may exist; RocksDB's contract: 0 means it certainly does not. CairnDB answers with a
   full read (so *value_found is 1 whenever the answer is 1 and value is given). */
extern CAIRNDB_API unsigned char rocksdb_key_may_exist(rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key, size_t key_len, char** value, size_t* val_len, const char* timestamp, size_t timestamp_len, unsigned char* value_found);

/* ---- Column families ---- */

/* Opens the database with options for num_column_families families and stores a handle for each in
   column_family_handles, in order. As in RocksDB, the list must name every family the database
   has, default included (Invalid argument: Column families not opened: ...); with
   create_missing_column_families, families it names that the database lacks are created. */
extern CAIRNDB_API rocksdb_t* rocksdb_open_column_families(const rocksdb_options_t* options, const char* name, int num_column_families, const char* const* column_family_names, const rocksdb_options_t* const* column_family_options, rocksdb_column_family_handle_t** column_family_handles, char** errptr);
/* The names of the database's column families (default first) as a malloced array of *lencf
   malloced strings; free it with rocksdb_list_column_families_destroy. */
extern CAIRNDB_API char** rocksdb_list_column_families(const rocksdb_options_t* options, const char* name, size_t* lencf, char** errptr);
extern CAIRNDB_API void rocksdb_list_column_families_destroy(char** list, size_t len);
/* Creates family column_family_name with the column-family part of column_family_options. */
extern CAIRNDB_API rocksdb_column_family_handle_t* rocksdb_create_column_family(rocksdb_t* db, const rocksdb_options_t* column_family_options, const char* column_family_name, char** errptr);
/* Drops the family; the handle stays valid (for destruction) but every call through it fails. */
extern CAIRNDB_API void rocksdb_drop_column_family(rocksdb_t* db, rocksdb_column_family_handle_t* handle, char** errptr);
extern CAIRNDB_API rocksdb_column_family_handle_t* rocksdb_get_default_column_family_handle(rocksdb_t* db);
extern CAIRNDB_API void rocksdb_column_family_handle_destroy(rocksdb_column_family_handle_t*);
extern CAIRNDB_API uint32_t rocksdb_column_family_handle_get_id(rocksdb_column_family_handle_t* handle);
/* The family's name as a malloced buffer of *name_len bytes (not NUL-terminated, as in RocksDB);
   free it with rocksdb_free. */
extern CAIRNDB_API char* rocksdb_column_family_handle_get_name(rocksdb_column_family_handle_t* handle, size_t* name_len);
extern CAIRNDB_API void rocksdb_put_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* val, size_t vallen, char** errptr);
extern CAIRNDB_API void rocksdb_delete_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
extern CAIRNDB_API void rocksdb_singledelete_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
extern CAIRNDB_API void rocksdb_merge_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* val, size_t vallen, char** errptr);
/* Deletes every key in [start_key, end_key) of the family (a range tombstone). */
extern CAIRNDB_API void rocksdb_delete_range_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* start_key, size_t start_key_len, const char* end_key, size_t end_key_len, char** errptr);
extern CAIRNDB_API char* rocksdb_get_cf(rocksdb_t* db, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, size_t* vallen, char** errptr);
extern CAIRNDB_API rocksdb_pinnableslice_t* rocksdb_get_pinned_cf(rocksdb_t* db, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
/* rocksdb_multi_get with a family per key, every key read at one snapshot. */
extern CAIRNDB_API void rocksdb_multi_get_cf(rocksdb_t* db, const rocksdb_readoptions_t* options, const rocksdb_column_family_handle_t* const* column_families, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
extern CAIRNDB_API unsigned char rocksdb_key_may_exist_cf(rocksdb_t* db, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t key_len, char** value, size_t* val_len, const char* timestamp, size_t timestamp_len, unsigned char* value_found);
extern CAIRNDB_API char* rocksdb_property_value_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* propname);
extern CAIRNDB_API int rocksdb_property_int_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* propname, uint64_t* out_val);
extern CAIRNDB_API void rocksdb_set_options_cf(rocksdb_t* db, rocksdb_column_family_handle_t* handle, int count, const char* const keys[], const char* const values[], char** errptr);
extern CAIRNDB_API void rocksdb_flush_cf(rocksdb_t* db, const rocksdb_flushoptions_t* options, rocksdb_column_family_handle_t* column_family, char** errptr);
extern CAIRNDB_API void rocksdb_compact_range_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* start_key, size_t start_key_len, const char* limit_key, size_t limit_key_len);
extern CAIRNDB_API void rocksdb_approximate_sizes_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family, int num_ranges, const char* const* range_start_key, const size_t* range_start_key_len, const char* const* range_limit_key, const size_t* range_limit_key_len, uint64_t* sizes, char** errptr);

/* ---- Write batches ---- */

extern CAIRNDB_API rocksdb_writebatch_t* rocksdb_writebatch_create(void);
/* A batch with room for reserved_bytes, refusing records past max_bytes (0: no limit), with per-
   record checksums when protection_bytes_per_key is 8 (0: none; RocksDB accepts only these two).
   User-defined timestamps (default_cf_ts_sz other than 0) are not supported: such a batch refuses
   every write. */
extern CAIRNDB_API rocksdb_writebatch_t* rocksdb_writebatch_create_with_params(size_t reserved_bytes, size_t max_bytes, size_t protection_bytes_per_key, size_t default_cf_ts_sz);
/* A batch from the representation rocksdb_writebatch_data gave. A damaged representation makes an
   empty batch whose writes fail with the Corruption found. */
extern CAIRNDB_API rocksdb_writebatch_t* rocksdb_writebatch_create_from(const char* rep, size_t size);
extern CAIRNDB_API void rocksdb_writebatch_destroy(rocksdb_writebatch_t*);
/* Removes every record and save point, and forgets a refused record (but not a refused creation
   parameter). */
extern CAIRNDB_API void rocksdb_writebatch_clear(rocksdb_writebatch_t* b);
extern CAIRNDB_API int rocksdb_writebatch_count(rocksdb_writebatch_t*);
/* Checks each record against the checksum taken when it was added (protected batches only; an
   unprotected batch has nothing to check). Corruption on a mismatch. */
extern CAIRNDB_API void rocksdb_writebatch_verify_checksum(rocksdb_writebatch_t* b, char** errptr);
extern CAIRNDB_API void rocksdb_writebatch_put(rocksdb_writebatch_t* b, const char* key, size_t klen, const char* val, size_t vlen);
extern CAIRNDB_API void rocksdb_writebatch_put_cf(rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, const char* val, size_t vlen);
/* Puts one record whose key and value are the concatenations of the given parts. */
extern CAIRNDB_API void rocksdb_writebatch_putv(rocksdb_writebatch_t* b, int num_keys, const char* const* keys_list, const size_t* keys_list_sizes, int num_values, const char* const* values_list, const size_t* values_list_sizes);
extern CAIRNDB_API void rocksdb_writebatch_putv_cf(rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, int num_keys, const char* const* keys_list, const size_t* keys_list_sizes, int num_values, const char* const* values_list, const size_t* values_list_sizes);
extern CAIRNDB_API void rocksdb_writebatch_merge(rocksdb_writebatch_t*, const char* key, size_t klen, const char* val, size_t vlen);
extern CAIRNDB_API void rocksdb_writebatch_merge_cf(rocksdb_writebatch_t*, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, const char* val, size_t vlen);
extern CAIRNDB_API void rocksdb_writebatch_delete(rocksdb_writebatch_t* b, const char* key, size_t klen);
extern CAIRNDB_API void rocksdb_writebatch_delete_cf(rocksdb_writebatch_t*, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen);
/* Deletes one key: the concatenation of the given parts. */
extern CAIRNDB_API void rocksdb_writebatch_deletev(rocksdb_writebatch_t* b, int num_keys, const char* const* keys_list, const size_t* keys_list_sizes);
extern CAIRNDB_API void rocksdb_writebatch_deletev_cf(rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, int num_keys, const char* const* keys_list, const size_t* keys_list_sizes);
extern CAIRNDB_API void rocksdb_writebatch_singledelete(rocksdb_writebatch_t* b, const char* key, size_t klen);
extern CAIRNDB_API void rocksdb_writebatch_singledelete_cf(rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen);
/* Deletes every key in [start_key, end_key). */
extern CAIRNDB_API void rocksdb_writebatch_delete_range(rocksdb_writebatch_t* b, const char* start_key, size_t start_key_len, const char* end_key, size_t end_key_len);
extern CAIRNDB_API void rocksdb_writebatch_delete_range_cf(rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, const char* start_key, size_t start_key_len, const char* end_key, size_t end_key_len);
/* Deletes one range: [start, end) with each bound the concatenation of its parts (RocksDB's
   DeleteRange(SliceParts, SliceParts); num_keys parts for each bound). */
extern CAIRNDB_API void rocksdb_writebatch_delete_rangev(rocksdb_writebatch_t* b, int num_keys, const char* const* start_keys_list, const size_t* start_keys_list_sizes, const char* const* end_keys_list, const size_t* end_keys_list_sizes);
extern CAIRNDB_API void rocksdb_writebatch_delete_rangev_cf(rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, int num_keys, const char* const* start_keys_list, const size_t* start_keys_list_sizes, const char* const* end_keys_list, const size_t* end_keys_list_sizes);
/* Calls put for each put and deleted for each deletion of the default column family, in order (a
   NULL callback is not called). As RocksDB's handler does, single deletions and merges are passed
   over, and the walk stops at the first range deletion or record of another column family. */
extern CAIRNDB_API void rocksdb_writebatch_iterate(rocksdb_writebatch_t*, void* state, void (*put)(void*, const char* k, size_t klen, const char* v, size_t vlen), void (*deleted)(void*, const char* k, size_t klen));
/* The batch's representation (RocksDB's layout, docs/format/write_batch.md), valid until the batch
   changes. */
extern CAIRNDB_API const char* rocksdb_writebatch_data(rocksdb_writebatch_t*, size_t* size);
extern CAIRNDB_API void rocksdb_writebatch_set_save_point(rocksdb_writebatch_t* b);
/* Removes the records added since the last save point, and forgets a record refused since then;
   NotFound when there is none. */
extern CAIRNDB_API void rocksdb_writebatch_rollback_to_save_point(rocksdb_writebatch_t* b, char** errptr);
extern CAIRNDB_API void rocksdb_writebatch_pop_save_point(rocksdb_writebatch_t* b, char** errptr);

/* ---- Iterators ---- */

/* An iterator over the default column family, positioned nowhere (not valid) until a seek. When it
   cannot be made (a closed database, a table that fails to open), it is never valid and
   rocksdb_iter_get_error reports why. */
extern CAIRNDB_API rocksdb_iterator_t* rocksdb_create_iterator(rocksdb_t* db, const rocksdb_readoptions_t* options);
extern CAIRNDB_API rocksdb_iterator_t* rocksdb_create_iterator_cf(rocksdb_t* db, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family);
extern CAIRNDB_API void rocksdb_iter_destroy(rocksdb_iterator_t*);
extern CAIRNDB_API unsigned char rocksdb_iter_valid(const rocksdb_iterator_t*);
extern CAIRNDB_API void rocksdb_iter_seek_to_first(rocksdb_iterator_t*);
extern CAIRNDB_API void rocksdb_iter_seek_to_last(rocksdb_iterator_t*);
extern CAIRNDB_API void rocksdb_iter_seek(rocksdb_iterator_t*, const char* k, size_t klen);
extern CAIRNDB_API void rocksdb_iter_seek_for_prev(rocksdb_iterator_t*, const char* k, size_t klen);
/* Moves to the next key. The iterator must be valid (RocksDB's rule; CairnDB leaves an invalid
   iterator invalid instead of crashing). */
extern CAIRNDB_API void rocksdb_iter_next(rocksdb_iterator_t*);
extern CAIRNDB_API void rocksdb_iter_prev(rocksdb_iterator_t*);
/* The current key (*klen bytes); NULL with *klen = 0 when the iterator is not valid. */
extern CAIRNDB_API const char* rocksdb_iter_key(const rocksdb_iterator_t*, size_t* klen);
extern CAIRNDB_API const char* rocksdb_iter_value(const rocksdb_iterator_t*, size_t* vlen);
/* Stores the error that ended the iteration, if any (an iterator that is not valid either reached
   the end or failed; this tells which). */
extern CAIRNDB_API void rocksdb_iter_get_error(const rocksdb_iterator_t*, char** errptr);
/* The current key, valid until the iterator moves; {NULL, 0} when not valid. */
extern CAIRNDB_API rocksdb_slice_t rocksdb_iter_key_slice(const rocksdb_iterator_t* iter);
extern CAIRNDB_API rocksdb_slice_t rocksdb_iter_value_slice(const rocksdb_iterator_t* iter);

/* ---- Checkpoints ---- */

extern CAIRNDB_API rocksdb_checkpoint_t* rocksdb_checkpoint_object_create(rocksdb_t* db, char** errptr);
/* Writes a checkpoint into checkpoint_dir, which must not exist. The memtables are flushed first
   when log_size_for_flush is 0 or the live WALs hold at least that many bytes; otherwise their
   data reaches the checkpoint in its copies of the WALs (RocksDB's rule). */
extern CAIRNDB_API void rocksdb_checkpoint_create(rocksdb_checkpoint_t* checkpoint, const char* checkpoint_dir, uint64_t log_size_for_flush, char** errptr);
extern CAIRNDB_API void rocksdb_checkpoint_object_destroy(rocksdb_checkpoint_t* checkpoint);

/* ---- Transactions ---- */

extern CAIRNDB_API rocksdb_transactiondb_options_t* rocksdb_transactiondb_options_create(void);
extern CAIRNDB_API void rocksdb_transactiondb_options_destroy(rocksdb_transactiondb_options_t* opt);
extern CAIRNDB_API rocksdb_transaction_options_t* rocksdb_transaction_options_create(void);
extern CAIRNDB_API void rocksdb_transaction_options_destroy(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API rocksdb_optimistictransaction_options_t* rocksdb_optimistictransaction_options_create(void);
extern CAIRNDB_API void rocksdb_optimistictransaction_options_destroy(rocksdb_optimistictransaction_options_t* opt);
extern CAIRNDB_API rocksdb_transactiondb_t* rocksdb_transactiondb_open(const rocksdb_options_t* options, const rocksdb_transactiondb_options_t* txn_db_options, const char* name, char** errptr);
/* Closes the database. Transactions not committed are rolled back by their destruction, which must
   come first (contract item 3). */
extern CAIRNDB_API void rocksdb_transactiondb_close(rocksdb_transactiondb_t* txn_db);
/* Sets key outside any transaction, after taking its lock. */
extern CAIRNDB_API void rocksdb_transactiondb_put(rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, const char* key, size_t klen, const char* val, size_t vlen, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_delete(rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, const char* key, size_t klen, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_merge(rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, const char* key, size_t klen, const char* val, size_t vlen, char** errptr);
/* Applies batch atomically, after locking its keys. */
extern CAIRNDB_API void rocksdb_transactiondb_write(rocksdb_transactiondb_t* db, const rocksdb_writeoptions_t* options, rocksdb_writebatch_t* batch, char** errptr);
extern CAIRNDB_API char* rocksdb_transactiondb_get(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, const char* key, size_t klen, size_t* vlen, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_multi_get(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
extern CAIRNDB_API rocksdb_iterator_t* rocksdb_transactiondb_create_iterator(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options);
extern CAIRNDB_API const rocksdb_snapshot_t* rocksdb_transactiondb_create_snapshot(rocksdb_transactiondb_t* txn_db);
extern CAIRNDB_API void rocksdb_transactiondb_release_snapshot(rocksdb_transactiondb_t* txn_db, const rocksdb_snapshot_t* snapshot);
extern CAIRNDB_API rocksdb_optimistictransactiondb_t* rocksdb_optimistictransactiondb_open(const rocksdb_options_t* options, const char* name, char** errptr);
extern CAIRNDB_API void rocksdb_optimistictransactiondb_close(rocksdb_optimistictransactiondb_t* otxn_db);
/* Applies batch atomically (outside any transaction; no conflict check). */
extern CAIRNDB_API void rocksdb_optimistictransactiondb_write(rocksdb_optimistictransactiondb_t* otxn_db, const rocksdb_writeoptions_t* options, rocksdb_writebatch_t* batch, char** errptr);
/* Begins a transaction (or, with old_txn, reuses that object for a new one). NULL when it cannot
   begin (a closed database); old_txn is then destroyed, so the usual txn =
   rocksdb_transaction_begin(..., txn) leaks nothing. */
extern CAIRNDB_API rocksdb_transaction_t* rocksdb_transaction_begin(rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* write_options, const rocksdb_transaction_options_t* txn_options, rocksdb_transaction_t* old_txn);
extern CAIRNDB_API rocksdb_transaction_t* rocksdb_optimistictransaction_begin(rocksdb_optimistictransactiondb_t* otxn_db, const rocksdb_writeoptions_t* write_options, const rocksdb_optimistictransaction_options_t* otxn_options, rocksdb_transaction_t* old_txn);
/* Ends the object; an open transaction is rolled back. */
extern CAIRNDB_API void rocksdb_transaction_destroy(rocksdb_transaction_t* txn);
extern CAIRNDB_API void rocksdb_transaction_commit(rocksdb_transaction_t* txn, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_rollback(rocksdb_transaction_t* txn, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_put(rocksdb_transaction_t* txn, const char* key, size_t klen, const char* val, size_t vlen, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_merge(rocksdb_transaction_t* txn, const char* key, size_t klen, const char* val, size_t vlen, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_delete(rocksdb_transaction_t* txn, const char* key, size_t klen, char** errptr);
/* The value of key as the transaction sees it: its own writes over the database. */
extern CAIRNDB_API char* rocksdb_transaction_get(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const char* key, size_t klen, size_t* vlen, char** errptr);
/* Reads key and locks it (pessimistic: until commit or rollback, shared unless exclusive;
   optimistic: the key is checked for conflicts at commit). */
extern CAIRNDB_API char* rocksdb_transaction_get_for_update(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const char* key, size_t klen, size_t* vlen, unsigned char exclusive, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_multi_get(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
/* An iterator over the database with the transaction's writes laid over it: the writes made before
   the iterator (a copy of them; later writes to the transaction are not seen, unlike in RocksDB).
   On an ended transaction it is never valid and reports the error. */
extern CAIRNDB_API rocksdb_iterator_t* rocksdb_transaction_create_iterator(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options);
/* Remembers the transaction's writes so far (pessimistic and optimistic transactions). */
extern CAIRNDB_API void rocksdb_transaction_set_savepoint(rocksdb_transaction_t* txn);
extern CAIRNDB_API void rocksdb_transaction_rollback_to_savepoint(rocksdb_transaction_t* txn, char** errptr);
/* Names the transaction for two-phase commit (pessimistic transactions only). */
extern CAIRNDB_API void rocksdb_transaction_set_name(rocksdb_transaction_t* txn, const char* name, size_t name_len, char** errptr);
/* The transaction's name (malloced, *name_len bytes), or NULL when it has none. */
extern CAIRNDB_API char* rocksdb_transaction_get_name(rocksdb_transaction_t* txn, size_t* name_len);
/* Prepares a named pessimistic transaction (two-phase commit's first phase). */
extern CAIRNDB_API void rocksdb_transaction_prepare(rocksdb_transaction_t* txn, char** errptr);
extern CAIRNDB_API rocksdb_column_family_handle_t* rocksdb_transactiondb_create_column_family(rocksdb_transactiondb_t* txn_db, const rocksdb_options_t* column_family_options, const char* column_family_name, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_put_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* val, size_t vallen, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_delete_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_merge_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, const char* val, size_t vlen, char** errptr);
extern CAIRNDB_API char* rocksdb_transactiondb_get_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, size_t* vallen, char** errptr);
extern CAIRNDB_API rocksdb_pinnableslice_t* rocksdb_transactiondb_get_pinned(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, const char* key, size_t klen, char** errptr);
extern CAIRNDB_API rocksdb_pinnableslice_t* rocksdb_transactiondb_get_pinned_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_multi_get_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, const rocksdb_column_family_handle_t* const* column_families, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
extern CAIRNDB_API rocksdb_iterator_t* rocksdb_transactiondb_create_iterator_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family);
extern CAIRNDB_API char* rocksdb_transactiondb_property_value(rocksdb_transactiondb_t* db, const char* propname);
extern CAIRNDB_API int rocksdb_transactiondb_property_int(rocksdb_transactiondb_t* db, const char* propname, uint64_t* out_val);
extern CAIRNDB_API void rocksdb_transactiondb_flush(rocksdb_transactiondb_t* txn_db, const rocksdb_flushoptions_t* options, char** errptr);
extern CAIRNDB_API void rocksdb_transactiondb_flush_cf(rocksdb_transactiondb_t* txn_db, const rocksdb_flushoptions_t* options, rocksdb_column_family_handle_t* column_family, char** errptr);
/* The prepared transactions no handle holds (those recovery found and those whose handle was
   destroyed), as a malloced array of *cnt transactions: commit or roll back each, destroy it, and
   free the array with rocksdb_free. NULL when there are none. */
extern CAIRNDB_API rocksdb_transaction_t** rocksdb_transactiondb_get_prepared_transactions(rocksdb_transactiondb_t* txn_db, size_t* cnt);
extern CAIRNDB_API void rocksdb_transaction_put_cf(rocksdb_transaction_t* txn, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, const char* val, size_t vlen, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_delete_cf(rocksdb_transaction_t* txn, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_merge_cf(rocksdb_transaction_t* txn, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, const char* val, size_t vlen, char** errptr);
extern CAIRNDB_API char* rocksdb_transaction_get_cf(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, size_t* vlen, char** errptr);
extern CAIRNDB_API rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const char* key, size_t klen, char** errptr);
extern CAIRNDB_API rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned_cf(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, char** errptr);
extern CAIRNDB_API char* rocksdb_transaction_get_for_update_cf(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, size_t* vlen, unsigned char exclusive, char** errptr);
extern CAIRNDB_API void rocksdb_transaction_multi_get_cf(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const rocksdb_column_family_handle_t* const* column_families, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
/* rocksdb_transaction_get_for_update (exclusive) of each key, in order. */
extern CAIRNDB_API void rocksdb_transaction_multi_get_for_update(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
extern CAIRNDB_API void rocksdb_transaction_multi_get_for_update_cf(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const rocksdb_column_family_handle_t* const* column_families, size_t num_keys, const char* const* keys_list, const size_t* keys_list_sizes, char** values_list, size_t* values_list_sizes, char** errs);
extern CAIRNDB_API rocksdb_iterator_t* rocksdb_transaction_create_iterator_cf(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* column_family);

/* ---- Options: plain setters and getters (the option of the same name, RocksDB's units) ---- */

extern CAIRNDB_API void rocksdb_options_set_allow_concurrent_memtable_write(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_allow_concurrent_memtable_write(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_bytes_per_sync(rocksdb_options_t*, uint64_t);
extern CAIRNDB_API uint64_t rocksdb_options_get_bytes_per_sync(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_compaction_pri(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_compaction_pri(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_compaction_style(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_compaction_style(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_create_if_missing(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_create_if_missing(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_create_missing_column_families(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_create_missing_column_families(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_delayed_write_rate(rocksdb_options_t* opt, uint64_t v);
extern CAIRNDB_API uint64_t rocksdb_options_get_delayed_write_rate(rocksdb_options_t* opt);
extern CAIRNDB_API void rocksdb_options_set_enable_pipelined_write(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_enable_pipelined_write(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_enable_write_thread_adaptive_yield(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_enable_write_thread_adaptive_yield(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_error_if_exists(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_error_if_exists(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_hard_pending_compaction_bytes_limit(rocksdb_options_t* opt, size_t v);
extern CAIRNDB_API size_t rocksdb_options_get_hard_pending_compaction_bytes_limit(rocksdb_options_t* opt);
extern CAIRNDB_API void rocksdb_options_set_info_log_level(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_info_log_level(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_keep_log_file_num(rocksdb_options_t*, size_t);
extern CAIRNDB_API size_t rocksdb_options_get_keep_log_file_num(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_level0_file_num_compaction_trigger(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_level0_file_num_compaction_trigger(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_level0_slowdown_writes_trigger(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_level0_slowdown_writes_trigger(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_level0_stop_writes_trigger(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_level0_stop_writes_trigger(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_level_compaction_dynamic_level_bytes(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_level_compaction_dynamic_level_bytes(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_background_jobs(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_max_background_jobs(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_bytes_for_level_base(rocksdb_options_t*, uint64_t);
extern CAIRNDB_API uint64_t rocksdb_options_get_max_bytes_for_level_base(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_bytes_for_level_multiplier(rocksdb_options_t*, double);
extern CAIRNDB_API double rocksdb_options_get_max_bytes_for_level_multiplier(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_compaction_bytes(rocksdb_options_t*, uint64_t);
extern CAIRNDB_API uint64_t rocksdb_options_get_max_compaction_bytes(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_log_file_size(rocksdb_options_t*, size_t);
extern CAIRNDB_API size_t rocksdb_options_get_max_log_file_size(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_manifest_file_size(rocksdb_options_t*, size_t);
extern CAIRNDB_API size_t rocksdb_options_get_max_manifest_file_size(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_open_files(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_max_open_files(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_subcompactions(rocksdb_options_t*, uint32_t);
extern CAIRNDB_API uint32_t rocksdb_options_get_max_subcompactions(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_max_total_wal_size(rocksdb_options_t* opt, uint64_t n);
extern CAIRNDB_API uint64_t rocksdb_options_get_max_total_wal_size(rocksdb_options_t* opt);
extern CAIRNDB_API void rocksdb_options_set_max_write_buffer_number(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_max_write_buffer_number(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_memtable_huge_page_size(rocksdb_options_t*, size_t);
extern CAIRNDB_API size_t rocksdb_options_get_memtable_huge_page_size(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_memtable_prefix_bloom_size_ratio(rocksdb_options_t*, double);
extern CAIRNDB_API double rocksdb_options_get_memtable_prefix_bloom_size_ratio(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_min_write_buffer_number_to_merge(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_min_write_buffer_number_to_merge(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_num_levels(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_num_levels(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_paranoid_checks(rocksdb_options_t*, unsigned char);
extern CAIRNDB_API unsigned char rocksdb_options_get_paranoid_checks(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_periodic_compaction_seconds(rocksdb_options_t*, uint64_t);
extern CAIRNDB_API uint64_t rocksdb_options_get_periodic_compaction_seconds(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_recycle_log_file_num(rocksdb_options_t*, size_t);
extern CAIRNDB_API size_t rocksdb_options_get_recycle_log_file_num(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_soft_pending_compaction_bytes_limit(rocksdb_options_t* opt, size_t v);
extern CAIRNDB_API size_t rocksdb_options_get_soft_pending_compaction_bytes_limit(rocksdb_options_t* opt);
extern CAIRNDB_API void rocksdb_options_set_stats_dump_period_sec(rocksdb_options_t*, unsigned int);
extern CAIRNDB_API unsigned int rocksdb_options_get_stats_dump_period_sec(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_table_cache_numshardbits(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_table_cache_numshardbits(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_target_file_size_base(rocksdb_options_t*, uint64_t);
extern CAIRNDB_API uint64_t rocksdb_options_get_target_file_size_base(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_target_file_size_multiplier(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_target_file_size_multiplier(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_ttl(rocksdb_options_t*, uint64_t);
extern CAIRNDB_API uint64_t rocksdb_options_get_ttl(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_wal_bytes_per_sync(rocksdb_options_t*, uint64_t);
extern CAIRNDB_API uint64_t rocksdb_options_get_wal_bytes_per_sync(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_wal_recovery_mode(rocksdb_options_t*, int);
extern CAIRNDB_API int rocksdb_options_get_wal_recovery_mode(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_write_buffer_size(rocksdb_options_t*, size_t);
extern CAIRNDB_API size_t rocksdb_options_get_write_buffer_size(rocksdb_options_t*);
extern CAIRNDB_API void rocksdb_options_set_write_thread_max_yield_usec(rocksdb_options_t* opt, uint64_t v);
extern CAIRNDB_API uint64_t rocksdb_options_get_write_thread_max_yield_usec(rocksdb_options_t* opt);
extern CAIRNDB_API void rocksdb_options_set_write_thread_slow_yield_usec(rocksdb_options_t* opt, uint64_t v);
extern CAIRNDB_API uint64_t rocksdb_options_get_write_thread_slow_yield_usec(rocksdb_options_t* opt);

/* ---- Block-based table options: setters and getters ---- */

extern CAIRNDB_API void rocksdb_block_based_options_set_block_restart_interval(rocksdb_block_based_table_options_t* opt, int v);
extern CAIRNDB_API int rocksdb_block_based_options_get_block_restart_interval(rocksdb_block_based_table_options_t* opt);
extern CAIRNDB_API void rocksdb_block_based_options_set_cache_index_and_filter_blocks(rocksdb_block_based_table_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_block_based_options_get_cache_index_and_filter_blocks(rocksdb_block_based_table_options_t* opt);
extern CAIRNDB_API void rocksdb_block_based_options_set_index_block_restart_interval(rocksdb_block_based_table_options_t* opt, int v);
extern CAIRNDB_API int rocksdb_block_based_options_get_index_block_restart_interval(rocksdb_block_based_table_options_t* opt);
extern CAIRNDB_API void rocksdb_block_based_options_set_whole_key_filtering(rocksdb_block_based_table_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_block_based_options_get_whole_key_filtering(rocksdb_block_based_table_options_t* opt);

/* ---- Read options: setters and getters ---- */

extern CAIRNDB_API void rocksdb_readoptions_set_fill_cache(rocksdb_readoptions_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_readoptions_get_fill_cache(rocksdb_readoptions_t* opt);
extern CAIRNDB_API void rocksdb_readoptions_set_prefix_same_as_start(rocksdb_readoptions_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_readoptions_get_prefix_same_as_start(rocksdb_readoptions_t* opt);
extern CAIRNDB_API void rocksdb_readoptions_set_total_order_seek(rocksdb_readoptions_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_readoptions_get_total_order_seek(rocksdb_readoptions_t* opt);
extern CAIRNDB_API void rocksdb_readoptions_set_verify_checksums(rocksdb_readoptions_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_readoptions_get_verify_checksums(rocksdb_readoptions_t* opt);

/* ---- Write options: setters and getters ---- */

extern CAIRNDB_API void rocksdb_writeoptions_set_no_slowdown(rocksdb_writeoptions_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_writeoptions_get_no_slowdown(rocksdb_writeoptions_t* opt);
extern CAIRNDB_API void rocksdb_writeoptions_set_sync(rocksdb_writeoptions_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_writeoptions_get_sync(rocksdb_writeoptions_t* opt);

/* ---- Transaction database options: setters and getters (lock timeouts in milliseconds) ---- */

extern CAIRNDB_API void rocksdb_transactiondb_options_set_default_lock_timeout(rocksdb_transactiondb_options_t* opt, int64_t v);
extern CAIRNDB_API int64_t rocksdb_transactiondb_options_get_default_lock_timeout(rocksdb_transactiondb_options_t* opt);
extern CAIRNDB_API void rocksdb_transactiondb_options_set_max_num_deadlocks(rocksdb_transactiondb_options_t* opt, uint32_t v);
extern CAIRNDB_API uint32_t rocksdb_transactiondb_options_get_max_num_deadlocks(rocksdb_transactiondb_options_t* opt);
extern CAIRNDB_API void rocksdb_transactiondb_options_set_max_num_locks(rocksdb_transactiondb_options_t* opt, int64_t v);
extern CAIRNDB_API int64_t rocksdb_transactiondb_options_get_max_num_locks(rocksdb_transactiondb_options_t* opt);
extern CAIRNDB_API void rocksdb_transactiondb_options_set_num_stripes(rocksdb_transactiondb_options_t* opt, size_t v);
extern CAIRNDB_API size_t rocksdb_transactiondb_options_get_num_stripes(rocksdb_transactiondb_options_t* opt);
extern CAIRNDB_API void rocksdb_transactiondb_options_set_transaction_lock_timeout(rocksdb_transactiondb_options_t* opt, int64_t v);
extern CAIRNDB_API int64_t rocksdb_transactiondb_options_get_transaction_lock_timeout(rocksdb_transactiondb_options_t* opt);

/* ---- Transaction options: setters and getters (lock_timeout in milliseconds, negative: the database's transaction_lock_timeout; expiration in milliseconds, zero or negative: never) ---- */

extern CAIRNDB_API void rocksdb_transaction_options_set_deadlock_detect(rocksdb_transaction_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_transaction_options_get_deadlock_detect(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API void rocksdb_transaction_options_set_deadlock_detect_depth(rocksdb_transaction_options_t* opt, int64_t v);
extern CAIRNDB_API int64_t rocksdb_transaction_options_get_deadlock_detect_depth(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API void rocksdb_transaction_options_set_expiration(rocksdb_transaction_options_t* opt, int64_t v);
extern CAIRNDB_API int64_t rocksdb_transaction_options_get_expiration(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API void rocksdb_transaction_options_set_lock_timeout(rocksdb_transaction_options_t* opt, int64_t v);
extern CAIRNDB_API int64_t rocksdb_transaction_options_get_lock_timeout(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API void rocksdb_transaction_options_set_max_write_batch_size(rocksdb_transaction_options_t* opt, size_t v);
extern CAIRNDB_API size_t rocksdb_transaction_options_get_max_write_batch_size(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API void rocksdb_transaction_options_set_set_snapshot(rocksdb_transaction_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_transaction_options_get_set_snapshot(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API void rocksdb_transaction_options_set_skip_concurrency_control(rocksdb_transaction_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_transaction_options_get_skip_concurrency_control(rocksdb_transaction_options_t* opt);
extern CAIRNDB_API void rocksdb_transaction_options_set_skip_prepare(rocksdb_transaction_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_transaction_options_get_skip_prepare(rocksdb_transaction_options_t* opt);

/* ---- Optimistic transaction options: setters and getters ---- */

extern CAIRNDB_API void rocksdb_optimistictransaction_options_set_set_snapshot(rocksdb_optimistictransaction_options_t* opt, unsigned char v);
extern CAIRNDB_API unsigned char rocksdb_optimistictransaction_options_get_set_snapshot(rocksdb_optimistictransaction_options_t* opt);

/* ---- Not provided ----
   These functions of RocksDB 11.8.1's c.h are not provided (NAME_* (n): n functions starting
   with NAME_). Most set options CairnDB does not have (and so must not accept), or belong to
   subsystems it lacks (backup engine, blob files, user-defined timestamps, wide columns, SST
   file manager, write buffer manager, tracing, remote compaction) or that this library does not
   wrap yet (the engine's WAL iterators; read-only and secondary opens with column families).
   rocksdb_approximate_memory_* (6), rocksdb_approximate_sizes_cf_with_* (2),
   rocksdb_approximate_sizes_with_options, rocksdb_backup_* (55), rocksdb_batched_* (2),
   rocksdb_blob_* (8), rocksdb_block_based_options_clear_user_defined_index_factory,
   rocksdb_block_based_options_get_block_align,
   rocksdb_block_based_options_get_block_size_deviation,
   rocksdb_block_based_options_get_cache_index_and_filter_blocks_with_high_priority,
   rocksdb_block_based_options_get_data_* (2),
   rocksdb_block_based_options_get_decouple_partitioned_filters,
   rocksdb_block_based_options_get_detect_filter_construct_corruption,
   rocksdb_block_based_options_get_enable_index_compression,
   rocksdb_block_based_options_get_fail_if_no_udi_on_open,
   rocksdb_block_based_options_get_format_version,
   rocksdb_block_based_options_get_index_block_search_type,
   rocksdb_block_based_options_get_index_shortening, rocksdb_block_based_options_get_index_type,
   rocksdb_block_based_options_get_initial_auto_readahead_size,
   rocksdb_block_based_options_get_max_auto_readahead_size,
   rocksdb_block_based_options_get_metadata_block_size,
   rocksdb_block_based_options_get_num_file_reads_for_auto_readahead,
   rocksdb_block_based_options_get_optimize_filters_for_memory,
   rocksdb_block_based_options_get_partition_filters, rocksdb_block_based_options_get_pin_* (2),
   rocksdb_block_based_options_get_prepopulate_block_cache,
   rocksdb_block_based_options_get_read_amp_bytes_per_bit,
   rocksdb_block_based_options_get_separate_key_value_in_data_block,
   rocksdb_block_based_options_get_super_* (2),
   rocksdb_block_based_options_get_uniform_cv_threshold, rocksdb_block_based_options_get_use_* (2),
   rocksdb_block_based_options_get_user_defined_index_factory_name,
   rocksdb_block_based_options_get_verify_compression, rocksdb_block_based_options_set_block_align,
   rocksdb_block_based_options_set_block_size_deviation,
   rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority,
   rocksdb_block_based_options_set_data_* (3),
   rocksdb_block_based_options_set_decouple_partitioned_filters,
   rocksdb_block_based_options_set_detect_filter_construct_corruption,
   rocksdb_block_based_options_set_enable_index_compression,
   rocksdb_block_based_options_set_fail_if_no_udi_on_open,
   rocksdb_block_based_options_set_format_version,
   rocksdb_block_based_options_set_index_block_search_type,
   rocksdb_block_based_options_set_index_shortening, rocksdb_block_based_options_set_index_type,
   rocksdb_block_based_options_set_initial_auto_readahead_size,
   rocksdb_block_based_options_set_max_auto_readahead_size,
   rocksdb_block_based_options_set_metadata_block_size,
   rocksdb_block_based_options_set_num_file_reads_for_auto_readahead,
   rocksdb_block_based_options_set_optimize_filters_for_memory,
   rocksdb_block_based_options_set_partition_* (2), rocksdb_block_based_options_set_pin_* (2),
   rocksdb_block_based_options_set_prepopulate_block_cache,
   rocksdb_block_based_options_set_read_amp_bytes_per_bit,
   rocksdb_block_based_options_set_separate_key_value_in_data_block,
   rocksdb_block_based_options_set_super_* (2),
   rocksdb_block_based_options_set_top_level_index_pinning_tier,
   rocksdb_block_based_options_set_uniform_cv_threshold,
   rocksdb_block_based_options_set_unpartitioned_pinning_tier,
   rocksdb_block_based_options_set_use_* (2),
   rocksdb_block_based_options_set_user_defined_index_factory_from_string,
   rocksdb_block_based_options_set_verify_compression, rocksdb_block_cache_* (8),
   rocksdb_cache_create_hyper_* (2), rocksdb_cache_create_lru_opts, rocksdb_cache_disown_data,
   rocksdb_cache_get_occupancy_count, rocksdb_cache_get_table_address_count,
   rocksdb_cache_set_capacity, rocksdb_cancel_all_background_work,
   rocksdb_checkpoint_export_column_family, rocksdb_column_family_metadata_* (14),
   rocksdb_compact_files_* (3), rocksdb_compact_range_cf_opt, rocksdb_compact_range_opt,
   rocksdb_compaction_* (72), rocksdb_compactionfilter_set_ignore_snapshots,
   rocksdb_compactionfiltercontext_* (2), rocksdb_compactionfilterfactory_* (2),
   rocksdb_compactionjobinfo_* (39), rocksdb_compactionservice_* (19), rocksdb_compactoptions_*
   (21), rocksdb_comparator_with_ts_create, rocksdb_continue_background_work,
   rocksdb_create_backup_* (12), rocksdb_create_column_families_* (2),
   rocksdb_create_column_family_with_* (2), rocksdb_create_default_env,
   rocksdb_create_dir_if_missing, rocksdb_create_iterators, rocksdb_create_mem_env,
   rocksdb_cuckoo_* (13), rocksdb_dbpath_* (2), rocksdb_delete_cf_with_ts, rocksdb_delete_file_*
   (2), rocksdb_delete_with_ts, rocksdb_disable_* (2), rocksdb_enable_* (2), rocksdb_end_* (3),
   rocksdb_env_* (14), rocksdb_envoptions_* (25), rocksdb_eventlistener_* (2), rocksdb_export_*
   (6), rocksdb_externalfileingestioninfo_* (5), rocksdb_fifo_* (16), rocksdb_file_* (2),
   rocksdb_filterpolicy_create_ribbon_* (2), rocksdb_flush_cfs, rocksdb_flush_wal_* (2),
   rocksdb_flushjobinfo_* (16), rocksdb_flushoptions_get_allow_write_stall,
   rocksdb_flushoptions_get_force_atomic_flush, rocksdb_flushoptions_get_listener_wait,
   rocksdb_flushoptions_set_allow_write_stall, rocksdb_flushoptions_set_force_atomic_flush,
   rocksdb_flushoptions_set_listener_wait, rocksdb_flushwaloptions_* (6), rocksdb_get_cf_with_ts,
   rocksdb_get_column_* (4), rocksdb_get_current_wal_file, rocksdb_get_db_identity,
   rocksdb_get_full_history_ts_low, rocksdb_get_into_* (2), rocksdb_get_livefiles_storage_info,
   rocksdb_get_pinned_cf_v2, rocksdb_get_pinned_v2, rocksdb_get_sorted_wal_files,
   rocksdb_get_updates_since, rocksdb_get_with_ts, rocksdb_hyper_* (6), rocksdb_import_* (4),
   rocksdb_increase_full_history_ts_low, rocksdb_ingest_* (2), rocksdb_ingestexternalfileoptions_*
   (34), rocksdb_iter_refresh, rocksdb_iter_timestamp_* (2),
   rocksdb_jemalloc_nodump_allocator_create, rocksdb_level_* (5), rocksdb_livefile_* (13),
   rocksdb_livefiles_* (36), rocksdb_load_* (2), rocksdb_logger_* (3), rocksdb_lru_* (5),
   rocksdb_memory_* (5), rocksdb_memtableinfo_* (6), rocksdb_multi_get_cf_with_ts,
   rocksdb_multi_get_with_ts, rocksdb_new_default_replayer, rocksdb_open_and_* (11),
   rocksdb_open_as_secondary_column_families, rocksdb_open_column_families_with_ttl,
   rocksdb_open_for_read_only_column_families,
   rocksdb_open_with_ttl, rocksdb_optimistictransactiondb_checkpoint_object_create,
   rocksdb_optimistictransactiondb_close_base_db, rocksdb_optimistictransactiondb_get_base_db,
   rocksdb_optimistictransactiondb_lock_* (3), rocksdb_optimistictransactiondb_open_column_* (2),
   rocksdb_optimistictransactiondb_open_with_otxn_db_options,
   rocksdb_optimistictransactiondb_options_* (7), rocksdb_optimistictransactiondb_property_* (2),
   rocksdb_options_add_* (5), rocksdb_options_calculate_* (5), rocksdb_options_checksum_* (5),
   rocksdb_options_clear_wal_filter, rocksdb_options_get_WAL_* (2),
   rocksdb_options_get_advise_random_on_open, rocksdb_options_get_allow_2pc,
   rocksdb_options_get_allow_data_in_errors, rocksdb_options_get_allow_fallocate,
   rocksdb_options_get_allow_ingest_behind, rocksdb_options_get_allow_mmap_* (2),
   rocksdb_options_get_arena_block_size, rocksdb_options_get_async_wal_precreate,
   rocksdb_options_get_atomic_flush, rocksdb_options_get_avoid_* (3),
   rocksdb_options_get_background_close_inactive_wals, rocksdb_options_get_best_efforts_recovery,
   rocksdb_options_get_bgerror_resume_retry_interval, rocksdb_options_get_blob_* (7),
   rocksdb_options_get_block_protection_bytes_per_key, rocksdb_options_get_bloom_locality,
   rocksdb_options_get_bottommost_compression_options_use_zstd_dict_trainer,
   rocksdb_options_get_bottommost_file_compaction_delay,
   rocksdb_options_get_cf_allow_ingest_behind, rocksdb_options_get_compaction_verify_record_count,
   rocksdb_options_get_compression_options_* (4), rocksdb_options_get_daily_offpeak_time_utc,
   rocksdb_options_get_db_* (3), rocksdb_options_get_default_* (2),
   rocksdb_options_get_delete_obsolete_files_period_micros,
   rocksdb_options_get_disallow_memtable_writes, rocksdb_options_get_dump_malloc_stats,
   rocksdb_options_get_enable_blob_* (3), rocksdb_options_get_enable_thread_tracking,
   rocksdb_options_get_enforce_* (2), rocksdb_options_get_experimental_mempurge_threshold,
   rocksdb_options_get_fast_sst_open, rocksdb_options_get_flush_verify_memtable_count,
   rocksdb_options_get_follower_* (3), rocksdb_options_get_force_consistency_checks,
   rocksdb_options_get_info_log, rocksdb_options_get_inplace_* (2),
   rocksdb_options_get_is_fd_close_on_exec, rocksdb_options_get_last_level_temperature,
   rocksdb_options_get_log_* (2), rocksdb_options_get_lowest_used_cache_tier,
   rocksdb_options_get_manifest_preallocation_size, rocksdb_options_get_manual_wal_flush,
   rocksdb_options_get_max_background_compactions, rocksdb_options_get_max_background_flushes,
   rocksdb_options_get_max_bgerror_resume_count,
   rocksdb_options_get_max_compaction_trigger_wakeup_seconds,
   rocksdb_options_get_max_file_opening_threads, rocksdb_options_get_max_manifest_space_amp_pct,
   rocksdb_options_get_max_sequential_skip_in_iterations,
   rocksdb_options_get_max_successive_merges, rocksdb_options_get_max_write_batch_group_size_bytes,
   rocksdb_options_get_max_write_buffer_size_to_maintain,
   rocksdb_options_get_memtable_avg_op_scan_flush_trigger,
   rocksdb_options_get_memtable_batch_lookup_optimization,
   rocksdb_options_get_memtable_max_range_deletions,
   rocksdb_options_get_memtable_op_scan_flush_trigger,
   rocksdb_options_get_memtable_protection_bytes_per_key,
   rocksdb_options_get_memtable_verify_per_key_checksum_on_seek,
   rocksdb_options_get_memtable_whole_key_filtering,
   rocksdb_options_get_metadata_write_temperature, rocksdb_options_get_min_blob_size,
   rocksdb_options_get_min_tombstones_for_range_conversion, rocksdb_options_get_open_files_async,
   rocksdb_options_get_optimize_manifest_for_recovery, rocksdb_options_get_paranoid_file_checks,
   rocksdb_options_get_paranoid_memory_checks, rocksdb_options_get_persist_* (2),
   rocksdb_options_get_preclude_last_level_data_seconds,
   rocksdb_options_get_prefix_seek_opt_in_only, rocksdb_options_get_prepopulate_blob_cache,
   rocksdb_options_get_preserve_internal_time_seconds, rocksdb_options_get_read_* (2),
   rocksdb_options_get_report_bg_io_stats, rocksdb_options_get_reuse_manifest_on_open,
   rocksdb_options_get_sample_for_compression, rocksdb_options_get_skip_stats_update_on_db_open,
   rocksdb_options_get_statistics_level, rocksdb_options_get_stats_history_buffer_size,
   rocksdb_options_get_stats_persist_period_sec, rocksdb_options_get_strict_* (2),
   rocksdb_options_get_target_file_size_is_upper_bound, rocksdb_options_get_track_* (2),
   rocksdb_options_get_two_write_queues, rocksdb_options_get_uncache_aggressiveness,
   rocksdb_options_get_unordered_write, rocksdb_options_get_use_* (5), rocksdb_options_get_verify_*
   (3), rocksdb_options_get_wal_compression, rocksdb_options_get_wal_dir,
   rocksdb_options_get_wal_write_temperature, rocksdb_options_get_writable_file_max_buffer_size,
   rocksdb_options_get_write_dbid_to_manifest, rocksdb_options_get_write_identity_file,
   rocksdb_options_optimize_for_point_lookup, rocksdb_options_optimize_universal_style_compaction,
   rocksdb_options_prepare_for_bulk_load, rocksdb_options_set_WAL_* (2),
   rocksdb_options_set_advise_random_on_open, rocksdb_options_set_allow_2pc,
   rocksdb_options_set_allow_data_in_errors, rocksdb_options_set_allow_fallocate,
   rocksdb_options_set_allow_ingest_behind, rocksdb_options_set_allow_mmap_* (2),
   rocksdb_options_set_arena_block_size, rocksdb_options_set_async_wal_precreate,
   rocksdb_options_set_atomic_flush, rocksdb_options_set_avoid_* (3),
   rocksdb_options_set_background_close_inactive_wals, rocksdb_options_set_best_efforts_recovery,
   rocksdb_options_set_bgerror_resume_retry_interval, rocksdb_options_set_blob_* (8),
   rocksdb_options_set_block_protection_bytes_per_key, rocksdb_options_set_bloom_locality,
   rocksdb_options_set_bottommost_compression_options_* (4),
   rocksdb_options_set_bottommost_file_compaction_delay, rocksdb_options_set_cf_* (2),
   rocksdb_options_set_compaction_filter_factory, rocksdb_options_set_compaction_service,
   rocksdb_options_set_compaction_verify_record_count, rocksdb_options_set_compression_options_*
   (5), rocksdb_options_set_cuckoo_table_factory, rocksdb_options_set_daily_offpeak_time_utc,
   rocksdb_options_set_db_* (4), rocksdb_options_set_default_* (2),
   rocksdb_options_set_delete_obsolete_files_period_micros,
   rocksdb_options_set_disallow_memtable_writes, rocksdb_options_set_dump_malloc_stats,
   rocksdb_options_set_enable_blob_* (3), rocksdb_options_set_enable_thread_tracking,
   rocksdb_options_set_enforce_* (2), rocksdb_options_set_env,
   rocksdb_options_set_experimental_mempurge_threshold, rocksdb_options_set_fast_sst_open,
   rocksdb_options_set_fifo_compaction_options, rocksdb_options_set_file_checksum_gen_factory,
   rocksdb_options_set_flush_verify_memtable_count, rocksdb_options_set_follower_* (3),
   rocksdb_options_set_force_consistency_checks, rocksdb_options_set_hash_* (2),
   rocksdb_options_set_info_log, rocksdb_options_set_inplace_* (2),
   rocksdb_options_set_is_fd_close_on_exec, rocksdb_options_set_last_level_temperature,
   rocksdb_options_set_log_* (2), rocksdb_options_set_lowest_used_cache_tier,
   rocksdb_options_set_manifest_preallocation_size, rocksdb_options_set_manual_wal_flush,
   rocksdb_options_set_max_background_compactions, rocksdb_options_set_max_background_flushes,
   rocksdb_options_set_max_bgerror_resume_count,
   rocksdb_options_set_max_bytes_for_level_multiplier_additional,
   rocksdb_options_set_max_compaction_trigger_wakeup_seconds,
   rocksdb_options_set_max_file_opening_threads, rocksdb_options_set_max_manifest_space_amp_pct,
   rocksdb_options_set_max_sequential_skip_in_iterations,
   rocksdb_options_set_max_successive_merges, rocksdb_options_set_max_write_batch_group_size_bytes,
   rocksdb_options_set_max_write_buffer_size_to_maintain,
   rocksdb_options_set_memtable_avg_op_scan_flush_trigger,
   rocksdb_options_set_memtable_batch_lookup_optimization,
   rocksdb_options_set_memtable_max_range_deletions,
   rocksdb_options_set_memtable_op_scan_flush_trigger,
   rocksdb_options_set_memtable_protection_bytes_per_key, rocksdb_options_set_memtable_vector_rep,
   rocksdb_options_set_memtable_verify_per_key_checksum_on_seek,
   rocksdb_options_set_memtable_whole_key_filtering,
   rocksdb_options_set_metadata_write_temperature, rocksdb_options_set_min_blob_size,
   rocksdb_options_set_min_level_to_compress,
   rocksdb_options_set_min_tombstones_for_range_conversion, rocksdb_options_set_open_files_async,
   rocksdb_options_set_optimize_manifest_for_recovery, rocksdb_options_set_paranoid_file_checks,
   rocksdb_options_set_paranoid_memory_checks, rocksdb_options_set_persist_* (2),
   rocksdb_options_set_plain_table_factory, rocksdb_options_set_preclude_last_level_data_seconds,
   rocksdb_options_set_prefix_seek_opt_in_only, rocksdb_options_set_prepopulate_blob_cache,
   rocksdb_options_set_preserve_internal_time_seconds, rocksdb_options_set_read_* (2),
   rocksdb_options_set_report_bg_io_stats, rocksdb_options_set_reuse_manifest_on_open,
   rocksdb_options_set_row_cache, rocksdb_options_set_sample_for_compression,
   rocksdb_options_set_skip_stats_update_on_db_open, rocksdb_options_set_sst_* (2),
   rocksdb_options_set_statistics_level, rocksdb_options_set_stats_history_buffer_size,
   rocksdb_options_set_stats_persist_period_sec, rocksdb_options_set_strict_* (2),
   rocksdb_options_set_target_file_size_is_upper_bound, rocksdb_options_set_track_* (2),
   rocksdb_options_set_two_write_queues, rocksdb_options_set_uncache_aggressiveness,
   rocksdb_options_set_universal_compaction_options, rocksdb_options_set_unordered_write,
   rocksdb_options_set_use_* (5), rocksdb_options_set_verify_* (3),
   rocksdb_options_set_wal_compression, rocksdb_options_set_wal_dir,
   rocksdb_options_set_wal_filter, rocksdb_options_set_wal_write_temperature,
   rocksdb_options_set_writable_file_max_buffer_size, rocksdb_options_set_write_buffer_manager,
   rocksdb_options_set_write_dbid_to_manifest, rocksdb_options_set_write_identity_file,
   rocksdb_options_statistics_get_histogram_data, rocksdb_options_statistics_get_ticker_count,
   rocksdb_pause_background_work, rocksdb_perfcontext_* (5), rocksdb_pinnable_* (2),
   rocksdb_put_cf_with_ts, rocksdb_put_with_ts, rocksdb_ratelimiter_create_auto_tuned,
   rocksdb_ratelimiter_create_with_mode, rocksdb_readoptions_clear_* (4),
   rocksdb_readoptions_get_adaptive_readahead, rocksdb_readoptions_get_allow_unprepared_value,
   rocksdb_readoptions_get_async_io, rocksdb_readoptions_get_auto_* (3),
   rocksdb_readoptions_get_background_purge_on_iterator_cleanup, rocksdb_readoptions_get_deadline,
   rocksdb_readoptions_get_ignore_range_deletions, rocksdb_readoptions_get_io_* (2),
   rocksdb_readoptions_get_max_skippable_internal_keys,
   rocksdb_readoptions_get_merge_operand_count_threshold,
   rocksdb_readoptions_get_optimize_multiget_for_io, rocksdb_readoptions_get_pin_data,
   rocksdb_readoptions_get_rate_limiter_priority, rocksdb_readoptions_get_read_tier,
   rocksdb_readoptions_get_readahead_size, rocksdb_readoptions_get_request_id,
   rocksdb_readoptions_get_table_index_factory_name, rocksdb_readoptions_get_tailing,
   rocksdb_readoptions_get_value_size_soft_limit, rocksdb_readoptions_has_* (2),
   rocksdb_readoptions_set_adaptive_readahead, rocksdb_readoptions_set_allow_unprepared_value,
   rocksdb_readoptions_set_async_io, rocksdb_readoptions_set_auto_* (3),
   rocksdb_readoptions_set_background_purge_on_iterator_cleanup, rocksdb_readoptions_set_deadline,
   rocksdb_readoptions_set_ignore_range_deletions, rocksdb_readoptions_set_io_* (2),
   rocksdb_readoptions_set_iter_start_ts, rocksdb_readoptions_set_max_skippable_internal_keys,
   rocksdb_readoptions_set_merge_operand_count_threshold,
   rocksdb_readoptions_set_optimize_multiget_for_io, rocksdb_readoptions_set_pin_data,
   rocksdb_readoptions_set_rate_limiter_priority, rocksdb_readoptions_set_read_tier,
   rocksdb_readoptions_set_readahead_size, rocksdb_readoptions_set_request_id,
   rocksdb_readoptions_set_table_* (2), rocksdb_readoptions_set_tailing,
   rocksdb_readoptions_set_timestamp, rocksdb_readoptions_set_value_size_soft_limit,
   rocksdb_repair_db, rocksdb_replay_* (6), rocksdb_replayer_* (4), rocksdb_reset_status,
   rocksdb_restore_* (6), rocksdb_set_perf_level, rocksdb_singledelete_cf_with_ts,
   rocksdb_singledelete_with_ts, rocksdb_size_* (10), rocksdb_slicetransform_create,
   rocksdb_slicetransform_create_noop, rocksdb_sst_* (20), rocksdb_sstfilewriter_* (13),
   rocksdb_start_* (4), rocksdb_statistics_* (11), rocksdb_status_ptr_get_error,
   rocksdb_subcompactionjobinfo_* (12), rocksdb_suggest_* (2), rocksdb_table_* (59),
   rocksdb_trace_* (15), rocksdb_transaction_get_pinned_for_* (2),
   rocksdb_transaction_get_snapshot, rocksdb_transaction_get_writebatch_wi,
   rocksdb_transaction_options_get_commit_bypass_memtable,
   rocksdb_transaction_options_get_deadlock_timeout_us, rocksdb_transaction_options_get_large_*
   (2), rocksdb_transaction_options_get_use_only_the_last_commit_time_batch_for_recovery,
   rocksdb_transaction_options_get_write_* (2),
   rocksdb_transaction_options_set_commit_bypass_memtable,
   rocksdb_transaction_options_set_deadlock_timeout_us, rocksdb_transaction_options_set_large_*
   (2), rocksdb_transaction_options_set_use_only_the_last_commit_time_batch_for_recovery,
   rocksdb_transaction_options_set_write_* (2), rocksdb_transaction_put_log_data,
   rocksdb_transaction_rebuild_* (2), rocksdb_transaction_set_commit_timestamp,
   rocksdb_transaction_set_read_timestamp_for_validation,
   rocksdb_transactiondb_checkpoint_object_create, rocksdb_transactiondb_close_base_db,
   rocksdb_transactiondb_flush_cfs, rocksdb_transactiondb_flush_wal_* (2),
   rocksdb_transactiondb_get_base_db, rocksdb_transactiondb_open_column_families,
   rocksdb_transactiondb_options_get_default_write_batch_flush_threshold,
   rocksdb_transactiondb_options_get_enable_udt_validation,
   rocksdb_transactiondb_options_get_rollback_merge_operands,
   rocksdb_transactiondb_options_get_skip_concurrency_control,
   rocksdb_transactiondb_options_get_txn_commit_bypass_memtable_threshold,
   rocksdb_transactiondb_options_get_use_per_key_point_lock_mgr,
   rocksdb_transactiondb_options_get_write_policy,
   rocksdb_transactiondb_options_set_default_write_batch_flush_threshold,
   rocksdb_transactiondb_options_set_enable_udt_validation,
   rocksdb_transactiondb_options_set_rollback_merge_operands,
   rocksdb_transactiondb_options_set_skip_concurrency_control,
   rocksdb_transactiondb_options_set_txn_commit_bypass_memtable_threshold,
   rocksdb_transactiondb_options_set_use_per_key_point_lock_mgr,
   rocksdb_transactiondb_options_set_write_policy,
   rocksdb_universal_* (22), rocksdb_verify_* (4), rocksdb_wait_* (13), rocksdb_wal_* (18),
   rocksdb_walfilter_* (2), rocksdb_write_buffer_* (11), rocksdb_write_writebatch_wi,
   rocksdb_writebatch_delete_cf_with_ts, rocksdb_writebatch_iterate_cf_* (2),
   rocksdb_writebatch_iterate_ld, rocksdb_writebatch_mergev_* (2),
   rocksdb_writebatch_put_cf_with_ts, rocksdb_writebatch_put_log_data,
   rocksdb_writebatch_singledelete_cf_with_ts, rocksdb_writebatch_update_timestamps,
   rocksdb_writebatch_wi_* (39), rocksdb_writeoptions_get_ignore_missing_column_families,
   rocksdb_writeoptions_get_io_activity, rocksdb_writeoptions_get_low_pri,
   rocksdb_writeoptions_get_memtable_insert_hint_per_batch,
   rocksdb_writeoptions_get_protection_bytes_per_key,
   rocksdb_writeoptions_get_rate_limiter_priority,
   rocksdb_writeoptions_set_ignore_missing_column_families, rocksdb_writeoptions_set_io_activity,
   rocksdb_writeoptions_set_low_pri, rocksdb_writeoptions_set_memtable_insert_hint_per_batch,
   rocksdb_writeoptions_set_protection_bytes_per_key,
   rocksdb_writeoptions_set_rate_limiter_priority, rocksdb_writestallinfo_* (3)*/

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CAIRNDB_C_H */
