/**
 * BSBM data of any size from the benchmark's own data generator (bsbmtools 0.2, shared at
 * ../shared/bench/bsbm/generator/, run with a Java runtime), so that every engine and every scale is
 * measured on the data the benchmark defines rather than on a look-alike.
 *
 * The generator has no seed: its output is fixed by the product count (1,000 products give exactly
 * the shared bsbm-1000 file). Files are plain N-Triples (9.2 GB at 100,000 products): every engine
 * then loads them without paying for gunzip.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const JARS = ['bsbm.jar', 'ssj.jar', 'jdom.jar', 'log4j-1.2.12.jar'];
/** The generator reads these from its working directory. */
const WORD_LISTS = ['titlewords.txt', 'givennames.txt'];

/** The cached file for `products` products, generated the first time (10,000: 13–41 s; 100,000: 2–4 min). */
export async function bsbmDataset(dir: string, products: number, generatorDir: string): Promise<string> {
  const file = join(dir, `bsbm-${products}.nt`);
  if (!existsSync(file)) await generateBsbmFile(file, products, generatorDir);
  return file;
}

/**
 * Runs the generator in a scratch folder (it writes its driver's parameter files there) to a
 * temporary name, so that an interrupted run leaves no half file under the final name.
 */
export async function generateBsbmFile(file: string, products: number, generatorDir: string): Promise<void> {
  mkdirSync(resolve(file, '..'), { recursive: true });
  const scratch = mkdtempSync(`${file}.partial-`);
  try {
    for (const list of WORD_LISTS) copyFileSync(join(generatorDir, list), join(scratch, list));
    const classPath = JARS.map((jar) => join(generatorDir, 'lib', jar)).join(':');
    const args = ['-Xmx4g', '-Duser.timezone=UTC', '-cp', classPath, 'benchmark.generator.Generator'];
    args.push('-fc', '-pc', String(products), '-s', 'nt', '-fn', join(scratch, 'data'), '-dir', join(scratch, 'driver'));
    await promisify(execFile)('java', args, { cwd: scratch, maxBuffer: 64 * 1024 * 1024 }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`the BSBM generator failed (it needs a Java runtime: apt-get install default-jre-headless): ${error.stderr || error.message}`);
    });
    renameSync(join(scratch, 'data.nt'), file);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
