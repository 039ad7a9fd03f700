/**
 * The body of a request to a server we ship (mcp, box, backend), bounded: a declared length over the
 * limit is refused before a byte is read, and a body that grows past it is cut as it streams, so no
 * client can make a server hold more than `limit` bytes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the body is larger than ${limit} bytes`);
  }
}

export async function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The header every answer of our servers carries when the request's body was not read to its end (a 413,
 * a 401 before reading): the connection closes after the answer. Without it Node keeps the connection
 * alive by reading and dropping the rest of the upload, so a client declaring 1 GB gets its gigabyte read.
 */
export function closeIfBodyUnread(res: ServerResponse): { connection?: 'close' } {
  return res.req.complete ? {} : { connection: 'close' };
}
