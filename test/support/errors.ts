/** The AssistantError a promise rejects with (any other error, or none, fails the test). */
import { AssistantError } from '../../engine/core/errors.js';

export async function assistantErrorOf(p: Promise<unknown>): Promise<AssistantError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AssistantError) return err;
    throw err;
  }
  throw new Error('expected an error');
}
