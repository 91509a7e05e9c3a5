/* RocksDB's header name, for programs written against RocksDB's C API: everything CairnDB
   provides of it is declared in cairndb/c.h. */
#ifndef CAIRNDB_ROCKSDB_C_H
#define CAIRNDB_ROCKSDB_C_H
#include "cairndb/c.h"
#endif
