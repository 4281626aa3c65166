/**
 * The virtuoso.ini of a throw-away Virtuoso on loopback: database, logs and lock in one directory,
 * free ports, no periodic checkpoint. Shared by the bench launcher and the remote-mode tests.
 *
 * The query engine's parameters are those of the virtuoso.ini that Debian ships (and that an
 * independent installation runs with): vector sizes, query memory, threads per query. Without them
 * Virtuoso falls back to built-in defaults that cost it a fifth more CPU per BSBM Explore mix
 * (bench/RESULTS-LOG.md, 2026-11-28).
 */

export interface VirtuosoIniOptions {
  /** Directory of the database files. */
  dir: string;
  sqlPort: number;
  httpPort: number;
  queryTimeoutS: number;
  /** Further directories Virtuoso may read (bulk-load sources). */
  readableDirs?: string[];
  /** 8 KiB pages of buffer cache; a bulk load wants many (dirty buffers: three quarters). */
  buffers?: number;
  /** Of those, how many may be dirty (default: three quarters). */
  dirtyBuffers?: number;
  /** The default graph of queries that name none (otherwise: the union of all graphs). */
  defaultGraph?: string;
}

export function virtuosoIni(options: VirtuosoIniOptions): string {
  const { dir, sqlPort, httpPort } = options;
  const buffers = options.buffers ?? 20_000;
  return `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
NumberOfBuffers = ${buffers}
MaxDirtyBuffers = ${options.dirtyBuffers ?? Math.floor(buffers * 0.75)}
DirsAllowed = ${['.', ...(options.readableDirs ?? []), dir].join(', ')}
CheckpointInterval = 0
MaxQueryMem = 2G
VectorSize = 1000
MaxVectorSize = 1000000
AdjustVectorSize = 0
ThreadsPerQuery = 4
AsyncQueueMaxThreads = 10
MaxMemPoolSize = 200000000
SchedulerInterval = 10
ThreadCleanupInterval = 0
ThreadThreshold = 10
ResourcesCleanupInterval = 0
IndexTreeMaps = 64

[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
MaxClientConnections = 8
ServerThreads = 8

[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = ${options.queryTimeoutS}
${options.defaultGraph ? `DefaultGraph = ${options.defaultGraph}\n` : ''}`;
}
