/**
 * Getting a JSON value out of a model's answer: models wrap JSON in code fences, add a sentence
 * before it, or (reasoning models) prepend a <think> block. Returns the parsed value or a message
 * that can be sent back to the model.
 */
export type JsonExtraction = { ok: true; value: unknown } | { ok: false; message: string };

export function extractJson(text: string): JsonExtraction {
  let t = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(t);
  if (fence) t = fence[1]!.trim();
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    // fall through: look for the outermost object
  }
  const start = t.indexOf('{');
  const end = t.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      return { ok: true, value: JSON.parse(t.slice(start, end + 1)) };
    } catch (err) {
      return { ok: false, message: `the answer is not valid JSON: ${(err as Error).message}` };
    }
  }
  return { ok: false, message: text.trim() ? 'the answer contains no JSON object' : 'the answer was empty' };
}
