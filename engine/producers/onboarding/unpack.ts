/**
 * Takes the one executable a recipe names out of a verified artefact and puts it in the bin directory.
 * Only that file is extracted, by its base name, into the caller's private temporary directory: no
 * path from the archive is ever used to write outside it (no zip-slip, no symlinks, no other files).
 * The final write is atomic: a temporary name in the bin directory, mode 0755, then a rename.
 */
import { createWriteStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import yauzl from 'yauzl';
import { OperationError } from '../../core/errors.js';

export type ArtefactFormat = 'binary' | 'zip' | 'tar.gz';

/** No command-line tool is this big; an archive claiming more is a bomb, not a tool. */
const MAX_BINARY_BYTES = 1024 * 1024 * 1024;

/** Extracts `binary` from `archive` into `workDir`; returns the extracted file. */
export async function extractBinary(archive: string, format: ArtefactFormat, binary: string, workDir: string): Promise<string> {
  if (format === 'binary') return archive;
  const out = join(workDir, 'extracted');
  await mkdir(out, { recursive: true, mode: 0o700 });
  if (format === 'zip') return extractFromZip(archive, binary, out);
  return extractFromTarGz(archive, binary, out);
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => (err || !zip ? reject(err ?? new Error('cannot open zip')) : resolve(zip))));
}

async function extractFromZip(archive: string, binary: string, out: string): Promise<string> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(archive);
  } catch (err) {
    throw new OperationError('unpack_failed', `not a readable zip archive: ${(err as Error).message}`);
  }
  const target = join(out, binary);
  let found = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('error', (err: Error) => reject(new OperationError('unpack_failed', `zip archive: ${err.message}`)));
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName.replace(/\\/g, '/');
      if (name.endsWith('/') || basename(name) !== binary) return zip.readEntry();
      found++;
      if (found > 1) return zip.readEntry();
      if (entry.uncompressedSize > MAX_BINARY_BYTES) return reject(new OperationError('unpack_failed', `${name} would unpack to ${entry.uncompressedSize} bytes, more than ${MAX_BINARY_BYTES}`));
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return reject(new OperationError('unpack_failed', `zip entry ${name}: ${err?.message ?? 'unreadable'}`));
        pipeline(stream, createWriteStream(target, { mode: 0o700, flags: 'wx' })).then(
          () => zip.readEntry(),
          (e: Error) => reject(new OperationError('unpack_failed', `zip entry ${name}: ${e.message}`)),
        );
      });
    });
    zip.readEntry();
  });
  return onlyOne(found, binary, target);
}

async function extractFromTarGz(archive: string, binary: string, out: string): Promise<string> {
  let found = 0;
  try {
    await tar.x({
      file: archive,
      cwd: out,
      strict: true,
      // Only regular files named like the binary; node-tar also refuses absolute paths and `..`.
      filter: (path, entry) => {
        const ok = basename(path) === binary && 'type' in entry && entry.type === 'File';
        if (ok && (entry.size ?? 0) > MAX_BINARY_BYTES) throw new OperationError('unpack_failed', `${path} would unpack to ${entry.size} bytes, more than ${MAX_BINARY_BYTES}`);
        if (ok) found++;
        return ok && found === 1;
      },
    });
  } catch (err) {
    if (err instanceof OperationError) throw err;
    throw new OperationError('unpack_failed', `not a readable tar.gz archive: ${(err as Error).message}`);
  }
  if (found !== 1) return onlyOne(found, binary, '');
  const file = await findFile(out, binary);
  if (!file) throw new OperationError('unpack_failed', `the archive's ${binary} could not be extracted`);
  return file;
}

function onlyOne(found: number, binary: string, file: string): string {
  if (found === 0) throw new OperationError('unpack_failed', `the archive holds no file named ${binary}`);
  if (found > 1) throw new OperationError('unpack_failed', `the archive holds ${found} files named ${binary}; refusing to guess which one`);
  return file;
}

async function findFile(dir: string, name: string): Promise<string | undefined> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await findFile(path, name);
      if (inner) return inner;
    } else if (entry.isFile() && entry.name === name) return path;
  }
  return undefined;
}

/** Writes `file` to `dest` atomically with mode 0755 (the bin directory is created when missing). */
export async function placeExecutable(file: string, dest: string): Promise<void> {
  const dir = dirname(dest);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  if (!(await stat(file)).isFile()) throw new OperationError('unpack_failed', `${file} is not a file`);
  const partial = join(dir, `.${basename(dest)}.partial-${process.pid}-${Date.now()}`);
  try {
    await copyFile(file, partial);
    await chmod(partial, 0o755);
    await rename(partial, dest);
  } catch (err) {
    await rm(partial, { force: true });
    throw new OperationError('install_failed', `cannot write ${dest}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      hint: 'choose a directory you can write with --prefix <dir>',
    });
  }
}
