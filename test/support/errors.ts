/** The errors tests expect: what a promise rejects with, of the class the test names. */
import * as assert from 'uvu/assert';
import { AssistantError } from '../../engine/core/errors.js';

/** The AssistantError a promise rejects with (any other error, or none, fails the test). */

export async function assistantErrorOf(p: Promise<unknown>): Promise<AssistantError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AssistantError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

/** The error of class `type` that `fn` rejects with (another error, or none, fails the test). */
export async function rejectionOf<E extends Error>(fn: () => Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, type);
    return err as E;
  }
  throw new Error(`expected ${type.name}`);
}
