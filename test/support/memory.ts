import { Writable } from 'node:stream';

/** A writable stream that keeps what is written, for code under test that writes to stdout or stderr. */
export function memoryStream(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  return { stream, text: () => text };
}
