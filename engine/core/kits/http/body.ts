/**
 * Reading an HTTP response body within a byte budget, for every HTTP client here (the toolkit in
 * provider.ts, cloud_d's signed client): what is read is taken from the budget, and once it runs out
 * the rest is not read (`cut`), so a huge or endless answer cannot fill memory.
 */

/**
 * The body as text and whether it was cut at the budget. `broke` turns a body that stalled or broke
 * mid-way into the caller's own error (a deadline, or the server's fault).
 */
export async function readBounded(res: Response, budget: { bytes: number }, broke: (err: Error) => never): Promise<{ text: string; cut: boolean }> {
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let cut = false;
  while (reader) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (err) {
      broke(err as Error);
    }
    const { done, value } = chunk;
    if (done) break;
    budget.bytes -= value.byteLength;
    if (budget.bytes < 0) {
      cut = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut };
}
