  /* Replaces RocksDB c_test.c's first phase (create_objects) when scripts/c_test_phases.py
     assembles its phases against CairnDB: the same comparator, cache, options, table options,
     rate limiter, read and write options, made with the functions CairnDB provides. Left out,
     because CairnDB has no such thing: the environment and its directory creation, the db_path,
     the info log, the data-block hash index, index search type and pinning tiers, the
     compression-options tuple, the write_dbid_to_manifest flag, the compact-on-deletion
     collectors, and the compaction options. Everything before the END marker stands in for
     create_objects, everything after it for the final phase (cleanup). */
  StartPhase("create_objects (CairnDB's subset)");
  cmp = rocksdb_comparator_create(NULL, CmpDestroy, CmpCompare, CmpName);
  cache = rocksdb_cache_create_lru(100000);
  options = rocksdb_options_create();
  rocksdb_options_set_comparator(options, cmp);
  rocksdb_options_set_error_if_exists(options, 1);
  rocksdb_options_set_write_buffer_size(options, 100000);
  rocksdb_options_set_paranoid_checks(options, 1);
  rocksdb_options_set_max_open_files(options, 10);
  table_options = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_block_cache(table_options, cache);
  rocksdb_options_set_block_based_table_factory(options, table_options);
  rocksdb_options_set_compression(options, rocksdb_no_compression);
  int compression_levels[] = {rocksdb_no_compression, rocksdb_no_compression,
                              rocksdb_no_compression, rocksdb_no_compression};
  rocksdb_options_set_compression_per_level(options, compression_levels, 4);
  rate_limiter = rocksdb_ratelimiter_create(1000 * 1024 * 1024, 100 * 1000, 10);
  rocksdb_options_set_ratelimiter(options, rate_limiter);
  rocksdb_ratelimiter_destroy(rate_limiter);
  roptions = rocksdb_readoptions_create();
  rocksdb_readoptions_set_verify_checksums(roptions, 1);
  rocksdb_readoptions_set_fill_cache(roptions, 1);
  woptions = rocksdb_writeoptions_create();
  rocksdb_writeoptions_set_sync(woptions, 1);
/* END */
  StartPhase("cleanup (CairnDB's subset)");
  rocksdb_close(db);
  rocksdb_options_destroy(options);
  rocksdb_block_based_options_destroy(table_options);
  rocksdb_readoptions_destroy(roptions);
  rocksdb_writeoptions_destroy(woptions);
  rocksdb_cache_destroy(cache);
  rocksdb_comparator_destroy(cmp);
  fprintf(stderr, "PASS\n");
  return 0;
}
