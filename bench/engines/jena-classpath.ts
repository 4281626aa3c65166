/**
 * A classpath for Debian's Apache Jena (libapache-jena-java, 4.5), shared by the benchmark's Jena
 * engine (jena.ts) and the client test (test/clients/jena.test.ts). Debian ships the jars in
 * /usr/share/java without a launcher script or a Class-Path in their manifests, so the classpath is
 * Jena's jars and those of the packages it depends on.
 *
 * Debian's jena-core 4.5.0 moved Jena's copy of Xerces to the package `xerces` but left its message
 * bundles under org/apache/jena/ext/xerces, so Jena's first XSD datatype fails ("internal error") and
 * no command starts: xercesMessages copies the bundles to where the classes look for them, a
 * directory to put first on the classpath.
 */
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';

export const DEBIAN_JARS = '/usr/share/java';

/** Jena's jars for its command-line clients (ARQ, RDFConnection). */
export const JENA_CLIENT_JARS = ['jena-base', 'jena-core', 'jena-arq', 'jena-iri', 'jena-cmds', 'jena-rdfconnection'];

/** Jena's jars for a TDB2 store besides the clients'. */
export const JENA_STORE_JARS = [
  'jena-tdb',
  'jena-tdb2',
  'jena-dboe-base',
  'jena-dboe-index',
  'jena-dboe-storage',
  'jena-dboe-trans-data',
  'jena-dboe-transaction',
];

/** libapache-jena-java's dependencies (apt-cache depends), with one binding for slf4j. */
export const JENA_DEPENDENCY_JARS = [
  'commons-cli',
  'commons-codec',
  'commons-compress',
  'commons-csv',
  'commons-io',
  'commons-lang3',
  'dexx.collection',
  'gson',
  'guava',
  'httpclient',
  'httpcore',
  'jackson-core',
  'jackson-databind',
  'jackson-annotations',
  'jsonld-java',
  'jakarta.json-api',
  'protobuf',
  'thrift',
  'titanium-json-ld',
  'slf4j-api',
  'slf4j-nop',
];

/** The paths of Debian jars by name. */
export function debianJars(names: readonly string[]): string[] {
  return names.map((jar) => join(DEBIAN_JARS, `${jar}.jar`));
}

/** Extracts Xerces's message bundles under `dir`; returns the directory to put first on the classpath. */
export function xercesMessages(dir: string): string {
  const extracted = join(dir, 'extracted');
  spawnSync('unzip', ['-q', '-o', join(DEBIAN_JARS, 'jena-core.jar'), 'org/apache/jena/ext/xerces/*.properties', '-d', extracted]);
  const messages = join(dir, 'xerces-messages');
  cpSync(join(extracted, 'org', 'apache', 'jena', 'ext', 'xerces'), join(messages, 'xerces'), { recursive: true });
  return messages;
}
