/* Tests of CairnDB's C API: every function declared in include/cairndb/c.h is called here
   (scripts/c_api.sh checks that each name appears), with its error paths and callbacks.
   Built with the system C compiler and run under AddressSanitizer and LeakSanitizer by
   scripts/c_api.sh; any leak, bad access or failed check exits non-zero.

   Usage: api_test DIR (an empty scratch directory). */

#include <rocksdb/c.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* phase = "";
static char dir[2048];

#define CHECK(cond)                                                                       \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "%s:%d [%s]: check failed: %s\n", __FILE__, __LINE__, phase, #cond); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

#define CHECK_OK(err)                                                                        \
  do {                                                                                       \
    if ((err) != NULL) {                                                                     \
      fprintf(stderr, "%s:%d [%s]: unexpected error: %s\n", __FILE__, __LINE__, phase, err); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* An error is set and starts with RocksDB's status name `prefix`; frees it. */
#define CHECK_ERR(err, prefix)                                                           \
  do {                                                                                   \
    if ((err) == NULL || strncmp((err), (prefix), strlen(prefix)) != 0) {                 \
      fprintf(stderr, "%s:%d [%s]: expected \"%s...\", got %s\n", __FILE__, __LINE__,    \
              phase, prefix, (err) ? (err) : "no error");                                 \
      exit(1);                                                                           \
    }                                                                                    \
    rocksdb_free(err);                                                                   \
    (err) = NULL;                                                                        \
  } while (0)

/* `set(obj, v)` then `get(obj) == v`. */
#define ROUNDTRIP(set, get, obj, v) \
  do {                              \
    set(obj, v);                    \
    CHECK(get(obj) == (v));         \
  } while (0)

static void path(char* out, const char* name) { snprintf(out, 4096, "%s/%s", dir, name); }

/* The value of `key` is `expected` (NULL: absent). */
static void check_get(rocksdb_t* db, const rocksdb_readoptions_t* ro, const char* key,
                      const char* expected) {
  char* err = NULL;
  size_t len = 99;
  char* v = rocksdb_get(db, ro, key, strlen(key), &len, &err);
  CHECK_OK(err);
  if (expected == NULL) {
    CHECK(v == NULL);
    CHECK(len == 0);
  } else {
    CHECK(v != NULL);
    CHECK(len == strlen(expected) && memcmp(v, expected, len) == 0);
  }
  rocksdb_free(v);
}

static void check_get_cf(rocksdb_t* db, const rocksdb_readoptions_t* ro,
                         rocksdb_column_family_handle_t* cf, const char* key,
                         const char* expected) {
  char* err = NULL;
  size_t len = 99;
  char* v = rocksdb_get_cf(db, ro, cf, key, strlen(key), &len, &err);
  CHECK_OK(err);
  if (expected == NULL) {
    CHECK(v == NULL);
  } else {
    CHECK(v != NULL && len == strlen(expected) && memcmp(v, expected, len) == 0);
  }
  rocksdb_free(v);
}

/* The iterator's current entry is (k, v). */
static void check_iter(rocksdb_iterator_t* it, const char* k, const char* v) {
  size_t len;
  CHECK(rocksdb_iter_valid(it));
  const char* p = rocksdb_iter_key(it, &len);
  CHECK(len == strlen(k) && memcmp(p, k, len) == 0);
  p = rocksdb_iter_value(it, &len);
  CHECK(len == strlen(v) && memcmp(p, v, len) == 0);
}

/* ---- Callbacks ---- */

static int reverse_destroyed = 0;
static void reverse_destroy(void* state) {
  (void)state;
  reverse_destroyed++;
}
static int reverse_compare(void* state, const char* a, size_t alen, const char* b, size_t blen) {
  (void)state;
  size_t n = alen < blen ? alen : blen;
  int r = memcmp(a, b, n);
  if (r == 0) r = alen < blen ? -1 : alen > blen ? 1 : 0;
  return -r;
}
static const char* reverse_name(void* state) {
  (void)state;
  return "test.reverse";
}

/* Merge operator: values and operands are decimal integers, merged by addition. */
static int merge_destroyed = 0, merge_deleted = 0, partial_calls = 0;
static void merge_destroy(void* state) {
  (void)state;
  merge_destroyed++;
}
static char* sum_to_string(long long total, size_t* len) {
  char* out = malloc(32);
  *len = (size_t)snprintf(out, 32, "%lld", total);
  return out;
}
static long long parse_num(const char* p, size_t len) {
  char buf[32];
  if (len >= sizeof(buf)) return 0;
  memcpy(buf, p, len);
  buf[len] = 0;
  return atoll(buf);
}
static char* merge_full(void* state, const char* key, size_t key_length, const char* existing,
                        size_t existing_length, const char* const* operands,
                        const size_t* operand_lengths, int num_operands, unsigned char* success,
                        size_t* new_value_length) {
  (void)state;
  (void)key;
  (void)key_length;
  long long total = existing ? parse_num(existing, existing_length) : 0;
  for (int i = 0; i < num_operands; i++) {
    if (operand_lengths[i] == 3 && memcmp(operands[i], "bad", 3) == 0) {
      *success = 0;
      return NULL;
    }
    total += parse_num(operands[i], operand_lengths[i]);
  }
  *success = 1;
  return sum_to_string(total, new_value_length);
}
static char* merge_partial(void* state, const char* key, size_t key_length,
                           const char* const* operands, const size_t* operand_lengths,
                           int num_operands, unsigned char* success, size_t* new_value_length) {
  partial_calls++;
  return merge_full(state, key, key_length, NULL, 0, operands, operand_lengths, num_operands,
                    success, new_value_length);
}
static void merge_delete_value(void* state, const char* value, size_t value_length) {
  (void)state;
  (void)value_length;
  merge_deleted++;
  free((void*)value);
}
static const char* merge_name(void* state) {
  (void)state;
  return "test.add";
}

/* Compaction filter: removes keys starting with "drop", rewrites keys starting with "change". */
static int filter_destroyed = 0;
static void filter_destroy(void* state) {
  (void)state;
  filter_destroyed++;
}
static unsigned char filter_filter(void* state, int level, const char* key, size_t key_length,
                                   const char* existing_value, size_t value_length,
                                   char** new_value, size_t* new_value_length,
                                   unsigned char* value_changed) {
  (void)state;
  (void)level;
  (void)existing_value;
  (void)value_length;
  if (key_length >= 4 && memcmp(key, "drop", 4) == 0) return 1;
  if (key_length >= 6 && memcmp(key, "change", 6) == 0) {
    *new_value = "changed";
    *new_value_length = 7;
    *value_changed = 1;
  }
  return 0;
}
static const char* filter_name(void* state) {
  (void)state;
  return "test.filter";
}

/* Batch iteration: records what it sees as "P:k=v;" and "D:k;". */
static char seen[1024];
static void seen_put(void* state, const char* k, size_t klen, const char* v, size_t vlen) {
  (void)state;
  size_t n = strlen(seen);
  snprintf(seen + n, sizeof(seen) - n, "P:%.*s=%.*s;", (int)klen, k, (int)vlen, v);
}
static void seen_deleted(void* state, const char* k, size_t klen) {
  (void)state;
  size_t n = strlen(seen);
  snprintf(seen + n, sizeof(seen) - n, "D:%.*s;", (int)klen, k);
}

/* ---- Phases ---- */

static void test_options(void) {
  phase = "options";
  char* err = NULL;
  rocksdb_options_t* o = rocksdb_options_create();
  ROUNDTRIP(rocksdb_options_set_create_if_missing, rocksdb_options_get_create_if_missing, o, 1);
  ROUNDTRIP(rocksdb_options_set_create_missing_column_families,
            rocksdb_options_get_create_missing_column_families, o, 1);
  ROUNDTRIP(rocksdb_options_set_error_if_exists, rocksdb_options_get_error_if_exists, o, 1);
  ROUNDTRIP(rocksdb_options_set_paranoid_checks, rocksdb_options_get_paranoid_checks, o, 0);
  ROUNDTRIP(rocksdb_options_set_level_compaction_dynamic_level_bytes,
            rocksdb_options_get_level_compaction_dynamic_level_bytes, o, 0);
  ROUNDTRIP(rocksdb_options_set_enable_pipelined_write, rocksdb_options_get_enable_pipelined_write,
            o, 1);
  ROUNDTRIP(rocksdb_options_set_allow_concurrent_memtable_write,
            rocksdb_options_get_allow_concurrent_memtable_write, o, 0);
  ROUNDTRIP(rocksdb_options_set_enable_write_thread_adaptive_yield,
            rocksdb_options_get_enable_write_thread_adaptive_yield, o, 0);
  ROUNDTRIP(rocksdb_options_set_disable_auto_compactions,
            rocksdb_options_get_disable_auto_compactions, o, 1);
  ROUNDTRIP(rocksdb_options_set_optimize_filters_for_hits,
            rocksdb_options_get_optimize_filters_for_hits, o, 1);
  ROUNDTRIP(rocksdb_options_set_max_open_files, rocksdb_options_get_max_open_files, o, 500);
  ROUNDTRIP(rocksdb_options_set_max_open_files, rocksdb_options_get_max_open_files, o, -1);
  ROUNDTRIP(rocksdb_options_set_table_cache_numshardbits,
            rocksdb_options_get_table_cache_numshardbits, o, 4);
  ROUNDTRIP(rocksdb_options_set_num_levels, rocksdb_options_get_num_levels, o, 5);
  ROUNDTRIP(rocksdb_options_set_level0_file_num_compaction_trigger,
            rocksdb_options_get_level0_file_num_compaction_trigger, o, 3);
  ROUNDTRIP(rocksdb_options_set_level0_slowdown_writes_trigger,
            rocksdb_options_get_level0_slowdown_writes_trigger, o, 21);
  ROUNDTRIP(rocksdb_options_set_level0_stop_writes_trigger,
            rocksdb_options_get_level0_stop_writes_trigger, o, 37);
  ROUNDTRIP(rocksdb_options_set_max_write_buffer_number,
            rocksdb_options_get_max_write_buffer_number, o, 3);
  ROUNDTRIP(rocksdb_options_set_min_write_buffer_number_to_merge,
            rocksdb_options_get_min_write_buffer_number_to_merge, o, 1);
  ROUNDTRIP(rocksdb_options_set_max_background_jobs, rocksdb_options_get_max_background_jobs, o,
            3);
  ROUNDTRIP(rocksdb_options_set_target_file_size_multiplier,
            rocksdb_options_get_target_file_size_multiplier, o, 2);
  ROUNDTRIP(rocksdb_options_set_max_subcompactions, rocksdb_options_get_max_subcompactions, o,
            2u);
  ROUNDTRIP(rocksdb_options_set_write_buffer_size, rocksdb_options_get_write_buffer_size, o,
            (size_t)1 << 20);
  ROUNDTRIP(rocksdb_options_set_keep_log_file_num, rocksdb_options_get_keep_log_file_num, o,
            (size_t)7);
  ROUNDTRIP(rocksdb_options_set_max_log_file_size, rocksdb_options_get_max_log_file_size, o,
            (size_t)1 << 22);
  ROUNDTRIP(rocksdb_options_set_recycle_log_file_num, rocksdb_options_get_recycle_log_file_num, o,
            (size_t)2);
  ROUNDTRIP(rocksdb_options_set_memtable_huge_page_size,
            rocksdb_options_get_memtable_huge_page_size, o, (size_t)2 << 20);
  rocksdb_options_set_memtable_huge_page_size(o, 0);
  ROUNDTRIP(rocksdb_options_set_soft_pending_compaction_bytes_limit,
            rocksdb_options_get_soft_pending_compaction_bytes_limit, o, (size_t)1 << 30);
  ROUNDTRIP(rocksdb_options_set_hard_pending_compaction_bytes_limit,
            rocksdb_options_get_hard_pending_compaction_bytes_limit, o, (size_t)1 << 31);
  ROUNDTRIP(rocksdb_options_set_max_manifest_file_size,
            rocksdb_options_get_max_manifest_file_size, o, (size_t)1 << 26);
  ROUNDTRIP(rocksdb_options_set_max_total_wal_size, rocksdb_options_get_max_total_wal_size, o,
            (uint64_t)1 << 28);
  ROUNDTRIP(rocksdb_options_set_target_file_size_base, rocksdb_options_get_target_file_size_base,
            o, (uint64_t)1 << 21);
  ROUNDTRIP(rocksdb_options_set_max_bytes_for_level_base,
            rocksdb_options_get_max_bytes_for_level_base, o, (uint64_t)1 << 23);
  ROUNDTRIP(rocksdb_options_set_ttl, rocksdb_options_get_ttl, o, (uint64_t)3600);
  ROUNDTRIP(rocksdb_options_set_periodic_compaction_seconds,
            rocksdb_options_get_periodic_compaction_seconds, o, (uint64_t)7200);
  ROUNDTRIP(rocksdb_options_set_bytes_per_sync, rocksdb_options_get_bytes_per_sync, o,
            (uint64_t)1 << 20);
  ROUNDTRIP(rocksdb_options_set_wal_bytes_per_sync, rocksdb_options_get_wal_bytes_per_sync, o,
            (uint64_t)1 << 19);
  ROUNDTRIP(rocksdb_options_set_max_compaction_bytes, rocksdb_options_get_max_compaction_bytes, o,
            (uint64_t)1 << 25);
  ROUNDTRIP(rocksdb_options_set_delayed_write_rate, rocksdb_options_get_delayed_write_rate, o,
            (uint64_t)1 << 24);
  ROUNDTRIP(rocksdb_options_set_write_thread_max_yield_usec,
            rocksdb_options_get_write_thread_max_yield_usec, o, (uint64_t)50);
  ROUNDTRIP(rocksdb_options_set_write_thread_slow_yield_usec,
            rocksdb_options_get_write_thread_slow_yield_usec, o, (uint64_t)4);
  ROUNDTRIP(rocksdb_options_set_max_bytes_for_level_multiplier,
            rocksdb_options_get_max_bytes_for_level_multiplier, o, 8.0);
  ROUNDTRIP(rocksdb_options_set_memtable_prefix_bloom_size_ratio,
            rocksdb_options_get_memtable_prefix_bloom_size_ratio, o, 0.1);
  ROUNDTRIP(rocksdb_options_set_stats_dump_period_sec, rocksdb_options_get_stats_dump_period_sec,
            o, 60u);
  ROUNDTRIP(rocksdb_options_compaction_readahead_size,
            rocksdb_options_get_compaction_readahead_size, o, (size_t)1 << 21);
  ROUNDTRIP(rocksdb_options_set_compaction_style, rocksdb_options_get_compaction_style, o,
            rocksdb_universal_compaction);
  ROUNDTRIP(rocksdb_options_set_compaction_pri, rocksdb_options_get_compaction_pri, o,
            rocksdb_k_round_robin_compaction_pri);
  ROUNDTRIP(rocksdb_options_set_wal_recovery_mode, rocksdb_options_get_wal_recovery_mode, o,
            rocksdb_absolute_consistency_recovery);
  ROUNDTRIP(rocksdb_options_set_info_log_level, rocksdb_options_get_info_log_level, o, 2);
  ROUNDTRIP(rocksdb_options_set_compression, rocksdb_options_get_compression, o,
            rocksdb_zstd_compression);
  ROUNDTRIP(rocksdb_options_set_bottommost_compression,
            rocksdb_options_get_bottommost_compression, o, rocksdb_snappy_compression);
  ROUNDTRIP(rocksdb_options_set_bottommost_compression,
            rocksdb_options_get_bottommost_compression, o, 0xff);
  int levels[3] = {rocksdb_no_compression, rocksdb_lz4_compression, rocksdb_zstd_compression};
  rocksdb_options_set_compression_per_level(o, levels, 3);
  rocksdb_options_increase_parallelism(o, 4);
  CHECK(rocksdb_options_get_max_background_jobs(o) == 4);
  rocksdb_options_optimize_level_style_compaction(o, 64 << 20);
  CHECK(rocksdb_options_get_write_buffer_size(o) == 16 << 20);
  CHECK(rocksdb_options_get_level0_file_num_compaction_trigger(o) == 2);

  /* NULL merge operator clears it; a NULL limiter changes nothing; hooks without their
     callback are not made. */
  rocksdb_options_set_merge_operator(o, NULL);
  rocksdb_options_set_ratelimiter(o, NULL);
  CHECK(rocksdb_comparator_create(NULL, NULL, NULL, NULL) == NULL);
  CHECK(rocksdb_mergeoperator_create(NULL, NULL, NULL, NULL, NULL, NULL) == NULL);
  CHECK(rocksdb_compactionfilter_create(NULL, NULL, NULL, NULL) == NULL);

  /* A copy is independent. */
  rocksdb_options_t* copy = rocksdb_options_create_copy(o);
  rocksdb_options_set_num_levels(copy, 6);
  CHECK(rocksdb_options_get_num_levels(o) == 5);
  rocksdb_options_destroy(copy);

  /* Option strings: applied on a base; a bad one leaves the target unchanged. */
  rocksdb_options_t* parsed = rocksdb_options_create();
  rocksdb_get_options_from_string(o, "write_buffer_size=4m;max_write_buffer_number=5", parsed,
                                  &err);
  CHECK_OK(err);
  CHECK(rocksdb_options_get_write_buffer_size(parsed) == 4 << 20);
  CHECK(rocksdb_options_get_max_write_buffer_number(parsed) == 5);
  CHECK(rocksdb_options_get_num_levels(parsed) == 5);
  rocksdb_get_options_from_string(o, "write_buffer_size=4m;no_such_option=1", parsed, &err);
  CHECK_ERR(err, "Invalid argument: ");
  CHECK(rocksdb_options_get_max_write_buffer_number(parsed) == 5);
  rocksdb_options_destroy(parsed);

  /* Statistics. */
  CHECK(rocksdb_options_statistics_get_string(o) == NULL);
  rocksdb_options_enable_statistics(o);
  char* stats = rocksdb_options_statistics_get_string(o);
  CHECK(stats != NULL && strstr(stats, "rocksdb.block.cache.miss COUNT") != NULL);
  rocksdb_free(stats);
  rocksdb_options_destroy(o);

  /* Refused values make the open fail, naming the setter; nothing is created. */
  char p[4096];
  path(p, "refused");
  o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_compression(o, rocksdb_zlib_compression);
  CHECK(rocksdb_open(o, p, &err) == NULL);
  CHECK(err != NULL && strstr(err, "rocksdb_options_set_compression") != NULL);
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_options_destroy(o);
  o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_num_levels(o, -1);
  CHECK(rocksdb_open(o, p, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: rocksdb_options_set_num_levels(-1)");
  rocksdb_options_destroy(o);
  o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_ratelimiter_t* bad = rocksdb_ratelimiter_create(-5, 100000, 10);
  rocksdb_options_set_ratelimiter(o, bad);
  rocksdb_ratelimiter_destroy(bad);
  CHECK(rocksdb_open(o, p, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: rocksdb_ratelimiter_create");
  /* A good limiter replaces nothing already refused, but works on fresh options. */
  rocksdb_options_destroy(o);
  o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_ratelimiter_t* good = rocksdb_ratelimiter_create(64 << 20, 100000, 10);
  rocksdb_options_set_ratelimiter(o, good);
  rocksdb_ratelimiter_destroy(good);
  rocksdb_options_set_ratelimiter(o, NULL);
  good = rocksdb_ratelimiter_create(64 << 20, 100000, 10);
  rocksdb_options_set_ratelimiter(o, good);
  rocksdb_ratelimiter_destroy(good);
  rocksdb_t* db = rocksdb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_close(db);
  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_options_destroy(o);
}

static void test_table_options(void) {
  phase = "table_options";
  char* err = NULL;
  rocksdb_block_based_table_options_t* t = rocksdb_block_based_options_create();
  ROUNDTRIP(rocksdb_block_based_options_set_block_size, rocksdb_block_based_options_get_block_size,
            t, 8192u);
  ROUNDTRIP(rocksdb_block_based_options_set_block_restart_interval,
            rocksdb_block_based_options_get_block_restart_interval, t, 8);
  ROUNDTRIP(rocksdb_block_based_options_set_index_block_restart_interval,
            rocksdb_block_based_options_get_index_block_restart_interval, t, 2);
  ROUNDTRIP(rocksdb_block_based_options_set_whole_key_filtering,
            rocksdb_block_based_options_get_whole_key_filtering, t, 0);
  ROUNDTRIP(rocksdb_block_based_options_set_cache_index_and_filter_blocks,
            rocksdb_block_based_options_get_cache_index_and_filter_blocks, t, 1);
  ROUNDTRIP(rocksdb_block_based_options_set_checksum, rocksdb_block_based_options_get_checksum, t,
            1);
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom(12));
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom_full(10));
  rocksdb_filterpolicy_destroy(rocksdb_filterpolicy_create_bloom(5));

  rocksdb_cache_t* cache = rocksdb_cache_create_lru(1 << 20);
  CHECK(rocksdb_cache_get_capacity(cache) == 1 << 20);
  CHECK(rocksdb_block_based_options_get_no_block_cache(t) == 0); /* RocksDB's default */
  rocksdb_block_based_options_set_block_cache(t, cache);
  rocksdb_block_based_options_set_block_cache(t, NULL); /* changes nothing */
  ROUNDTRIP(rocksdb_block_based_options_set_no_block_cache,
            rocksdb_block_based_options_get_no_block_cache, t, 1);
  rocksdb_block_based_options_set_no_block_cache(t, 0);

  char p[4096];
  path(p, "table");
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_block_based_table_factory(o, t);
  rocksdb_t* db = rocksdb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  for (int i = 0; i < 200; i++) {
    char k[16];
    snprintf(k, sizeof(k), "key%03d", i);
    rocksdb_put(db, wo, k, strlen(k), "value", 5, &err);
    CHECK_OK(err);
  }
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_flush(db, fo, &err);
  CHECK_OK(err);
  check_get(db, ro, "key007", "value");
  /* The database's reads went through the cache set on the table options. */
  CHECK(rocksdb_cache_get_usage(cache) > 0);
  CHECK(rocksdb_cache_get_pinned_usage(cache) <= rocksdb_cache_get_usage(cache));
  rocksdb_close(db);
  rocksdb_options_destroy(o);

  /* A refused checksum type is reported by the open of options built from the table options. */
  rocksdb_block_based_options_set_checksum(t, 3);
  o = rocksdb_options_create();
  rocksdb_options_set_block_based_table_factory(o, t);
  CHECK(rocksdb_open(o, p, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: rocksdb_block_based_options_set_checksum(3)");
  rocksdb_options_destroy(o);

  /* no_block_cache = 1 wins over a set cache: reads then leave the cache alone. */
  rocksdb_block_based_options_set_checksum(t, 4);
  rocksdb_block_based_options_destroy(t);
  t = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_block_cache(t, cache);
  rocksdb_block_based_options_set_no_block_cache(t, 1);
  rocksdb_block_based_options_set_filter_policy(t, NULL);
  size_t used_before = rocksdb_cache_get_usage(cache);
  char p2[4096];
  path(p2, "table-nocache");
  o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_block_based_table_factory(o, t);
  db = rocksdb_open(o, p2, &err);
  CHECK_OK(err);
  rocksdb_put(db, wo, "k", 1, "v", 1, &err);
  rocksdb_flush(db, fo, &err);
  CHECK_OK(err);
  check_get(db, ro, "k", "v");
  CHECK(rocksdb_cache_get_usage(cache) == used_before);
  rocksdb_close(db);
  rocksdb_options_destroy(o);
  rocksdb_block_based_options_destroy(t);
  rocksdb_cache_destroy(cache);
  cache = rocksdb_cache_create_lru_with_strict_capacity_limit(1 << 16);
  CHECK(rocksdb_cache_get_usage(cache) == 0);
  rocksdb_cache_destroy(cache);
  rocksdb_flushoptions_destroy(fo);
  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
}

static void test_db(void) {
  phase = "db";
  char* err = NULL;
  char p[4096], cp[4096];
  path(p, "db");
  path(cp, "db-checkpoint");
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_destroy_db(o, p, &err); /* nothing there yet: not an error */
  CHECK_OK(err);
  CHECK(rocksdb_open(o, p, &err) == NULL); /* missing, no create_if_missing */
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_uint64add_merge_operator(o);
  rocksdb_t* db = rocksdb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_destroy_db(o, p, &err); /* open: refused (RocksDB's IOError), deletes nothing */
  CHECK_ERR(err, "IO error: ");

  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  ROUNDTRIP(rocksdb_writeoptions_set_sync, rocksdb_writeoptions_get_sync, wo, 1);
  ROUNDTRIP(rocksdb_writeoptions_set_no_slowdown, rocksdb_writeoptions_get_no_slowdown, wo, 1);
  ROUNDTRIP(rocksdb_writeoptions_disable_WAL, rocksdb_writeoptions_get_disable_WAL, wo, 1);
  rocksdb_writeoptions_disable_WAL(wo, 0);
  rocksdb_writeoptions_set_no_slowdown(wo, 0);
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  ROUNDTRIP(rocksdb_readoptions_set_verify_checksums, rocksdb_readoptions_get_verify_checksums, ro,
            0);
  ROUNDTRIP(rocksdb_readoptions_set_verify_checksums, rocksdb_readoptions_get_verify_checksums, ro,
            1);
  ROUNDTRIP(rocksdb_readoptions_set_fill_cache, rocksdb_readoptions_get_fill_cache, ro, 0);
  ROUNDTRIP(rocksdb_readoptions_set_total_order_seek, rocksdb_readoptions_get_total_order_seek, ro,
            1);
  ROUNDTRIP(rocksdb_readoptions_set_prefix_same_as_start,
            rocksdb_readoptions_get_prefix_same_as_start, ro, 1);
  rocksdb_readoptions_set_prefix_same_as_start(ro, 0);

  check_get(db, ro, "a", NULL);
  rocksdb_put(db, wo, "a", 1, "1", 1, &err);
  CHECK_OK(err);
  rocksdb_put(db, wo, "b", 1, "", 0, &err); /* an empty value is a value */
  CHECK_OK(err);
  check_get(db, ro, "a", "1");
  check_get(db, ro, "b", "");
  rocksdb_delete(db, wo, "a", 1, &err);
  CHECK_OK(err);
  check_get(db, ro, "a", NULL);
  rocksdb_put(db, wo, "s", 1, "x", 1, &err);
  rocksdb_singledelete(db, wo, "s", 1, &err);
  CHECK_OK(err);
  check_get(db, ro, "s", NULL);
  uint64_t one = 1, two = 2, three = 0;
  rocksdb_merge(db, wo, "n", 1, (const char*)&one, 8, &err);
  rocksdb_merge(db, wo, "n", 1, (const char*)&two, 8, &err);
  CHECK_OK(err);
  size_t len = 0;
  char* v = rocksdb_get(db, ro, "n", 1, &len, &err);
  CHECK_OK(err);
  CHECK(len == 8);
  memcpy(&three, v, 8);
  CHECK(three == 3);
  rocksdb_free(v);
  /* A malformed operand is reported for its key (CairnDB's counter refuses it), not read. */
  rocksdb_merge(db, wo, "n", 1, "xyz", 3, &err);
  CHECK_OK(err);
  v = rocksdb_get(db, ro, "n", 1, &len, &err);
  CHECK(v == NULL);
  CHECK_ERR(err, "Corruption: ");
  /* A key over 8 MiB is refused. */
  size_t big = (8u << 20) + 1;
  char* huge = calloc(big, 1);
  rocksdb_put(db, wo, huge, big, "v", 1, &err);
  CHECK_ERR(err, "Invalid argument: ");

  /* multi_get: values, absences and per-key errors. */
  const char* keys[3] = {"b", "zz", "n"};
  size_t key_sizes[3] = {1, 2, 1};
  char* values[3];
  size_t value_sizes[3];
  char* errs[3];
  rocksdb_multi_get(db, ro, 3, keys, key_sizes, values, value_sizes, errs);
  CHECK(values[0] != NULL && value_sizes[0] == 0 && errs[0] == NULL);
  CHECK(values[1] == NULL && errs[1] == NULL);
  CHECK(values[2] == NULL);
  CHECK_ERR(errs[2], "Corruption: ");
  rocksdb_free(values[0]);

  /* Pinned reads. */
  rocksdb_put(db, wo, "p", 1, "pinned", 6, &err);
  rocksdb_pinnableslice_t* ps = rocksdb_get_pinned(db, ro, "p", 1, &err);
  CHECK_OK(err);
  const char* pv = rocksdb_pinnableslice_value(ps, &len);
  CHECK(len == 6 && memcmp(pv, "pinned", 6) == 0);
  rocksdb_pinnableslice_destroy(ps);
  CHECK(rocksdb_get_pinned(db, ro, "nope", 4, &err) == NULL);
  CHECK_OK(err);
  CHECK(rocksdb_pinnableslice_value(NULL, &len) == NULL && len == 0);

  /* key_may_exist: 0 proves absence; with value found it is returned. */
  char* kv = NULL;
  size_t kvlen = 0;
  unsigned char found = 9;
  CHECK(rocksdb_key_may_exist(db, ro, "nope", 4, &kv, &kvlen, NULL, 0, &found) == 0);
  CHECK(found == 0);
  CHECK(rocksdb_key_may_exist(db, ro, "p", 1, &kv, &kvlen, NULL, 0, &found) == 1);
  CHECK(found == 1 && kvlen == 6 && memcmp(kv, "pinned", 6) == 0);
  rocksdb_free(kv);
  kv = NULL;
  CHECK(rocksdb_key_may_exist(db, ro, "p", 1, &kv, &kvlen, NULL, 0, NULL) == 1);
  CHECK(kv == NULL); /* no value_found: nothing handed out (LeakSanitizer would see it) */

  /* Snapshots. */
  const rocksdb_snapshot_t* snap = rocksdb_create_snapshot(db);
  uint64_t seq = rocksdb_get_latest_sequence_number(db);
  CHECK(rocksdb_snapshot_get_sequence_number(snap) == seq);
  rocksdb_put(db, wo, "p", 1, "newer", 5, &err);
  CHECK(rocksdb_get_latest_sequence_number(db) == seq + 1);
  rocksdb_readoptions_set_snapshot(ro, snap);
  check_get(db, ro, "p", "pinned");
  rocksdb_readoptions_set_snapshot(ro, NULL);
  check_get(db, ro, "p", "newer");
  rocksdb_release_snapshot(db, snap);

  /* Iterators with bounds. */
  for (char c = 'c'; c <= 'h'; c++) {
    char k[2] = {c, 0};
    rocksdb_put(db, wo, k, 1, k, 1, &err);
    CHECK_OK(err);
  }
  rocksdb_readoptions_set_iterate_lower_bound(ro, "d", 1);
  rocksdb_readoptions_set_iterate_upper_bound(ro, "g", 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db, ro);
  rocksdb_iter_seek_to_first(it);
  check_iter(it, "d", "d");
  rocksdb_iter_next(it);
  check_iter(it, "e", "e");
  rocksdb_iter_seek_to_last(it);
  check_iter(it, "f", "f");
  rocksdb_iter_prev(it);
  check_iter(it, "e", "e");
  rocksdb_iter_seek(it, "e", 1);
  check_iter(it, "e", "e");
  rocksdb_slice_t ks = rocksdb_iter_key_slice(it);
  rocksdb_slice_t vsl = rocksdb_iter_value_slice(it);
  CHECK(ks.size == 1 && ks.data[0] == 'e' && vsl.size == 1 && vsl.data[0] == 'e');
  rocksdb_iter_seek_for_prev(it, "ez", 2);
  check_iter(it, "e", "e");
  rocksdb_iter_seek(it, "z", 1);
  CHECK(!rocksdb_iter_valid(it));
  CHECK(rocksdb_iter_key_slice(it).data == NULL && rocksdb_iter_value_slice(it).size == 0);
  CHECK(rocksdb_iter_key(it, &len) == NULL && len == 0);
  CHECK(rocksdb_iter_value(it, &len) == NULL && len == 0);
  rocksdb_iter_next(it); /* moving an invalid iterator leaves it invalid */
  rocksdb_iter_prev(it);
  CHECK(!rocksdb_iter_valid(it));
  rocksdb_iter_get_error(it, &err);
  CHECK_OK(err);
  rocksdb_iter_destroy(it);
  rocksdb_readoptions_set_iterate_lower_bound(ro, NULL, 0);
  rocksdb_readoptions_set_iterate_upper_bound(ro, NULL, 0);

  /* Properties. */
  char* prop = rocksdb_property_value(db, "rocksdb.stats");
  CHECK(prop != NULL && strlen(prop) > 0);
  rocksdb_free(prop);
  CHECK(rocksdb_property_value(db, "rocksdb.no-such-property") == NULL);
  uint64_t n = 0;
  CHECK(rocksdb_property_int(db, "rocksdb.num-files-at-level0", &n) == 0);
  CHECK(rocksdb_property_int(db, "rocksdb.no-such-property", &n) == -1);

  /* Dynamic options: all or nothing. */
  const char* okeys[2] = {"write_buffer_size", "no_such_option"};
  const char* ovals[2] = {"1048576", "1"};
  rocksdb_set_options(db, 1, okeys, ovals, &err);
  CHECK_OK(err);
  rocksdb_set_options(db, 2, okeys, ovals, &err);
  CHECK_ERR(err, "Invalid argument: ");
  const char* dkeys[1] = {"stats_dump_period_sec"};
  const char* dvals[1] = {"10"};
  rocksdb_set_db_options(db, 1, dkeys, dvals, &err);
  CHECK_OK(err);
  dkeys[0] = "not_a_db_option";
  rocksdb_set_db_options(db, 1, dkeys, dvals, &err);
  CHECK_ERR(err, "Invalid argument: ");

  /* Flush (a flush that does not wait is refused), compaction, sizes. */
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  ROUNDTRIP(rocksdb_flushoptions_set_wait, rocksdb_flushoptions_get_wait, fo, 0);
  rocksdb_flush(db, fo, &err);
  CHECK_ERR(err, "Not implemented: ");
  rocksdb_flushoptions_set_wait(fo, 1);
  rocksdb_flush(db, fo, &err);
  CHECK_OK(err);
  CHECK(rocksdb_property_int(db, "rocksdb.num-files-at-level0", &n) == 0 && n >= 1);
  rocksdb_compact_range(db, NULL, 0, NULL, 0);
  rocksdb_compact_range(db, "a", 1, "z", 1);
  check_get(db, ro, "e", "e");
  const char* starts[2] = {"a", "x"};
  const char* limits[2] = {"z", "y"};
  size_t slen[2] = {1, 1}, llen[2] = {1, 1};
  uint64_t sizes[2] = {7, 7};
  rocksdb_approximate_sizes(db, 2, starts, slen, limits, llen, sizes, &err);
  CHECK_OK(err);
  CHECK(sizes[0] > 0 && sizes[1] == 0);

  /* A read-only open and a secondary instance beside the writer `db` (no lock for either). */
  {
    char sec[4096];
    path(sec, "db-secondary");
    rocksdb_t* rdb = rocksdb_open_for_read_only(o, p, 0, &err);
    CHECK_OK(err);
    check_get(rdb, ro, "e", "e");
    rocksdb_put(rdb, wo, "x", 1, "y", 1, &err);
    CHECK_ERR(err, "Not implemented: ");
    rocksdb_try_catch_up_with_primary(rdb, &err); /* not a secondary */
    CHECK_ERR(err, "Not implemented: ");
    rocksdb_close(rdb);
    CHECK(rocksdb_open_for_read_only(o, p, 1, &err) == NULL); /* a live WAL exists */
    CHECK_ERR(err, "Corruption: ");
    rocksdb_t* sdb = rocksdb_open_as_secondary(o, p, sec, &err);
    CHECK_OK(err);
    rocksdb_put(db, wo, "later", 5, "v", 1, &err);
    CHECK_OK(err);
    check_get(sdb, ro, "later", NULL);
    rocksdb_try_catch_up_with_primary(sdb, &err);
    CHECK_OK(err);
    check_get(sdb, ro, "later", "v");
    rocksdb_close(sdb);
  }

  /* Checkpoints. */
  rocksdb_checkpoint_t* ck = rocksdb_checkpoint_object_create(db, &err);
  CHECK_OK(err);
  /* The WALs are far below log_size_for_flush: no flush, the memtable's data is in the copied
     WAL (the reopen below reads it from there). */
  rocksdb_checkpoint_create(ck, cp, UINT64_MAX, &err);
  CHECK_OK(err);
  rocksdb_checkpoint_create(ck, cp, 0, &err); /* the directory exists now */
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_checkpoint_object_destroy(ck);
  rocksdb_close(db);
  db = rocksdb_open(o, cp, &err);
  CHECK_OK(err);
  check_get(db, ro, "p", "newer");
  rocksdb_close(db);

  /* error_if_exists. */
  rocksdb_options_set_error_if_exists(o, 1);
  CHECK(rocksdb_open(o, p, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_destroy_db(o, cp, &err);
  CHECK_OK(err);
  rocksdb_options_set_error_if_exists(o, 0);
  rocksdb_options_set_create_if_missing(o, 0);
  CHECK(rocksdb_open(o, p, &err) == NULL); /* really gone */
  CHECK_ERR(err, "Invalid argument: ");

  free(huge);
  rocksdb_flushoptions_destroy(fo);
  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
  rocksdb_options_destroy(o);
}

static void test_batch(void) {
  phase = "batch";
  char* err = NULL;
  char p[4096];
  path(p, "batch");
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_create_missing_column_families(o, 1);
  rocksdb_t* db = rocksdb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_column_family_handle_t* cf = rocksdb_create_column_family(db, o, "other", &err);
  CHECK_OK(err);
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();

  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  rocksdb_writebatch_put(b, "k1", 2, "v1", 2);
  rocksdb_writebatch_put(b, "k2", 2, "v2", 2);
  rocksdb_writebatch_delete(b, "k1", 2);
  rocksdb_writebatch_singledelete(b, "k9", 2);
  rocksdb_writebatch_merge(b, "m", 1, "x", 1);
  const char* kparts[2] = {"k", "3"};
  size_t kpsizes[2] = {1, 1};
  const char* vparts[3] = {"v", "3", "!"};
  size_t vpsizes[3] = {1, 1, 1};
  rocksdb_writebatch_putv(b, 2, kparts, kpsizes, 3, vparts, vpsizes);
  CHECK(rocksdb_writebatch_count(b) == 6);
  seen[0] = 0;
  rocksdb_writebatch_iterate(b, NULL, seen_put, seen_deleted);
  CHECK(strcmp(seen, "P:k1=v1;P:k2=v2;D:k1;P:k3=v3!;") == 0);
  seen[0] = 0;
  rocksdb_writebatch_iterate(b, NULL, NULL, seen_deleted); /* a NULL callback is skipped */
  CHECK(strcmp(seen, "D:k1;") == 0);
  rocksdb_writebatch_t* ranged = rocksdb_writebatch_create();
  rocksdb_writebatch_put(ranged, "a", 1, "1", 1);
  rocksdb_writebatch_delete_range(ranged, "b", 1, "c", 1);
  rocksdb_writebatch_put(ranged, "d", 1, "4", 1);
  seen[0] = 0;
  rocksdb_writebatch_iterate(ranged, NULL, seen_put, seen_deleted); /* stops at the range */
  CHECK(strcmp(seen, "P:a=1;") == 0);
  rocksdb_writebatch_destroy(ranged);

  /* The representation round trips; a damaged one makes a batch whose write fails. */
  size_t size = 0;
  const char* rep = rocksdb_writebatch_data(b, &size);
  rocksdb_writebatch_t* copy = rocksdb_writebatch_create_from(rep, size);
  CHECK(rocksdb_writebatch_count(copy) == 6);
  rocksdb_writebatch_destroy(copy);
  copy = rocksdb_writebatch_create_from(rep, size - 1);
  rocksdb_write(db, wo, copy, &err);
  CHECK_ERR(err, "Corruption: ");
  rocksdb_writebatch_destroy(copy);

  /* Save points. */
  rocksdb_writebatch_rollback_to_save_point(b, &err);
  CHECK_ERR(err, "NotFound: ");
  rocksdb_writebatch_pop_save_point(b, &err);
  CHECK_ERR(err, "NotFound: ");
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_put(b, "gone", 4, "x", 1);
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_put(b, "gone2", 5, "x", 1);
  rocksdb_writebatch_pop_save_point(b, &err);
  CHECK_OK(err);
  rocksdb_writebatch_rollback_to_save_point(b, &err);
  CHECK_OK(err);
  CHECK(rocksdb_writebatch_count(b) == 6);

  /* Column families, ranges. */
  rocksdb_writebatch_put_cf(b, cf, "c1", 2, "cv1", 3);
  rocksdb_writebatch_put_cf(b, cf, "c2", 2, "cv2", 3);
  rocksdb_writebatch_putv_cf(b, cf, 2, kparts, kpsizes, 3, vparts, vpsizes);
  rocksdb_writebatch_delete_cf(b, cf, "c2", 2);
  rocksdb_writebatch_singledelete_cf(b, cf, "c9", 2);
  rocksdb_writebatch_merge_cf(b, cf, "cm", 2, "y", 1);
  rocksdb_writebatch_put(b, "r1", 2, "x", 1);
  rocksdb_writebatch_put(b, "r2", 2, "x", 1);
  rocksdb_writebatch_delete_range(b, "r1", 2, "r2", 2);
  rocksdb_writebatch_put_cf(b, cf, "cr", 2, "x", 1);
  rocksdb_writebatch_delete_range_cf(b, cf, "cr", 2, "cs", 2);
  /* No merge operator: the write is refused as a whole. */
  rocksdb_write(db, wo, b, &err);
  CHECK_ERR(err, "Invalid argument: ");
  check_get(db, ro, "k2", NULL);
  rocksdb_writebatch_clear(b);
  CHECK(rocksdb_writebatch_count(b) == 0);

  rocksdb_writebatch_put_cf(b, cf, "d1", 2, "x", 1);
  rocksdb_writebatch_put_cf(b, cf, "s1", 2, "x", 1);
  rocksdb_writebatch_put_cf(b, cf, "r1", 2, "x", 1);
  rocksdb_writebatch_put_cf(b, cf, "r2", 2, "x", 1);
  rocksdb_write(db, wo, b, &err);
  CHECK_OK(err);
  rocksdb_writebatch_clear(b);
  rocksdb_writebatch_delete_cf(b, cf, "d1", 2);
  rocksdb_writebatch_singledelete_cf(b, cf, "s1", 2);
  rocksdb_writebatch_delete_range_cf(b, cf, "r1", 2, "r2", 2);
  rocksdb_write(db, wo, b, &err);
  CHECK_OK(err);
  check_get_cf(db, ro, cf, "d1", NULL);
  check_get_cf(db, ro, cf, "s1", NULL);
  check_get_cf(db, ro, cf, "r1", NULL);
  check_get_cf(db, ro, cf, "r2", "x");
  rocksdb_writebatch_clear(b);
  rocksdb_writebatch_put(b, "k2", 2, "v2", 2);
  rocksdb_writebatch_put_cf(b, cf, "c1", 2, "cv1", 3);
  rocksdb_writebatch_putv_cf(b, cf, 2, kparts, kpsizes, 3, vparts, vpsizes);
  rocksdb_writebatch_put(b, "r1", 2, "x", 1);
  rocksdb_writebatch_delete_range(b, "r1", 2, "r2", 2);
  rocksdb_write(db, wo, b, &err);
  CHECK_OK(err);
  check_get(db, ro, "k2", "v2");
  check_get(db, ro, "r1", NULL);
  check_get_cf(db, ro, cf, "c1", "cv1");
  check_get_cf(db, ro, cf, "k3", "v3!");
  /* Iteration stops at the first record of another family, as RocksDB's handler does. */
  seen[0] = 0;
  rocksdb_writebatch_iterate(b, NULL, seen_put, seen_deleted);
  CHECK(strcmp(seen, "P:k2=v2;") == 0);

  /* A refused record (key over 8 MiB) makes the whole batch fail; clear forgets it. */
  size_t big = (8u << 20) + 1;
  char* huge = calloc(big, 1);
  rocksdb_writebatch_clear(b);
  rocksdb_writebatch_put(b, "ok", 2, "1", 1);
  rocksdb_writebatch_put(b, huge, big, "v", 1);
  CHECK(rocksdb_writebatch_count(b) == 1);
  rocksdb_write(db, wo, b, &err);
  CHECK_ERR(err, "Invalid argument: ");
  check_get(db, ro, "ok", NULL);
  /* A refusal inside a save point is forgotten when the batch rolls back past it. */
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_put(b, huge, big, "v", 1);
  rocksdb_writebatch_pop_save_point(b, &err);
  rocksdb_writebatch_rollback_to_save_point(b, &err);
  CHECK_OK(err);
  rocksdb_writebatch_clear(b);
  rocksdb_writebatch_put(b, "ok", 2, "0", 1);
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_put(b, huge, big, "v", 1);
  rocksdb_writebatch_rollback_to_save_point(b, &err);
  CHECK_OK(err);
  rocksdb_write(db, wo, b, &err);
  CHECK_OK(err);
  check_get(db, ro, "ok", "0");
  rocksdb_writebatch_clear(b);
  rocksdb_writebatch_put(b, "ok", 2, "1", 1);
  rocksdb_write(db, wo, b, &err);
  CHECK_OK(err);
  check_get(db, ro, "ok", "1");
  free(huge);

  /* Vector deletes. */
  rocksdb_writebatch_clear(b);
  const char* dparts[2] = {"o", "k"};
  size_t dsizes[2] = {1, 1};
  rocksdb_writebatch_deletev(b, 2, dparts, dsizes);
  rocksdb_writebatch_deletev_cf(b, cf, 1, kparts, kpsizes); /* deletes "k" in cf */
  const char* rs[1] = {"c0"};
  const char* re[1] = {"c9"};
  size_t rsz[1] = {2};
  rocksdb_writebatch_delete_rangev_cf(b, cf, 1, rs, rsz, re, rsz);
  rocksdb_writebatch_put(b, "z1", 2, "x", 1);
  rocksdb_writebatch_put(b, "z2", 2, "x", 1);
  const char* zs[2] = {"z", "1"};
  const char* ze[2] = {"z", "2"};
  size_t zsz[2] = {1, 1};
  rocksdb_writebatch_delete_rangev(b, 2, zs, zsz, ze, zsz);
  rocksdb_write(db, wo, b, &err);
  CHECK_OK(err);
  check_get(db, ro, "ok", NULL);
  check_get_cf(db, ro, cf, "c1", NULL);
  check_get(db, ro, "z1", NULL);
  check_get(db, ro, "z2", "x");

  /* Protected batches: a record damaged in memory after it was added is caught. */
  rocksdb_writebatch_t* pb = rocksdb_writebatch_create_with_params(64, 0, 8, 0);
  rocksdb_writebatch_put(pb, "pk", 2, "pv", 2);
  rocksdb_writebatch_put_cf(pb, cf, "pk", 2, "pv", 2);
  rocksdb_writebatch_set_save_point(pb);
  rocksdb_writebatch_delete(pb, "gone", 4);
  rocksdb_writebatch_rollback_to_save_point(pb, &err);
  CHECK_OK(err);
  rocksdb_writebatch_verify_checksum(pb, &err);
  CHECK_OK(err);
  char* raw = (char*)rocksdb_writebatch_data(pb, &size);
  raw[size - 1] ^= 1; /* the last byte of the last value */
  rocksdb_writebatch_verify_checksum(pb, &err);
  CHECK_ERR(err, "Corruption: ");
  rocksdb_write(db, wo, pb, &err);
  CHECK_ERR(err, "Corruption: ");
  check_get(db, ro, "pk", NULL);
  rocksdb_writebatch_clear(pb);
  rocksdb_writebatch_put(pb, "pk", 2, "pv", 2);
  rocksdb_write(db, wo, pb, &err);
  CHECK_OK(err);
  check_get(db, ro, "pk", "pv");
  rocksdb_writebatch_destroy(pb);
  /* An unprotected batch has nothing to verify. */
  rocksdb_writebatch_verify_checksum(b, &err);
  CHECK_OK(err);
  /* max_bytes: the record that would pass it is refused, and the batch's writes fail. */
  pb = rocksdb_writebatch_create_with_params(0, 40, 0, 0);
  rocksdb_writebatch_put(pb, "a", 1, "1", 1);
  rocksdb_writebatch_put(pb, "bbbbbbbbbbbbbbbbbbbb", 20, "2", 1);
  CHECK(rocksdb_writebatch_count(pb) == 1);
  rocksdb_write(db, wo, pb, &err);
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_writebatch_destroy(pb);
  /* Unsupported creation parameters refuse every write. */
  pb = rocksdb_writebatch_create_with_params(0, 0, 4, 0);
  rocksdb_writebatch_put(pb, "a", 1, "1", 1);
  rocksdb_write(db, wo, pb, &err);
  CHECK_ERR(err, "Not implemented: ");
  rocksdb_writebatch_clear(pb);
  rocksdb_write(db, wo, pb, &err);
  CHECK_ERR(err, "Not implemented: ");
  rocksdb_writebatch_destroy(pb);
  pb = rocksdb_writebatch_create_with_params(0, 0, 0, 8);
  rocksdb_write(db, wo, pb, &err);
  CHECK_ERR(err, "Not implemented: ");
  rocksdb_writebatch_destroy(pb);

  rocksdb_writebatch_destroy(b);
  rocksdb_column_family_handle_destroy(cf);
  rocksdb_close(db);
  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
  rocksdb_options_destroy(o);
}

static void test_column_families(void) {
  phase = "column_families";
  char* err = NULL;
  char p[4096];
  path(p, "cf");
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_t* db = rocksdb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_options_t* cfo = rocksdb_options_create();
  rocksdb_options_set_uint64add_merge_operator(cfo);
  rocksdb_column_family_handle_t* cf = rocksdb_create_column_family(db, cfo, "counters", &err);
  CHECK_OK(err);
  CHECK(rocksdb_create_column_family(db, cfo, "counters", &err) == NULL);
  CHECK_ERR(err, "Invalid argument: ");
  CHECK(rocksdb_column_family_handle_get_id(cf) > 0);
  size_t len = 0;
  char* name = rocksdb_column_family_handle_get_name(cf, &len);
  CHECK(len == 8 && memcmp(name, "counters", 8) == 0);
  rocksdb_free(name);
  rocksdb_column_family_handle_t* def = rocksdb_get_default_column_family_handle(db);
  CHECK(rocksdb_column_family_handle_get_id(def) == 0);

  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  uint64_t five = 5;
  rocksdb_put_cf(db, wo, cf, "a", 1, (const char*)&five, 8, &err);
  rocksdb_merge_cf(db, wo, cf, "a", 1, (const char*)&five, 8, &err);
  CHECK_OK(err);
  char* v = rocksdb_get_cf(db, ro, cf, "a", 1, &len, &err);
  CHECK_OK(err);
  uint64_t got = 0;
  CHECK(v != NULL && len == 8);
  memcpy(&got, v, 8);
  CHECK(got == 10);
  rocksdb_free(v);
  check_get(db, ro, "a", NULL); /* families are separate */
  rocksdb_put_cf(db, wo, def, "a", 1, "default", 7, &err);
  check_get(db, ro, "a", "default");
  rocksdb_put_cf(db, wo, cf, "d", 1, "x", 1, &err);
  rocksdb_delete_cf(db, wo, cf, "d", 1, &err);
  rocksdb_put_cf(db, wo, cf, "s", 1, "x", 1, &err);
  rocksdb_singledelete_cf(db, wo, cf, "s", 1, &err);
  rocksdb_put_cf(db, wo, cf, "r1", 2, "x", 1, &err);
  rocksdb_put_cf(db, wo, cf, "r2", 2, "x", 1, &err);
  rocksdb_delete_range_cf(db, wo, cf, "r1", 2, "r2", 2, &err);
  CHECK_OK(err);
  check_get_cf(db, ro, cf, "d", NULL);
  check_get_cf(db, ro, cf, "s", NULL);
  check_get_cf(db, ro, cf, "r1", NULL);
  check_get_cf(db, ro, cf, "r2", "x");

  rocksdb_pinnableslice_t* ps = rocksdb_get_pinned_cf(db, ro, cf, "r2", 2, &err);
  CHECK_OK(err);
  const char* pv = rocksdb_pinnableslice_value(ps, &len);
  CHECK(len == 1 && pv[0] == 'x');
  rocksdb_pinnableslice_destroy(ps);

  const rocksdb_column_family_handle_t* fams[3] = {cf, def, cf};
  const char* keys[3] = {"r2", "a", "zz"};
  size_t ks[3] = {2, 1, 2};
  char* vals[3];
  size_t vs[3];
  char* errs[3];
  rocksdb_multi_get_cf(db, ro, fams, 3, keys, ks, vals, vs, errs);
  CHECK(vals[0] != NULL && vs[0] == 1 && errs[0] == NULL);
  CHECK(vals[1] != NULL && vs[1] == 7 && memcmp(vals[1], "default", 7) == 0);
  CHECK(vals[2] == NULL && errs[2] == NULL);
  rocksdb_free(vals[0]);
  rocksdb_free(vals[1]);

  char* kv = NULL;
  size_t kvlen = 0;
  unsigned char found = 0;
  CHECK(rocksdb_key_may_exist_cf(db, ro, cf, "r2", 2, &kv, &kvlen, NULL, 0, &found) == 1);
  CHECK(found == 1);
  rocksdb_free(kv);
  CHECK(rocksdb_key_may_exist_cf(db, ro, cf, "zz", 2, NULL, NULL, NULL, 0, NULL) == 0);

  rocksdb_iterator_t* it = rocksdb_create_iterator_cf(db, ro, cf);
  rocksdb_iter_seek_to_first(it);
  CHECK(rocksdb_iter_valid(it));
  rocksdb_iter_seek(it, "r", 1);
  check_iter(it, "r2", "x");
  rocksdb_iter_destroy(it);

  const char* okeys[1] = {"write_buffer_size"};
  const char* ovals[1] = {"2097152"};
  rocksdb_set_options_cf(db, cf, 1, okeys, ovals, &err);
  CHECK_OK(err);
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_flushoptions_set_wait(fo, 0);
  rocksdb_flush_cf(db, fo, cf, &err);
  CHECK_ERR(err, "Not implemented: ");
  rocksdb_flushoptions_set_wait(fo, 1);
  rocksdb_flush_cf(db, fo, cf, &err);
  CHECK_OK(err);
  uint64_t files = 0;
  CHECK(rocksdb_property_int_cf(db, cf, "rocksdb.num-files-at-level0", &files) == 0);
  CHECK(files == 1);
  CHECK(rocksdb_property_int_cf(db, cf, "rocksdb.nope", &files) == -1);
  char* prop = rocksdb_property_value_cf(db, cf, "rocksdb.num-files-at-level0");
  CHECK(prop != NULL && strcmp(prop, "1") == 0);
  rocksdb_free(prop);
  CHECK(rocksdb_property_value_cf(db, cf, "rocksdb.nope") == NULL);
  rocksdb_compact_range_cf(db, cf, NULL, 0, NULL, 0);
  const char* starts[1] = {"a"};
  const char* limits[1] = {"z"};
  size_t sl[1] = {1}, ll[1] = {1};
  uint64_t sizes[1] = {0};
  rocksdb_approximate_sizes_cf(db, cf, 1, starts, sl, limits, ll, sizes, &err);
  CHECK_OK(err);
  CHECK(sizes[0] > 0);

  rocksdb_column_family_handle_t* tmp = rocksdb_create_column_family(db, o, "temporary", &err);
  CHECK_OK(err);
  rocksdb_drop_column_family(db, tmp, &err);
  CHECK_OK(err);
  rocksdb_put_cf(db, wo, tmp, "a", 1, "b", 1, &err); /* the family is gone */
  CHECK(err != NULL);
  rocksdb_free(err);
  err = NULL;
  rocksdb_column_family_handle_destroy(tmp);
  rocksdb_column_family_handle_destroy(cf);
  rocksdb_column_family_handle_destroy(def);
  rocksdb_close(db);

  size_t ncf = 0;
  char** names = rocksdb_list_column_families(o, p, &ncf, &err);
  CHECK_OK(err);
  CHECK(ncf == 2 && strcmp(names[0], "default") == 0 && strcmp(names[1], "counters") == 0);
  rocksdb_list_column_families_destroy(names, ncf);
  char missing[4096];
  path(missing, "no-such-db");
  CHECK(rocksdb_list_column_families(o, missing, &ncf, &err) == NULL);
  CHECK(err != NULL && ncf == 0);
  rocksdb_free(err);
  err = NULL;

  /* Every family must be named when opening (RocksDB's rule). */
  CHECK(rocksdb_open(o, p, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: Column families not opened: counters");
  const char* only_default[1] = {"default"};
  const rocksdb_options_t* only_default_opts[1] = {o};
  rocksdb_column_family_handle_t* one[1];
  CHECK(rocksdb_open_column_families(o, p, 1, only_default, only_default_opts, one, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: Column families not opened: counters");

  /* Reopen with both families; handles come back in the order asked. */
  const char* cf_names[2] = {"counters", "default"};
  const rocksdb_options_t* cf_opts[2] = {cfo, o};
  rocksdb_column_family_handle_t* handles[2];
  db = rocksdb_open_column_families(o, p, 2, cf_names, cf_opts, handles, &err);
  CHECK_OK(err);
  check_get_cf(db, ro, handles[0], "r2", "x");
  check_get_cf(db, ro, handles[1], "a", "default");
  rocksdb_column_family_handle_destroy(handles[0]);
  rocksdb_column_family_handle_destroy(handles[1]);
  rocksdb_close(db);
  /* A family the database lacks, without create_missing_column_families. */
  const char* bad_names[3] = {"default", "counters", "absent"};
  const rocksdb_options_t* bad_opts[3] = {o, cfo, o};
  rocksdb_column_family_handle_t* three[3];
  CHECK(rocksdb_open_column_families(o, p, 3, bad_names, bad_opts, three, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: ");
  /* With create_missing_column_families the family is made. */
  rocksdb_options_set_create_missing_column_families(o, 1);
  db = rocksdb_open_column_families(o, p, 3, bad_names, bad_opts, three, &err);
  CHECK_OK(err);
  rocksdb_put_cf(db, wo, three[2], "new", 3, "family", 6, &err);
  check_get_cf(db, ro, three[2], "new", "family");
  for (int i = 0; i < 3; i++) rocksdb_column_family_handle_destroy(three[i]);
  rocksdb_close(db);

  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_flushoptions_destroy(fo);
  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
  rocksdb_options_destroy(cfo);
  rocksdb_options_destroy(o);
}

static void test_callbacks(void) {
  phase = "callbacks";
  char* err = NULL;
  char p[4096];
  path(p, "callbacks");
  rocksdb_comparator_t* cmp =
      rocksdb_comparator_create(NULL, reverse_destroy, reverse_compare, reverse_name);
  rocksdb_compactionfilter_t* filter =
      rocksdb_compactionfilter_create(NULL, filter_destroy, filter_filter, filter_name);
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_comparator(o, cmp);
  rocksdb_options_set_merge_operator(
      o, rocksdb_mergeoperator_create(NULL, merge_destroy, merge_full, merge_partial,
                                      merge_delete_value, merge_name));
  rocksdb_options_set_compaction_filter(o, filter);
  rocksdb_t* db = rocksdb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();

  /* The comparator orders the keys (reversed). */
  const char* ks[4] = {"a", "c", "b", "d"};
  for (int i = 0; i < 4; i++) rocksdb_put(db, wo, ks[i], 1, ks[i], 1, &err);
  CHECK_OK(err);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db, ro);
  rocksdb_iter_seek_to_first(it);
  check_iter(it, "d", "d");
  rocksdb_iter_next(it);
  check_iter(it, "c", "c");
  rocksdb_iter_seek_to_last(it);
  check_iter(it, "a", "a");
  rocksdb_iter_destroy(it);

  /* Merges fold through the callbacks; every returned buffer goes back to delete_value. */
  rocksdb_put(db, wo, "n", 1, "10", 2, &err);
  rocksdb_merge(db, wo, "n", 1, "5", 1, &err);
  rocksdb_merge(db, wo, "n", 1, "7", 1, &err);
  CHECK_OK(err);
  check_get(db, ro, "n", "22");
  rocksdb_merge(db, wo, "m", 1, "1", 1, &err);
  rocksdb_merge(db, wo, "m", 1, "2", 1, &err);
  rocksdb_merge(db, wo, "m", 1, "3", 1, &err);
  check_get(db, ro, "m", "6");
  rocksdb_merge(db, wo, "x", 1, "bad", 3, &err); /* the callback fails: the read reports it */
  size_t len = 0;
  CHECK(rocksdb_get(db, ro, "x", 1, &len, &err) == NULL);
  CHECK_ERR(err, "Corruption: ");
  rocksdb_delete(db, wo, "x", 1, &err);

  /* The compaction filter removes and rewrites during a compaction. */
  rocksdb_put(db, wo, "drop1", 5, "v", 1, &err);
  rocksdb_put(db, wo, "change1", 7, "v", 1, &err);
  rocksdb_put(db, wo, "keep1", 5, "v", 1, &err);
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_flush(db, fo, &err);
  CHECK_OK(err);
  rocksdb_compact_range(db, NULL, 0, NULL, 0);
  check_get(db, ro, "drop1", NULL);
  check_get(db, ro, "change1", "changed");
  check_get(db, ro, "keep1", "v");
  check_get(db, ro, "m", "6"); /* merges survive compaction (partial merges allowed) */
  CHECK(merge_deleted > 0);
  rocksdb_close(db);

  /* Reopening needs a comparator of the same name. */
  rocksdb_options_t* plain = rocksdb_options_create();
  CHECK(rocksdb_open(plain, p, &err) == NULL);
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_options_destroy(plain);

  /* The options own the merge operator: its destructor runs when they are destroyed. The
     comparator and filter are borrowed: their destructors run at their destroy calls. */
  CHECK(merge_destroyed == 0);
  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_options_destroy(o);
  CHECK(merge_destroyed == 1);
  CHECK(reverse_destroyed == 0);
  rocksdb_comparator_destroy(cmp);
  CHECK(reverse_destroyed == 1);
  CHECK(filter_destroyed == 0);
  rocksdb_compactionfilter_destroy(filter);
  CHECK(filter_destroyed == 1);
  /* A merge operator never given to options is destroyed by its own call. */
  rocksdb_mergeoperator_destroy(rocksdb_mergeoperator_create(
      NULL, merge_destroy, merge_full, NULL, merge_delete_value, merge_name));
  CHECK(merge_destroyed == 2);

  /* Prefix extractors: prefix_same_as_start stops at the end of the seek key's prefix. */
  path(p, "prefix");
  o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_prefix_extractor(o, rocksdb_slicetransform_create_fixed_prefix(3));
  rocksdb_slicetransform_destroy(rocksdb_slicetransform_create_fixed_prefix(2));
  db = rocksdb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_put(db, wo, "foo1", 4, "1", 1, &err);
  rocksdb_put(db, wo, "foo2", 4, "2", 1, &err);
  rocksdb_put(db, wo, "fop1", 4, "3", 1, &err);
  rocksdb_readoptions_set_prefix_same_as_start(ro, 1);
  it = rocksdb_create_iterator(db, ro);
  rocksdb_iter_seek(it, "foo", 3);
  check_iter(it, "foo1", "1");
  rocksdb_iter_next(it);
  check_iter(it, "foo2", "2");
  rocksdb_iter_next(it);
  CHECK(!rocksdb_iter_valid(it));
  rocksdb_iter_destroy(it);
  rocksdb_close(db);
  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_options_set_prefix_extractor(o, NULL);
  rocksdb_options_destroy(o);

  rocksdb_flushoptions_destroy(fo);
  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
}

static void test_transactions(void) {
  phase = "transactions";
  char* err = NULL;
  char p[4096];
  path(p, "txn");
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_uint64add_merge_operator(o);
  rocksdb_transactiondb_options_t* tdo = rocksdb_transactiondb_options_create();
  rocksdb_transactiondb_options_set_max_num_locks(tdo, -1);
  rocksdb_transactiondb_options_set_num_stripes(tdo, 8);
  rocksdb_transactiondb_options_set_transaction_lock_timeout(tdo, 50);
  rocksdb_transactiondb_options_set_default_lock_timeout(tdo, 50);
  rocksdb_transactiondb_t* tdb = rocksdb_transactiondb_open(o, tdo, p, &err);
  CHECK_OK(err);
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  rocksdb_transaction_options_t* to = rocksdb_transaction_options_create();
  rocksdb_transaction_options_set_set_snapshot(to, 1);
  rocksdb_transaction_options_set_deadlock_detect(to, 1);
  rocksdb_transaction_options_set_lock_timeout(to, 50);
  rocksdb_transaction_options_set_expiration(to, -1);
  CHECK(rocksdb_transaction_options_get_set_snapshot(to) == 1);
  CHECK(rocksdb_transaction_options_get_deadlock_detect(to) == 1);
  CHECK(rocksdb_transaction_options_get_lock_timeout(to) == 50);
  CHECK(rocksdb_transaction_options_get_expiration(to) == -1);
  ROUNDTRIP(rocksdb_transaction_options_set_deadlock_detect_depth,
            rocksdb_transaction_options_get_deadlock_detect_depth, to, 20);
  ROUNDTRIP(rocksdb_transaction_options_set_max_write_batch_size,
            rocksdb_transaction_options_get_max_write_batch_size, to, (size_t)1 << 20);
  ROUNDTRIP(rocksdb_transaction_options_set_skip_concurrency_control,
            rocksdb_transaction_options_get_skip_concurrency_control, to, 1);
  rocksdb_transaction_options_set_skip_concurrency_control(to, 0);
  CHECK(rocksdb_transaction_options_get_skip_prepare(to) == 1);
  CHECK(rocksdb_transactiondb_options_get_max_num_locks(tdo) == -1);
  CHECK(rocksdb_transactiondb_options_get_num_stripes(tdo) == 8);
  CHECK(rocksdb_transactiondb_options_get_transaction_lock_timeout(tdo) == 50);
  CHECK(rocksdb_transactiondb_options_get_default_lock_timeout(tdo) == 50);
  ROUNDTRIP(rocksdb_transactiondb_options_set_max_num_deadlocks,
            rocksdb_transactiondb_options_get_max_num_deadlocks, tdo, 7u);

  /* Writes outside transactions. */
  size_t len = 0;
  rocksdb_transactiondb_put(tdb, wo, "a", 1, "1", 1, &err);
  rocksdb_transactiondb_put(tdb, wo, "d", 1, "x", 1, &err);
  rocksdb_transactiondb_delete(tdb, wo, "d", 1, &err);
  uint64_t one = 1;
  rocksdb_transactiondb_merge(tdb, wo, "n", 1, (const char*)&one, 8, &err);
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  rocksdb_writebatch_put(b, "b", 1, "2", 1);
  rocksdb_transactiondb_write(tdb, wo, b, &err);
  CHECK_OK(err);
  char* v = rocksdb_transactiondb_get(tdb, ro, "b", 1, &len, &err);
  CHECK_OK(err);
  CHECK(v != NULL && len == 1 && v[0] == '2');
  rocksdb_free(v);
  const char* keys[2] = {"a", "d"};
  size_t ks[2] = {1, 1};
  char* vals[2];
  size_t vs[2];
  char* errs[2];
  rocksdb_transactiondb_multi_get(tdb, ro, 2, keys, ks, vals, vs, errs);
  CHECK(vals[0] != NULL && vs[0] == 1 && vals[1] == NULL && errs[0] == NULL && errs[1] == NULL);
  rocksdb_free(vals[0]);
  const rocksdb_snapshot_t* snap = rocksdb_transactiondb_create_snapshot(tdb);
  rocksdb_transactiondb_put(tdb, wo, "a", 1, "later", 5, &err);
  rocksdb_readoptions_set_snapshot(ro, snap);
  rocksdb_iterator_t* it = rocksdb_transactiondb_create_iterator(tdb, ro);
  rocksdb_iter_seek_to_first(it);
  check_iter(it, "a", "1");
  rocksdb_iter_destroy(it);
  rocksdb_readoptions_set_snapshot(ro, NULL);
  rocksdb_transactiondb_release_snapshot(tdb, snap);

  /* A transaction reads its own writes; others see them after commit. */
  rocksdb_transaction_t* t1 = rocksdb_transaction_begin(tdb, wo, to, NULL);
  CHECK(t1 != NULL);
  rocksdb_transaction_put(t1, "t", 1, "mine", 4, &err);
  rocksdb_transaction_merge(t1, "n", 1, (const char*)&one, 8, &err);
  rocksdb_transaction_delete(t1, "b", 1, &err);
  CHECK_OK(err);
  v = rocksdb_transaction_get(t1, ro, "t", 1, &len, &err);
  CHECK(v != NULL && len == 4);
  rocksdb_free(v);
  v = rocksdb_transaction_get(t1, ro, "b", 1, &len, &err);
  CHECK(v == NULL);
  v = rocksdb_transactiondb_get(tdb, ro, "t", 1, &len, &err);
  CHECK(v == NULL);
  it = rocksdb_transaction_create_iterator(t1, ro);
  rocksdb_iter_seek(it, "s", 1);
  check_iter(it, "t", "mine");
  /* Writing to the transaction while its iterator is open is allowed (RocksDB's rule); the
     iterator keeps working over the writes made before it. */
  for (int i = 0; i < 200; i++) {
    char k[8];
    snprintf(k, sizeof(k), "u%03d", i);
    rocksdb_transaction_put(t1, k, strlen(k), "x", 1, &err);
    CHECK_OK(err);
  }
  rocksdb_iter_next(it);
  CHECK(!rocksdb_iter_valid(it)); /* "u..." came after the iterator */
  rocksdb_iter_seek(it, "t", 1);
  check_iter(it, "t", "mine");
  rocksdb_iter_destroy(it);
  const char* tkeys[2] = {"t", "b"};
  rocksdb_transaction_multi_get(t1, ro, 2, tkeys, ks, vals, vs, errs);
  CHECK(vals[0] != NULL && vs[0] == 4 && vals[1] == NULL);
  rocksdb_free(vals[0]);

  /* A second transaction cannot lock what the first holds: it times out. */
  rocksdb_transaction_t* t2 = rocksdb_transaction_begin(tdb, wo, to, NULL);
  v = rocksdb_transaction_get_for_update(t1, ro, "a", 1, &len, 1, &err);
  CHECK_OK(err);
  rocksdb_free(v);
  v = rocksdb_transaction_get_for_update(t2, ro, "a", 1, &len, 1, &err);
  CHECK(v == NULL);
  CHECK_ERR(err, "Operation timed out: ");
  rocksdb_transaction_put(t2, "t", 1, "theirs", 6, &err);
  CHECK_ERR(err, "Operation timed out: ");

  /* Save points. */
  rocksdb_transaction_set_savepoint(t1);
  rocksdb_transaction_put(t1, "sp", 2, "x", 1, &err);
  rocksdb_transaction_rollback_to_savepoint(t1, &err);
  CHECK_OK(err);
  v = rocksdb_transaction_get(t1, ro, "sp", 2, &len, &err);
  CHECK(v == NULL);
  rocksdb_transaction_rollback_to_savepoint(t1, &err);
  CHECK_ERR(err, "NotFound: ");

  rocksdb_transaction_commit(t1, &err);
  CHECK_OK(err);
  v = rocksdb_transactiondb_get(tdb, ro, "t", 1, &len, &err);
  CHECK(v != NULL && len == 4 && memcmp(v, "mine", 4) == 0);
  rocksdb_free(v);
  v = rocksdb_transactiondb_get(tdb, ro, "n", 1, &len, &err); /* one merge outside, one in t1 */
  uint64_t n_now = 0;
  CHECK(v != NULL && len == 8);
  memcpy(&n_now, v, 8);
  CHECK(n_now == 2);
  rocksdb_free(v);
  rocksdb_transaction_commit(t1, &err); /* a finished transaction cannot commit again */
  CHECK(err != NULL);
  rocksdb_free(err);
  err = NULL;

  /* Reuse of a transaction object: the old transaction ends and releases its locks. */
  rocksdb_transaction_put(t2, "held", 4, "1", 1, &err);
  CHECK_OK(err);
  rocksdb_transaction_t* t4 = rocksdb_transaction_begin(tdb, wo, to, NULL);
  rocksdb_transaction_put(t4, "held", 4, "2", 1, &err);
  CHECK_ERR(err, "Operation timed out: ");
  t2 = rocksdb_transaction_begin(tdb, wo, to, t2);
  rocksdb_transaction_put(t4, "held", 4, "2", 1, &err);
  CHECK_OK(err);
  rocksdb_transaction_rollback(t4, &err);
  rocksdb_transaction_destroy(t4);
  v = rocksdb_transactiondb_get(tdb, ro, "held", 4, &len, &err);
  CHECK(v == NULL); /* the reused transaction's write was rolled back */
  /* Shared locks for update: two readers may hold one; a writer may not. */
  rocksdb_transaction_t* r1 = rocksdb_transaction_begin(tdb, wo, to, NULL);
  rocksdb_transaction_t* r2 = rocksdb_transaction_begin(tdb, wo, to, NULL);
  v = rocksdb_transaction_get_for_update(r1, ro, "t", 1, &len, 0, &err);
  CHECK_OK(err);
  rocksdb_free(v);
  v = rocksdb_transaction_get_for_update(r2, ro, "t", 1, &len, 0, &err);
  CHECK_OK(err);
  rocksdb_free(v);
  rocksdb_transaction_put(r2, "t", 1, "w", 1, &err);
  CHECK_ERR(err, "Operation timed out: ");
  rocksdb_transaction_destroy(r1);
  rocksdb_transaction_destroy(r2);
  /* Expiration 0 expires at once, as in RocksDB. */
  rocksdb_transaction_options_t* expiring = rocksdb_transaction_options_create();
  rocksdb_transaction_options_set_expiration(expiring, 0);
  rocksdb_transaction_t* te = rocksdb_transaction_begin(tdb, wo, expiring, NULL);
  rocksdb_transaction_put(te, "e", 1, "x", 1, &err);
  rocksdb_free(err);
  err = NULL;
  rocksdb_transaction_commit(te, &err);
  CHECK_ERR(err, "Operation expired: ");
  rocksdb_transaction_destroy(te);
  rocksdb_transaction_options_destroy(expiring);

  /* Reuse of a transaction object; rollback. */
  t2 = rocksdb_transaction_begin(tdb, wo, to, t2);
  rocksdb_transaction_put(t2, "r", 1, "rolled", 6, &err);
  CHECK_OK(err);
  rocksdb_transaction_rollback(t2, &err);
  CHECK_OK(err);
  v = rocksdb_transactiondb_get(tdb, ro, "r", 1, &len, &err);
  CHECK(v == NULL);

  /* Two-phase commit. */
  rocksdb_transaction_t* t3 = rocksdb_transaction_begin(tdb, wo, to, NULL);
  CHECK(rocksdb_transaction_get_name(t3, &len) == NULL && len == 0);
  rocksdb_transaction_set_name(t3, "xid-1", 5, &err);
  CHECK_OK(err);
  char* tname = rocksdb_transaction_get_name(t3, &len);
  CHECK(len == 5 && memcmp(tname, "xid-1", 5) == 0);
  rocksdb_free(tname);
  rocksdb_transaction_put(t3, "2pc", 3, "yes", 3, &err);
  rocksdb_transaction_prepare(t3, &err);
  CHECK_OK(err);
  rocksdb_transaction_commit(t3, &err);
  CHECK_OK(err);
  v = rocksdb_transactiondb_get(tdb, ro, "2pc", 3, &len, &err);
  CHECK(v != NULL && len == 3);
  rocksdb_free(v);

  rocksdb_transaction_destroy(t3);
  rocksdb_transaction_destroy(t2);
  rocksdb_transaction_destroy(t1);
  rocksdb_transactiondb_close(tdb);

  /* Optimistic transactions: conflicts are found at commit. */
  rocksdb_optimistictransactiondb_t* odb = rocksdb_optimistictransactiondb_open(o, p, &err);
  CHECK_OK(err);
  rocksdb_optimistictransaction_options_t* oto = rocksdb_optimistictransaction_options_create();
  rocksdb_optimistictransaction_options_set_set_snapshot(oto, 1);
  CHECK(rocksdb_optimistictransaction_options_get_set_snapshot(oto) == 1);
  rocksdb_transaction_t* ot = rocksdb_optimistictransaction_begin(odb, wo, oto, NULL);
  v = rocksdb_transaction_get_for_update(ot, ro, "a", 1, &len, 1, &err);
  CHECK_OK(err);
  CHECK(v != NULL && len == 5);
  rocksdb_free(v);
  rocksdb_transaction_put(ot, "a", 1, "occ", 3, &err);
  CHECK_OK(err);
  rocksdb_writebatch_clear(b);
  rocksdb_writebatch_put(b, "a", 1, "outside", 7);
  rocksdb_optimistictransactiondb_write(odb, wo, b, &err);
  CHECK_OK(err);
  rocksdb_transaction_commit(ot, &err);
  CHECK_ERR(err, "Resource busy: ");
  ot = rocksdb_optimistictransaction_begin(odb, wo, oto, ot);
  rocksdb_transaction_put(ot, "o", 1, "ok", 2, &err);
  v = rocksdb_transaction_get(ot, ro, "o", 1, &len, &err);
  CHECK(v != NULL && len == 2);
  rocksdb_free(v);
  rocksdb_transaction_multi_get(ot, ro, 1, keys, ks, vals, vs, errs);
  CHECK(vals[0] != NULL && vs[0] == 7);
  rocksdb_free(vals[0]);
  it = rocksdb_transaction_create_iterator(ot, ro);
  rocksdb_iter_seek(it, "o", 1);
  check_iter(it, "o", "ok");
  rocksdb_iter_destroy(it);
  rocksdb_transaction_set_savepoint(ot);
  rocksdb_transaction_put(ot, "sp", 2, "1", 1, &err);
  CHECK_OK(err);
  rocksdb_transaction_rollback_to_savepoint(ot, &err);
  CHECK_OK(err);
  v = rocksdb_transaction_get(ot, ro, "sp", 2, &len, &err);
  CHECK_OK(err);
  CHECK(v == NULL);
  rocksdb_transaction_rollback_to_savepoint(ot, &err);
  CHECK_ERR(err, "NotFound: ");
  rocksdb_transaction_set_name(ot, "x", 1, &err);
  CHECK_ERR(err, "Not implemented: ");
  rocksdb_transaction_prepare(ot, &err);
  CHECK_ERR(err, "Not implemented: ");
  CHECK(rocksdb_transaction_get_name(ot, &len) == NULL);
  rocksdb_transaction_commit(ot, &err);
  CHECK_OK(err);
  rocksdb_transaction_destroy(ot);
  rocksdb_optimistictransaction_options_destroy(oto);
  rocksdb_optimistictransactiondb_close(odb);

  rocksdb_writebatch_destroy(b);
  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_transaction_options_destroy(to);
  rocksdb_transactiondb_options_destroy(tdo);
  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
  rocksdb_options_destroy(o);
}

static void test_transactions_cf(void) {
  phase = "transactions_cf";
  char* err = NULL;
  char p[4096];
  path(p, "txn_cf");
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_uint64add_merge_operator(o);
  rocksdb_transactiondb_options_t* tdo = rocksdb_transactiondb_options_create();
  rocksdb_transactiondb_options_set_transaction_lock_timeout(tdo, 0);
  rocksdb_transactiondb_t* tdb = rocksdb_transactiondb_open(o, tdo, p, &err);
  CHECK_OK(err);
  rocksdb_column_family_handle_t* cf = rocksdb_transactiondb_create_column_family(tdb, o, "t", &err);
  CHECK_OK(err);
  CHECK(rocksdb_transactiondb_create_column_family(tdb, o, "t", &err) == NULL);
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  rocksdb_transaction_options_t* to = rocksdb_transaction_options_create();
  size_t len = 0;
  uint64_t one = 1, got = 0;

  /* Family writes and reads on the database. */
  rocksdb_transactiondb_put_cf(tdb, wo, cf, "a", 1, "1", 1, &err);
  rocksdb_transactiondb_put_cf(tdb, wo, cf, "d", 1, "x", 1, &err);
  rocksdb_transactiondb_delete_cf(tdb, wo, cf, "d", 1, &err);
  rocksdb_transactiondb_merge_cf(tdb, wo, cf, "n", 1, (const char*)&one, 8, &err);
  CHECK_OK(err);
  char* v = rocksdb_transactiondb_get_cf(tdb, ro, cf, "a", 1, &len, &err);
  CHECK(v != NULL && len == 1 && v[0] == '1');
  rocksdb_free(v);
  v = rocksdb_transactiondb_get_cf(tdb, ro, cf, "d", 1, &len, &err);
  CHECK(v == NULL && err == NULL);
  rocksdb_pinnableslice_t* ps = rocksdb_transactiondb_get_pinned_cf(tdb, ro, cf, "n", 1, &err);
  const char* pv = rocksdb_pinnableslice_value(ps, &len);
  CHECK(len == 8);
  memcpy(&got, pv, 8);
  CHECK(got == 1);
  rocksdb_pinnableslice_destroy(ps);
  rocksdb_transactiondb_put(tdb, wo, "a", 1, "default", 7, &err);
  ps = rocksdb_transactiondb_get_pinned(tdb, ro, "a", 1, &err);
  pv = rocksdb_pinnableslice_value(ps, &len);
  CHECK(len == 7 && memcmp(pv, "default", 7) == 0);
  rocksdb_pinnableslice_destroy(ps);
  const rocksdb_column_family_handle_t* fams[2] = {cf, cf};
  const char* keys[2] = {"a", "zz"};
  size_t ks[2] = {1, 2};
  char* vals[2];
  size_t vs[2];
  char* errs[2];
  rocksdb_transactiondb_multi_get_cf(tdb, ro, fams, 2, keys, ks, vals, vs, errs);
  CHECK(vals[0] != NULL && vs[0] == 1 && vals[1] == NULL && errs[0] == NULL && errs[1] == NULL);
  rocksdb_free(vals[0]);
  rocksdb_iterator_t* it = rocksdb_transactiondb_create_iterator_cf(tdb, ro, cf);
  rocksdb_iter_seek_to_first(it);
  check_iter(it, "a", "1");
  rocksdb_iter_destroy(it);
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_transactiondb_flush_cf(tdb, fo, cf, &err);
  CHECK_OK(err);
  rocksdb_transactiondb_flush(tdb, fo, &err);
  CHECK_OK(err);
  uint64_t files = 0;
  CHECK(rocksdb_transactiondb_property_int(tdb, "rocksdb.num-files-at-level0", &files) == 0);
  CHECK(files == 1);
  char* prop = rocksdb_transactiondb_property_value(tdb, "rocksdb.num-files-at-level0");
  CHECK(prop != NULL && strcmp(prop, "1") == 0);
  rocksdb_free(prop);

  /* Family calls inside a transaction: its own writes over the database, locks per family. */
  rocksdb_transaction_t* t = rocksdb_transaction_begin(tdb, wo, to, NULL);
  rocksdb_transaction_put_cf(t, cf, "b", 1, "2", 1, &err);
  rocksdb_transaction_delete_cf(t, cf, "a", 1, &err);
  rocksdb_transaction_merge_cf(t, cf, "n", 1, (const char*)&one, 8, &err);
  CHECK_OK(err);
  v = rocksdb_transaction_get_cf(t, ro, cf, "a", 1, &len, &err);
  CHECK(v == NULL && err == NULL);
  v = rocksdb_transaction_get_cf(t, ro, cf, "n", 1, &len, &err);
  CHECK(v != NULL && len == 8);
  memcpy(&got, v, 8);
  CHECK(got == 2);
  rocksdb_free(v);
  ps = rocksdb_transaction_get_pinned_cf(t, ro, cf, "b", 1, &err);
  pv = rocksdb_pinnableslice_value(ps, &len);
  CHECK(len == 1 && pv[0] == '2');
  rocksdb_pinnableslice_destroy(ps);
  ps = rocksdb_transaction_get_pinned(t, ro, "a", 1, &err);
  pv = rocksdb_pinnableslice_value(ps, &len);
  CHECK(len == 7);
  rocksdb_pinnableslice_destroy(ps);
  CHECK(rocksdb_transaction_get_pinned(t, ro, "zz", 2, &err) == NULL && err == NULL);
  const char* tkeys[2] = {"b", "a"};
  rocksdb_transaction_multi_get_cf(t, ro, fams, 2, tkeys, ks, vals, vs, errs);
  CHECK(vals[0] != NULL && vs[0] == 1 && vals[1] == NULL);
  rocksdb_free(vals[0]);
  it = rocksdb_transaction_create_iterator_cf(t, ro, cf);
  rocksdb_iter_seek_to_first(it);
  check_iter(it, "b", "2");
  rocksdb_iter_destroy(it);
  /* Locks for update, per family; a second transaction cannot take them (no wait). */
  rocksdb_transaction_t* t2 = rocksdb_transaction_begin(tdb, wo, to, NULL);
  v = rocksdb_transaction_get_for_update_cf(t, ro, cf, "x", 1, &len, 1, &err);
  CHECK(v == NULL && err == NULL);
  v = rocksdb_transaction_get_for_update_cf(t2, ro, cf, "x", 1, &len, 1, &err);
  CHECK_ERR(err, "Operation timed out: ");
  const char* ukeys[2] = {"u1", "u2"};
  size_t uks[2] = {2, 2};
  rocksdb_transaction_multi_get_for_update(t, ro, 2, ukeys, uks, vals, vs, errs);
  CHECK(vals[0] == NULL && errs[0] == NULL && errs[1] == NULL);
  rocksdb_transaction_multi_get_for_update(t2, ro, 2, ukeys, uks, vals, vs, errs);
  CHECK_ERR(errs[0], "Operation timed out: ");
  CHECK_ERR(errs[1], "Operation timed out: ");
  rocksdb_transaction_multi_get_for_update_cf(t, ro, fams, 2, ukeys, uks, vals, vs, errs);
  CHECK(errs[0] == NULL && errs[1] == NULL);
  rocksdb_transaction_multi_get_for_update_cf(t2, ro, fams, 2, ukeys, uks, vals, vs, errs);
  CHECK_ERR(errs[0], "Operation timed out: ");
  CHECK_ERR(errs[1], "Operation timed out: ");
  rocksdb_transaction_commit(t, &err);
  CHECK_OK(err);
  v = rocksdb_transaction_get_for_update_cf(t2, ro, cf, "b", 1, &len, 1, &err);
  CHECK(v != NULL && len == 1);
  rocksdb_free(v);
  rocksdb_transaction_destroy(t2);
  rocksdb_transaction_destroy(t);

  /* skip_prepare = 0: a commit needs a prepare. Prepared transactions whose handles are gone
     come back from rocksdb_transactiondb_get_prepared_transactions. */
  size_t cnt = 9;
  CHECK(rocksdb_transactiondb_get_prepared_transactions(tdb, &cnt) == NULL && cnt == 0);
  rocksdb_transaction_options_set_skip_prepare(to, 0);
  t = rocksdb_transaction_begin(tdb, wo, to, NULL);
  rocksdb_transaction_put(t, "p", 1, "prepared", 8, &err);
  rocksdb_transaction_commit(t, &err);
  CHECK_ERR(err, "Invalid argument: ");
  rocksdb_transaction_set_name(t, "xid", 3, &err);
  rocksdb_transaction_prepare(t, &err);
  CHECK_OK(err);
  rocksdb_transaction_destroy(t);
  rocksdb_transaction_t** prepared = rocksdb_transactiondb_get_prepared_transactions(tdb, &cnt);
  CHECK(cnt == 1 && prepared != NULL);
  rocksdb_transaction_commit(prepared[0], &err);
  CHECK_OK(err);
  rocksdb_transaction_destroy(prepared[0]);
  rocksdb_free(prepared);
  v = rocksdb_transactiondb_get(tdb, ro, "p", 1, &len, &err);
  CHECK(v != NULL && len == 8);
  rocksdb_free(v);

  rocksdb_column_family_handle_destroy(cf);
  rocksdb_transactiondb_close(tdb);
  rocksdb_destroy_db(o, p, &err);
  CHECK_OK(err);
  rocksdb_flushoptions_destroy(fo);
  rocksdb_transaction_options_destroy(to);
  rocksdb_transactiondb_options_destroy(tdo);
  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
  rocksdb_options_destroy(o);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
    return 2;
  }
  snprintf(dir, sizeof(dir), "%s", argv[1]);
  test_options();
  test_table_options();
  test_db();
  test_batch();
  test_column_families();
  test_callbacks();
  test_transactions();
  test_transactions_cf();
  rocksdb_free(NULL);
  printf("api_test: all phases passed\n");
  return 0;
}
