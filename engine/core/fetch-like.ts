/** The part of `fetch` a client uses: Node's own, or the sandbox emulator's in-process one (no socket, no HTTP stack). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal; redirect: 'manual' },
) => Promise<{ status: number; headers: { forEach(fn: (value: string, key: string) => void): void }; text(): Promise<string> }>;
