/**
 * The virtuoso.ini of a throw-away Virtuoso on loopback: database, logs and lock in one directory,
 * free ports, no periodic checkpoint. Shared by the bench launcher and the remote-mode tests.
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
MaxDirtyBuffers = ${Math.floor(buffers * 0.75)}
DirsAllowed = ${['.', ...(options.readableDirs ?? []), dir].join(', ')}
CheckpointInterval = 0

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
