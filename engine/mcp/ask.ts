/**
 * The ask tool's bridge to the ask flow. Until the ask flow lands it answers with a clear error.
 */
import { AiNotConfiguredError } from '../ai/errors.js';
import type { McpBackend } from './tools.js';

export async function askForTool(
  _backend: McpBackend,
  _question: string,
  _signal: AbortSignal,
): Promise<{ text: string; structured: { answer: string; providers: string[]; ai_provider: string; model?: string; summarised: boolean } }> {
  throw new AiNotConfiguredError('answering questions needs an AI provider, and this build does not answer questions yet', {
    hint: 'use assistant_gpucloud_list or assistant_gpucloud_get to read resources',
  });
}
